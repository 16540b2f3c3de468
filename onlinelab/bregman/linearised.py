"""The linearised Bregman iteration as (accelerated) gradient descent on a dual energy G_τ
(theory §6, Lemma 3.5 of the notes).

For min ½‖w‖² + R(w) subject to Aw = b, the iteration w^{k+1} = prox_R(τAᵀB^k),
B^{k+1} = B^k − (Aw^{k+1} − b) is gradient descent with step 1 on
G_τ(B) = (τ/2)‖AᵀB‖² − ⟨B, b⟩ − (1/τ)·env_R(τAᵀB), env_R the Moreau envelope of R.
∇G_τ is τ‖A‖²-Lipschitz, so τ‖A‖² ≤ 1 gives G_τ(B^k) − G⋆ ≤ ‖B⁰ − B̂‖²/(2k) [derived]; FISTA
momentum gives 2‖B⁰ − B̂‖²/(k+1)² [std].  By Lagrange duality G⋆ = −P⋆/τ, P⋆ the primal optimum.

`LinearisedBregman` holds that machinery once — the step, the momentum, the energy, the
metrics, the rate curves and the reference solve (FISTA with O'Donoghue–Candès restart until
‖∇G_τ‖_F ≤ tol·max(1, ‖b‖_F), which brackets G⋆ between G_τ(B̂) and −P(feasible point)/τ); a
problem (robust PCA, matrix completion) supplies A, Aᵀ, the prox of R and its envelope.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.bounds.base import Bound
from onlinelab.bregman.prox import svd
from onlinelab.core import validation as v
from onlinelab.geometry.momentum import Momentum, restarted_fista, t_value


class BregmanState(NamedTuple):
    X: np.ndarray        # B^k, the dual iterate (R, n, s)
    Y: np.ndarray        # the point of the next gradient step (= X without momentum)
    parts: tuple         # the primal point w^k = prox_R(τAᵀY^{k−1}), e.g. (L, S)
    Aw: np.ndarray       # A w^k
    rank: np.ndarray     # rank of the low-rank part per replicate
    k: int
    t: float             # t_{k+1} of the momentum rule


class LinearisedBregman:
    """Base of the problems solved by linearised Bregman iteration; subclasses define the problem.

    A subclass sets ``self.b`` (R, n, s), ``self.lip_A`` (‖A‖²), ``self.name``, ``self.problem``,
    ``self.refs`` (algorithm names for the plain and accelerated curves) and implements
    ``adjoint(B)`` (one block; ``adjoint_sq`` when there are several), ``forward(parts)``,
    ``prox(Z, fac)`` → (parts, rank), ``envelope(Z, fac)``, ``primal_value(parts)``,
    ``feasible(parts)`` and ``params()``, then calls
    ``_setup(tau, accelerated, t_rule, momentum, reference, tol)``: τ (τ‖A‖² ≤ 1), FISTA momentum or
    not, the t_k rule and β formula (`onlinelab.geometry.momentum`), whether to run the reference
    solve for G⋆ and B̂, and its relative gradient tolerance.
    """

    headline = ("dual_gap", "residual", "rank")

    def _setup(self, tau, accelerated, t_rule, momentum, reference, tol):
        self.replicates = self.b.shape[0]
        self.tau = tau
        self.accelerated = v.boolean("accelerated", accelerated)
        Momentum(t_rule, momentum)                          # validates both names
        self.t_rule, self.momentum = t_rule, momentum
        self.tol = v.positive_float("tol", tol)
        self._cache = None
        self.ref = self.solve_reference() if reference else None

    # -- G_τ and its gradient ------------------------------------------------------------------------------
    def factors(self, B, key=None):
        """SVD of τAᵀB, cached by ``key`` so that a metric and the next step share one decomposition."""
        if key is not None and self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        fac = svd(self.tau * self.adjoint(B))
        if key is not None:
            self._cache = (key, fac)
        return fac

    def primal_point(self, B, fac=None):
        """(parts, rank) = prox_R(τAᵀB): the primal point of the dual iterate B."""
        return self.prox(self.tau * self.adjoint(B), self.factors(B) if fac is None else fac)

    def energy(self, B, fac=None) -> np.ndarray:
        """G_τ(B) per replicate (its minimum is −P⋆/τ)."""
        Z = self.tau * self.adjoint(B)
        fac = self.factors(B) if fac is None else fac
        return (self.tau / 2 * self.adjoint_sq(B) - np.sum(B * self.b, axis=(1, 2))
                - self.envelope(Z, fac) / self.tau)

    def adjoint_sq(self, B) -> np.ndarray:
        """‖AᵀB‖²_F per replicate (a problem with several primal blocks overrides it)."""
        A = self.adjoint(B)
        return np.sum(A * A, axis=(1, 2))

    # -- the method protocol (onlinelab.bregman.loop.iterate) ---------------------------------------------
    def init(self) -> BregmanState:
        z = np.zeros_like(self.b)
        return BregmanState(self.b.copy(), self.b.copy(), (), z, np.zeros(self.replicates, dtype=int), 0, 1.0)

    def step(self, st: BregmanState, k: int, data=None) -> BregmanState:
        parts, rank = self.primal_point(st.Y, self.factors(st.Y, ("Y", st.k)))
        Aw = self.forward(parts)
        Xn = st.Y - (Aw - self.b)
        t = st.t
        if self.accelerated:
            t_next = t_value(st.k + 2, self.t_rule, t)        # β_{k+1} = (t_{k+1} − 1)/t_{k+2}
            beta = (t - 1.0) / t_next if self.momentum == "fista" else (t_next - 1.0) / t_next
            Yn, t = Xn + beta * (Xn - st.X), t_next
        else:
            Yn = Xn
        return BregmanState(Xn, Yn, parts, Aw, rank, st.k + 1, t)

    def metrics(self, st: BregmanState) -> dict:
        # without momentum the next step's point is X^k: its SVD serves both (no extra decomposition)
        G = self.energy(st.X, self.factors(st.X, ("Y", st.k) if not self.accelerated else None))
        out = {"residual": 0.5 * np.sum((st.Aw - self.b) ** 2, axis=(1, 2)), "rank": st.rank, "dual_energy": G}
        if self.ref is not None:
            out["dual_gap"] = G - self.ref["G_star"]
        return out

    def rates(self) -> list:
        if self.ref is None:
            return []
        D2 = np.sum((self.b - self.ref["X_hat"]) ** 2, axis=(1, 2))[:, None]          # (R, 1)
        lip = self.tau * self.lip_A
        ok = {f"τ‖A‖² = {lip:g} ≤ 1 (∇G_τ is τ‖A‖²-Lipschitz, step 1)": lip <= 1 + 1e-12,
              f"G⋆, B̂ from a reference solve with ‖∇G_τ(B̂)‖_F ≤ {self.tol:g}·max(1, ‖b‖_F)": self.ref["converged"]}
        plain, fast = self.refs
        if not self.accelerated:
            return [("dual_gap", Bound("gd-1/(2k)", f"theory §6 {plain} [derived]", "‖B⁰ − B̂‖²/(2k)", ok,
                                       lambda s: D2 / (2.0 * s.t[None, :]), pointwise=True))]
        ok[f"β_k = (t_k − 1)/t_{{k+1}}, t_k rule {self.t_rule!r}"] = self.momentum == "fista"
        return [("dual_gap", Bound("fista-2/(k+1)^2", f"theory §6 {fast} [std]", "2‖B⁰ − B̂‖²/(k+1)²", ok,
                                   lambda s: 2.0 * D2 / (s.t[None, :] + 1.0) ** 2, pointwise=True))]

    def describe(self) -> dict:
        keys = ("iterations", "converged", "grad_norm", "G_star", "G_star_lower", "target", "max_iter")
        return {"name": self.name, "problem": self.problem,
                "params": {**self.params(), "tau": self.tau, "accelerated": self.accelerated,
                           "t_rule": self.t_rule, "momentum": self.momentum},
                "reference": None if self.ref is None else {k: self.ref[k] for k in keys}}

    def solve_reference(self, max_iter: int = 20000) -> dict:
        """FISTA with gradient restart on G_τ until ‖∇G_τ‖_F ≤ tol·max(1, ‖b‖_F), per replicate.

        Returns ``X_hat`` (B̂), ``parts`` (the primal solution), ``G_star`` = G_τ(B̂) (an upper bracket),
        ``G_star_lower`` = −P(feasible point)/τ (a lower bracket), ``grad_norm``, ``iterations``,
        ``converged``; one stopped by ``max_iter`` is marked not converged, which makes the rate curves
        not applicable (still drawn) rather than checked against a wrong G⋆.

        Parameters
        ----------
        max_iter : int, default 20000
            Iteration cap.  G⋆ is taken as G_τ(B̂) ≥ the true G⋆, so a logged gap never exceeds the true one
            (no false alarm); the bracket's width is in ``describe()["reference"]``.
        """
        b = self.b
        target = self.tol * np.maximum(1.0, np.sqrt(np.sum(b * b, axis=(1, 2))))
        x, gnorm, k = restarted_fista(lambda y: y - (self.forward(self.primal_point(y)[0]) - b), b, target, max_iter)
        parts, _ = self.primal_point(x)
        return {"X_hat": x, "parts": parts, "G_star": self.energy(x),
                "G_star_lower": -self.primal_value(self.feasible(parts)) / self.tau,
                "grad_norm": gnorm.tolist(), "iterations": k, "converged": bool(np.all(gnorm <= target)),
                "target": target.tolist(), "max_iter": max_iter}
