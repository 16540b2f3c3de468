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

import numpy as np

from onlinelab.bregman.linearised import LinearisedBregman
from onlinelab.bregman.loop import iterate, single_blas
from onlinelab.bregman.prox import l1_envelope, nuclear_envelope, soft_threshold, svt
from onlinelab.core import validation as v
from onlinelab.errors import ConfigError


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
        hint = "; X is zero, so the data-scaled default is 0: pass it explicitly" if value is None else ""
        raise ConfigError(f"{name} must be a positive number (or one per replicate), got {value!r}{hint}")
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


class RobustPCA(LinearisedBregman):
    """Algorithm 7 (``accelerated=False``) or 9 as an iterative method for `onlinelab.bregman.loop.iterate`.

    A = (I I) on w = (L, S), so ‖A‖² = 2 and τ ≤ ½; R(L, S) = γα‖L‖_* + γ‖S‖₁.

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
    lip_A = 2.0
    refs = ("Algorithm 7", "Algorithm 9")

    def __init__(self, X, alpha=None, gamma=None, tau: float = 0.5, accelerated: bool = True,
                 t_rule: str = "recursive", momentum: str = "fista", reference: bool = True, tol: float = 1e-10):
        self.b = self.data = matrices(X)
        R, n, s = self.data.shape
        self.alpha = per_replicate("alpha", alpha, np.full(R, np.sqrt(max(n, s))), R)
        self.gamma = per_replicate("gamma", gamma, 10.0 * robust_scale(self.data), R)
        tau = check_tau(tau, 0.5, "1/‖A‖² for A = (I I): ∇G_τ is 2τ-Lipschitz and the step is 1")
        self.name = "rpca-alg9" if accelerated else "rpca-alg7"
        self.problem = f"robust-pca {n}x{s}"
        self._setup(tau, accelerated, t_rule, momentum, reference, tol)

    def adjoint(self, B):
        return B            # Aᵀ B = (B, B): both blocks see the same matrix, so one copy (and one SVD) serves

    def forward(self, parts):
        return parts[0] + parts[1]

    def prox(self, Z, fac):
        L, shrunk = svt(Z, self.gamma * self.alpha, fac)
        return (L, soft_threshold(Z, self.gamma[:, None, None])), np.count_nonzero(shrunk, axis=-1)

    def adjoint_sq(self, B):
        return 2.0 * np.sum(B * B, axis=(1, 2))          # ‖AᵀB‖² = ‖(B, B)‖² = 2‖B‖²

    def envelope(self, Z, fac):
        return nuclear_envelope(fac[1], self.gamma * self.alpha) + l1_envelope(Z, self.gamma)

    def primal_value(self, parts) -> np.ndarray:
        """½‖L‖² + ½‖S‖² + γα‖L‖_* + γ‖S‖₁ per replicate (P⋆ is its minimum on L + S = X)."""
        L, S = parts
        nuc = np.linalg.svd(L, compute_uv=False).sum(axis=-1)
        return (0.5 * np.sum(L * L, axis=(1, 2)) + 0.5 * np.sum(S * S, axis=(1, 2)) + self.gamma * self.alpha * nuc
                + self.gamma * np.abs(S).sum(axis=(1, 2)))

    def feasible(self, parts):
        return parts[0], self.data - parts[0]

    def metrics(self, st) -> dict:
        return {**super().metrics(st), "nnz": np.count_nonzero(st.parts[1], axis=(1, 2))}

    def params(self) -> dict:
        return {"alpha": self.alpha.tolist(), "gamma": self.gamma.tolist()}


@single_blas
def robust_pca(X, alpha=None, gamma=None, accelerated: bool = True, iters: int = 500, *, tau: float = 0.5,
               t_rule: str = "recursive", momentum: str = "fista", checkpoints=None, reference: bool = True,
               tol: float = 1e-10):
    """Robust PCA X ≈ L + S (low rank + sparse) by Algorithm 9 (or 7); returns ``(L, S, result)``.

    ``result`` is an `onlinelab.bregman.loop.IterationResult`: per iteration ``dual_gap``
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
        The momentum weight (see `onlinelab.geometry.momentum`).
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged (None: about 40 log-spaced).
    reference : bool, default True
        Compute G⋆ and X̂ by a reference solve (needed for ``dual_gap`` and the rate curves).
    tol : float, default 1e-10
        Relative gradient tolerance of the reference solve.
    """
    method = RobustPCA(X, alpha, gamma, tau, accelerated, t_rule, momentum, reference, tol)
    res = iterate(method, iters, checkpoints=checkpoints)
    L, S = res.final_state.parts
    return (L[0], S[0], res) if np.asarray(X).ndim == 2 else (L, S, res)
