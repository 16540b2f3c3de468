"""Robust PCA by linearised Bregman iteration: Algorithm 7 and the accelerated Algorithm 9 (theory §6).

The solved problem, for γ > 0 and α > 0 (exact robust PCA only as γ → ∞)::

    min_{L+S=X} ‖S‖₁ + α‖L‖_* + (‖L‖²_F + ‖S‖²_F)/(2γ)

Algorithm 7 is gradient descent with step 1 on the dual energy
G_τ(B) = τ‖B‖²_F − ⟨B, X⟩ − (1/τ)[env_{γα‖·‖_*}(τB) + env_{γ‖·‖₁}(τB)] (env = Moreau envelope),
whose gradient is L + S − X with L = SVT_{γα}(τB), S = soft_γ(τB); it is 2τ-Lipschitz, so
τ ≤ ½ gives the rate G_τ(X^k) − G⋆ ≤ ‖X⁰ − X̂‖²_F/(2k).  Algorithm 9 adds FISTA momentum:
G_τ(X^k) − G⋆ ≤ 2‖X⁰ − X̂‖²_F/(k+1)².  By duality G⋆ = −P⋆/τ, P⋆ the optimum of
½‖L‖² + ½‖S‖² + γα‖L‖_* + γ‖S‖₁ on L + S = X (γ times the problem above), and the primal
solution is the prox of the dual one.  X̂ and G⋆ come from a reference solve (FISTA with
adaptive restart until ‖∇G_τ‖_F ≤ tol·‖X‖_F); a feasible primal point brackets G⋆ from below.

γ: the problem is equivariant under X → cX, γ → cγ (the solution scales by c), so "γ = 10,
scaled with the data" is read as γ = 10·σ̂(X), σ̂ = 1.4826·median|X − median X| (the MAD scale, σ
for Gaussian entries; rms if it is 0): exactly 10 on data whose bulk has unit scale, and not
inflated by the outliers (10·rms(X) would be: with 5 % outliers of size 10 it gives γ ≈ 25, where
Algorithm 7 converges linearly and the 1/k² acceleration shows nothing — theory §6 explains).
α = √max(n, s) by default.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 15))
>>> X[rng.random(X.shape) < 0.05] += 10.0
>>> L, S, res = robust_pca(X, gamma=3.0, iters=300)
>>> res.breaches, bool(res.final("dual_gap").iloc[0] < 1e-4), bool(res.bounds().holds.all())
([], True, True)
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import validation as v
from ..bounds import Bound
from ..errors import ConfigError
from .loop import iterate
from .momentum import Momentum, t_value
from .prox import l1_envelope, nuclear_envelope, soft_threshold, svd, svt

REF = "theory §6"


def matrices(X, name: str = "X") -> np.ndarray:
    """``X`` as a float array (R, n, s): one matrix or a stack of replicates; finite, non-empty.

    Parameters
    ----------
    X : array-like
        Shape ``(n, s)`` or ``(R, n, s)``.
    name : str, default "X"
        The argument's name, for error messages.
    """
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name} must be a real matrix, got {type(X).__name__}: {exc}") from None
    if A.ndim not in (2, 3) or min(A.shape) < 1:
        raise ConfigError(f"{name} must be a matrix (n, s) or a stack (R, n, s) of them, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(A))[0])
        raise ConfigError(f"{name} has a non-finite entry at {bad} ({A[bad]}); remove or impute NaN/inf first "
                          "(matrix completion takes missing entries as a mask)")
    return A[None] if A.ndim == 2 else A


def robust_scale(X) -> np.ndarray:
    """The data's scale per replicate of a stack (R, n, s): 1.4826·MAD (σ for Gaussian entries), rms if MAD = 0.

    A robust scale, so that the outliers robust PCA is meant to remove do not inflate γ.

    Parameters
    ----------
    X : numpy.ndarray
        Shape ``(R, n, s)``.
    """
    flat = X.reshape(X.shape[0], -1)
    mad = 1.482602218505602 * np.median(np.abs(flat - np.median(flat, axis=1, keepdims=True)), axis=1)
    return np.where(mad > 0, mad, np.sqrt(np.mean(flat * flat, axis=1)))


def per_replicate(name: str, value, default, R: int) -> np.ndarray:
    """A positive parameter as (R,): ``default`` (R,) when value is None, else a positive scalar or R values.

    Parameters
    ----------
    name : str
        The parameter's name.
    value : float, array-like or None
        As given.
    default : numpy.ndarray
        Shape ``(R,)``.
    R : int
        Number of replicates.
    """
    out = np.asarray(default if value is None else value, dtype=float)
    out = np.broadcast_to(out, (R,)) if out.ndim == 0 or out.shape == (R,) else None
    if out is None or not np.all(np.isfinite(out)) or np.any(out <= 0):
        raise ConfigError(f"{name} must be a positive number (or one per replicate), got {value!r}"
                          + ("; X is zero, so the data-scaled default is 0: pass it explicitly" if value is None else ""))
    return np.array(out)


def check_tau(tau, limit: float, why: str) -> float:
    """τ ∈ (0, limit]; above the limit the step-1 gradient method has no rate (and may diverge).

    Parameters
    ----------
    tau : float
        The proposed τ.
    limit : float
        Its largest admissible value.
    why : str
        The reason for the limit, for the message.
    """
    tau = v.positive_float("tau", tau)
    if tau > limit + 1e-15:
        raise ConfigError(f"tau = {tau!r} is above its limit {limit:g} ({why}); pass tau ≤ {limit:g}")
    return tau


class RPCAState(NamedTuple):
    X: np.ndarray        # X^k, the dual iterate (R, n, s)
    Y: np.ndarray        # the point of the next gradient step (Y^k; = X^k without momentum)
    L: np.ndarray        # L^k
    S: np.ndarray        # S^k
    rank: np.ndarray     # rank(L^k) per replicate
    k: int
    t: float             # t_k of the momentum rule


class RobustPCA:
    """Algorithm 7 (``accelerated=False``) or 9 as an iterative method for :func:`~onlinelab.bregman.loop.iterate`.

    Parameters
    ----------
    X : array-like
        Data, ``(n, s)`` or a stack ``(R, n, s)``.
    alpha : float, array-like or None, default None
        Weight α of the nuclear norm; None for √max(n, s).
    gamma : float, array-like or None, default None
        γ; None for 10·σ̂(X) per replicate (σ̂ the MAD scale).
    tau : float, default 0.5
        τ ∈ (0, ½].
    accelerated : bool, default True
        Algorithm 9 (FISTA on G_τ) or Algorithm 7 (gradient descent).
    t_rule : {"recursive", "linear"}, default "recursive"
        The t_k rule of the momentum.
    momentum : {"fista", "notes"}, default "fista"
        β_k = (t_k − 1)/t_{k+1}, or the notes' (t_{k+1} − 1)/t_{k+1} (no proved rate).
    reference : bool, default True
        Solve the problem to high accuracy first, for G⋆ and X̂ (the gap metric and the rate curves).
    tol : float, default 1e-10
        The reference solve stops at ‖∇G_τ‖_F ≤ tol·max(1, ‖X‖_F).
    """

    headline = ("dual_gap", "residual", "rank", "nnz")

    def __init__(self, X, alpha=None, gamma=None, tau: float = 0.5, accelerated: bool = True,
                 t_rule: str = "recursive", momentum: str = "fista", reference: bool = True, tol: float = 1e-10):
        self.data = matrices(X)
        R, n, s = self.data.shape
        self.replicates = R
        self.alpha = per_replicate("alpha", alpha, np.full(R, np.sqrt(max(n, s))), R)
        self.gamma = per_replicate("gamma", gamma, 10.0 * robust_scale(self.data), R)
        self.tau = check_tau(tau, 0.5, "1/‖A‖² for A = (I I): ∇G_τ is 2τ-Lipschitz and the step is 1")
        self.accelerated = bool(accelerated)
        Momentum(t_rule, momentum)                       # validates both names
        self.t_rule, self.momentum = t_rule, momentum
        self.name = "rpca-alg9" if self.accelerated else "rpca-alg7"
        self.tol = v.positive_float("tol", tol)
        self._cache = None
        self.ref = solve_reference(self) if reference else None

    # -- the energy and its gradient ----------------------------------------------------------------------
    def _factors(self, B, key):
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        fac = svd(self.tau * B)
        self._cache = (key, fac)
        return fac

    def prox(self, B, fac=None):
        """(L, S, rank L) = (SVT_{γα}(τB), soft_γ(τB), …): the primal point of the dual iterate B."""
        ga = self.gamma * self.alpha
        L, shrunk = svt(self.tau * B, ga, fac)
        return L, soft_threshold(self.tau * B, self.gamma[:, None, None]), np.count_nonzero(shrunk, axis=-1)

    def energy(self, B, fac=None) -> np.ndarray:
        """G_τ(B) per replicate (the dual energy; its minimum is −P⋆/τ)."""
        tau = self.tau
        sig = (fac if fac is not None else svd(tau * B))[1]
        env = nuclear_envelope(sig, self.gamma * self.alpha) + l1_envelope(tau * B, self.gamma)
        return tau * np.sum(B * B, axis=(1, 2)) - np.sum(B * self.data, axis=(1, 2)) - env / tau

    def primal(self, L, S) -> np.ndarray:
        """½‖L‖² + ½‖S‖² + γα‖L‖_* + γ‖S‖₁ per replicate (P⋆ is its minimum on L + S = X)."""
        nuc = np.linalg.svd(L, compute_uv=False).sum(axis=-1)
        return (0.5 * np.sum(L * L, axis=(1, 2)) + 0.5 * np.sum(S * S, axis=(1, 2)) + self.gamma * self.alpha * nuc
                + self.gamma * np.abs(S).sum(axis=(1, 2)))

    # -- the method protocol ------------------------------------------------------------------------------
    def init(self) -> RPCAState:
        X0 = self.data.copy()
        z = np.zeros_like(X0)
        return RPCAState(X0, X0, z, z, np.zeros(self.replicates, dtype=int), 0, 1.0)

    def step(self, st: RPCAState, k: int, data=None) -> RPCAState:
        fac = self._factors(st.Y, ("Y", st.k))
        L, S, rank = self.prox(st.Y, fac)
        Xn = st.Y - (L + S - self.data)
        t = st.t
        if self.accelerated:
            t_next = t_value(st.k + 2, self.t_rule, t)            # t_{k+2}: β_{k+1} = (t_{k+1} − 1)/t_{k+2}
            beta = (t - 1.0) / t_next if self.momentum == "fista" else (t_next - 1.0) / t_next
            Yn, t = Xn + beta * (Xn - st.X), t_next
        else:
            Yn = Xn
        return RPCAState(Xn, Yn, L, S, rank, st.k + 1, t)

    def metrics(self, st: RPCAState) -> dict:
        fac = self._factors(st.X, ("Y", st.k)) if not self.accelerated else svd(self.tau * st.X)
        G = self.energy(st.X, fac)
        out = {"residual": 0.5 * np.sum((st.L + st.S - self.data) ** 2, axis=(1, 2)), "rank": st.rank,
               "nnz": np.count_nonzero(st.S, axis=(1, 2)), "dual_energy": G}
        if self.ref is not None:
            out["dual_gap"] = G - self.ref["G_star"]
        return out

    def rates(self) -> list:
        if self.ref is None:
            return []
        D2 = np.sum((self.data - self.ref["X_hat"]) ** 2, axis=(1, 2))[:, None]          # (R, 1)
        ok = {f"τ = {self.tau:g} ≤ 1/2 (∇G_τ is 2τ ≤ 1-Lipschitz, step 1)": self.tau <= 0.5,
              f"G⋆, X̂ from a reference solve with ‖∇G_τ(X̂)‖_F ≤ {self.tol:g}·max(1, ‖X‖_F)": self.ref["converged"]}
        if not self.accelerated:
            return [("dual_gap", Bound("gd-1/(2k)", REF + " Algorithm 7 [derived]", "‖X⁰ − X̂‖²/(2k)", ok,
                                       lambda s: D2 / (2.0 * s.t[None, :]), pointwise=True))]
        ok[f"β_k = (t_k − 1)/t_{{k+1}}, t_k rule {self.t_rule!r}"] = self.momentum == "fista"
        return [("dual_gap", Bound("fista-2/(k+1)^2", REF + " Algorithm 9 [std]", "2‖X⁰ − X̂‖²/(k+1)²", ok,
                                   lambda s: 2.0 * D2 / (s.t[None, :] + 1.0) ** 2, pointwise=True))]

    def describe(self) -> dict:
        R, n, s = self.data.shape
        return {"name": self.name, "problem": f"robust-pca {n}x{s}", "params": {
            "alpha": self.alpha.tolist(), "gamma": self.gamma.tolist(), "tau": self.tau,
            "accelerated": self.accelerated, "t_rule": self.t_rule, "momentum": self.momentum},
            "reference": None if self.ref is None else {k: self.ref[k] for k in ("iterations", "converged", "grad_norm",
                                                                                 "G_star", "G_star_lower")}}


def solve_reference(m: RobustPCA, max_iter: int = 50000) -> dict:
    """FISTA with O'Donoghue–Candès gradient restart on G_τ until ‖∇G_τ‖_F ≤ tol·max(1, ‖X‖_F), per replicate.

    Returns X̂ (R, n, s), ``G_star`` = G_τ(X̂) (an upper bracket), ``G_star_lower`` = −P(L̂, X − L̂)/τ
    (a feasible primal point: a lower bracket), ``grad_norm``, ``iterations`` and ``converged``.

    Parameters
    ----------
    m : RobustPCA
        The method whose problem to solve.
    max_iter : int, default 50000
        Iteration cap; a solve that stops there is marked not converged, which makes the rate
        curves not applicable (they are still drawn) rather than checked against a wrong G⋆.
    """
    X = m.data
    target = m.tol * np.maximum(1.0, np.sqrt(np.sum(X * X, axis=(1, 2))))
    x_prev = y = x = X.copy()
    t, k = 1.0, 0
    gnorm = np.full(m.replicates, np.inf)
    while k < max_iter:
        L, S, _ = m.prox(y)
        grad = L + S - X
        x = y - grad
        gnorm = np.sqrt(np.sum(grad * grad, axis=(1, 2)))
        k += 1
        if np.all(gnorm <= target):
            break
        restart = np.sum(grad * (x - x_prev), axis=(1, 2)) > 0          # momentum points uphill: reset it
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        beta = np.where(restart, 0.0, (t - 1.0) / t_next)[:, None, None]
        y, x_prev = x + beta * (x - x_prev), x
        t = 1.0 if restart.all() else t_next
    L, S, _ = m.prox(x)
    G = m.energy(x)
    return {"X_hat": x, "L": L, "S": S, "G_star": G, "G_star_lower": -m.primal(L, X - L) / m.tau,
            "grad_norm": gnorm.tolist(), "iterations": k, "converged": bool(np.all(gnorm <= target))}


def robust_pca(X, alpha=None, gamma=None, accelerated: bool = True, iters: int = 500, *, tau: float = 0.5,
               t_rule: str = "recursive", momentum: str = "fista", checkpoints=None, reference: bool = True,
               tol: float = 1e-10):
    """Robust PCA X ≈ L + S (low rank + sparse) by Algorithm 9 (or 7); returns ``(L, S, result)``.

    ``result`` is an :class:`~onlinelab.bregman.loop.IterationResult`: per iteration ``dual_gap``
    G_τ(X^k) − G⋆, ``residual`` ½‖L^k + S^k − X‖²_F, ``rank`` rank(L^k), ``nnz`` nnz(S^k) and
    ``dual_energy``; the rate curve ``bound:gd-1/(2k)`` or ``bound:fista-2/(k+1)^2`` checked at
    every checkpoint and replicate (theory §6).

    Parameters
    ----------
    X : array-like
        Data, ``(n, s)``, or a stack ``(R, n, s)`` solved together (then L and S are stacks).
    alpha : float, array-like or None, default None
        Nuclear-norm weight α; None for √max(n, s).
    gamma : float, array-like or None, default None
        γ (exact robust PCA as γ → ∞); None for 10·σ̂(X), σ̂ = 1.4826·MAD.
    accelerated : bool, default True
        Algorithm 9 (rate 1/k²) instead of Algorithm 7 (rate 1/k).
    iters : int, default 500
        Iterations.
    tau : float, default 0.5
        τ ∈ (0, ½].
    t_rule : {"recursive", "linear"}, default "recursive"
        The momentum's t_k rule.
    momentum : {"fista", "notes"}, default "fista"
        The momentum weight (see :mod:`onlinelab.bregman.momentum`).
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged (None: about 40 log-spaced).
    reference : bool, default True
        Compute G⋆ and X̂ by a reference solve (needed for ``dual_gap`` and the rate curves).
    tol : float, default 1e-10
        Relative gradient tolerance of the reference solve.
    """
    method = RobustPCA(X, alpha, gamma, tau, accelerated, t_rule, momentum, reference, tol)
    res = iterate(method, iters, checkpoints=checkpoints)
    st = res.final_state
    squeeze = np.asarray(X).ndim == 2
    return (st.L[0], st.S[0], res) if squeeze else (st.L, st.S, res)
