"""Online mirror descent with the log-det regulariser on the spectraplex: bandit PCA and full information.

theory §1, docs/theory/01-bandit-pca.md (Kotłowski & Neu, COLT 2019).  The state is the eigenpair
``W = U diag(lam) Uᵀ``; ``W⁻¹`` is never formed.  A round: mix ``λ̂ = (1−γ)λ + γ/d``; sample ``w`` and build the
unbiased estimate ``L̃`` (dense or sparse scheme, `.bandit_sampling`) — or take
``L̃ = L`` with full information (``sampler=None``); update
``W⁺ = (W⁻¹ + η L̃ + β I)⁻¹`` by eigen-decomposing ``A' = diag(1/λ) + η Uᵀ L̃ U``
(diagonal: free; diagonal plus rank one: one eigh; a 2 × 2 block: one Jacobi rotation)
and solving for β with the shifted safeguarded Newton of theory §1.4.

``eta=None`` / ``gamma=None`` take the tuned values of the corollaries for the run's (d, T):
dense η = min{√(log T/(dT)), 1/(2d)}, γ = 0; sparse η = min{√(log T/(rT)), 1/(2d)},
γ = ηd (r bounds the mean ‖L_t‖_F²); full information η = min{√(d log T/(2T)), ½}, γ = 0.

>>> import onlinelab as ol
>>> res = ol.simulate(ol.make_environment("spiked-covariance", d=4), [LogDetOMD(sampler="sparse")],
...                   T=200, replicates=4, seed=1)
>>> bool(res.final("regret").mean() < 200)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab import bounds as B
from onlinelab.bounds.steps import step_warning
from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import EigenPlay, Play
from onlinelab.core.registry import register_learner
from onlinelab.geometry.linalg import eigh, reorthonormalise, solve_shift
from onlinelab.kernels import logdet as logdet_kernels
from onlinelab.kernels.switch import compiled_active
from onlinelab.learners.bandit_sampling import SAMPLERS, EigEstimate
from onlinelab.losses.matrix import FactoredLoss

_FULL = ("full", None, "none")
SMALL_D = 16    # the compiled block plays d ≤ SMALL_D, where per-call overhead is the cost (and its plays stay small)


class LogDetState(NamedTuple):
    lam: np.ndarray        # (R, d) eigenvalues of W_t, sum 1, all > 0
    U: np.ndarray          # (R, d, d) orthonormal eigenvectors
    eta: float
    gamma: float
    rounds: int
    unstable: np.ndarray   # (R,) rounds where W⁻¹ + ηL̃ was not positive definite (theory §1.4 diagnostic)
    newton_max: int        # most Newton steps any β solve took so far


@register_learner("logdet-omd")
class LogDetOMD(Learner):
    """Log-det online mirror descent on the spectraplex: bandit PCA (dense/sparse sampling) or full information.

    Parameters
    ----------
    eta : float or None, default None
        Learning rate η > 0. ``None`` takes the tuned value for the run's (d, T) (theory §1.5): dense
        min{√(log T/(dT)), 1/(2d)}; sparse min{√(log T/(rT)), 1/(2d)}; full information
        min{√(d log T/(2T)), ½}.
    gamma : float or None, default None
        Exploration rate γ ∈ [0, 1]. ``None`` takes 0 (dense, full information) or ηd (sparse), the
        values the bounds assume.
    sampler : {"dense", "sparse", "full"} or None, default "dense"
        How the unit vector is drawn and the loss estimated (theory §1.3); ``"full"`` (or ``None``)
        plays with full information, L̃ = L.
    reorth_every : int, default 32
        Re-orthonormalise the eigenvectors every this many rounds (the sparse sampler's rotations drift).
    """

    plays = "spectraplex"

    def __init__(self, eta: float | None = None, gamma: float | None = None, sampler: str | None = "dense",
                 reorth_every: int = 32):
        self.eta = None if eta is None else v.positive_float("eta", eta)
        self.gamma = None if gamma is None else v.unit_interval("gamma", gamma)
        self.sampler = "full" if sampler in _FULL else v.choice("sampler", sampler, ("dense", "sparse", "full"))
        self.reorth_every = v.integer("reorth_every", reorth_every, minimum=1)
        if self.eta is not None:   # every log-det bound assumes η ≤ 1/2 at most (full information; 1/(2d) bandit)
            step_warning("logdet-omd", "eta", self.eta, 0.5, "η ≤ 1/2 with full information, η ≤ 1/(2d) bandit, "
                         "theory §1.5 and §2")

    @property
    def feedback(self) -> str:  # type: ignore[override]
        return "full" if self.sampler == "full" else "bandit"

    def resolved_params(self, ctx) -> dict:
        d, logT = ctx.d, np.log(max(ctx.T, 2))
        if self.sampler == "dense":
            eta = min(np.sqrt(logT / (d * ctx.T)), 1 / (2 * d))
            gamma = 0.0
        elif self.sampler == "sparse":
            r = max(1.0, float(ctx.fro_sq_mean))
            eta = min(np.sqrt(logT / (r * ctx.T)), 1 / (2 * d))
            gamma = None  # γ = ηd with the η in force
        else:
            eta = min(np.sqrt(d * logT / (2 * ctx.T)), 0.5)
            gamma = 0.0
        eta = float(self.eta if self.eta is not None else eta)
        if self.gamma is not None:
            gamma = self.gamma
        elif gamma is None:
            gamma = min(1.0, eta * d)
        return {**self.get_params(), "eta": eta, "gamma": float(gamma)}

    def init(self, ctx, rng) -> LogDetState:
        p = self.resolved_params(ctx)
        R, d = ctx.replicates, ctx.d
        return LogDetState(np.full((R, d), 1.0 / d), np.tile(np.eye(d), (R, 1, 1)), p["eta"], p["gamma"], 0,
                           np.zeros(R, dtype=int), 0)

    def act(self, state: LogDetState, rng) -> Play:
        d = state.lam.shape[1]
        lam_hat = (1 - state.gamma) * state.lam + state.gamma / d
        mixed = EigenPlay(lam_hat, state.U)
        if self.sampler == "full":  # a sampled direction for the realised loss only; the update ignores it
            idx = rng.categorical(lam_hat)
            w = np.take_along_axis(state.U, idx[:, None, None], axis=2)[:, :, 0]
            return Play(mixed, w)
        w, info = SAMPLERS[self.sampler]().sample(lam_hat, state.U, rng)
        return Play(mixed, w, info)

    def estimate(self, play: Play, feedback) -> EigEstimate:
        """The structured unbiased estimate ``Uᵀ L̃ U`` for this round (bandit samplers only)."""
        return SAMPLERS[self.sampler]().estimate(play.info, feedback.value)

    def update(self, state: LogDetState, play: Play, feedback, rng) -> LogDetState:
        eta, U = state.eta, state.U
        a = 1.0 / state.lam
        if self.sampler == "full":
            a, V = eigh(a[:, :, None] * np.eye(a.shape[1]) + eta * feedback.loss.in_basis(U))
            U = U @ V
        else:
            est = self.estimate(play, feedback)
            # delayed feedback: the estimate lives in the basis of its own round's play.  Where a replicate's basis
            # moved since, rotate it in densely; decided per replicate by value (never by the identity of the
            # batch's array, which another replicate's update may have copied), so R never changes its numbers
            moved = np.flatnonzero(np.any(play.mixed.U != U, axis=(1, 2)))
            a_new, U_new = _apply_estimate(a, U, eta, est) if moved.size < len(a) else (a.copy(), U.copy())
            if moved.size:
                Up, Uo = play.mixed.U[moved], U[moved]
                L = np.swapaxes(Uo, 1, 2) @ (Up @ est.dense()[moved] @ np.swapaxes(Up, 1, 2)) @ Uo
                a_new[moved], V = eigh(a[moved][:, :, None] * np.eye(a.shape[1]) + eta * L)
                U_new = U_new if U_new is not U else U.copy()
                U_new[moved] = Uo @ V
            a, U = a_new, U_new
        amin = a.min(axis=1, keepdims=True)
        s, steps = solve_shift(a - amin)
        lam = 1.0 / (a - amin + s[:, None])
        lam /= lam.sum(axis=1, keepdims=True)
        rounds = state.rounds + 1
        if rounds % self.reorth_every == 0:
            U = reorthonormalise(U)
        return LogDetState(lam, U, eta, state.gamma, rounds, state.unstable + (amin[:, 0] <= 0),
                           max(state.newton_max, int(steps.max(initial=0))))

    def play_block(self, state: LogDetState, block, rng):
        """A block of an oblivious environment's rank-one losses in one compiled call (onlinelab.core.slot), else None.

        Only the built-in class with a bandit sampler at d ≤ 16, kernels switched on and compiling here: the
        block's uniforms (d + 2 per round and replicate dense, 3 sparse: the numbers n rounds of `act` would
        take, in the same order) are drawn at once and `onlinelab.kernels.logdet.logdet_block` repeats `act`
        and `update` operation by operation; at the re-orthonormalisation rounds it measures the error and hands
        over to numpy's `reorthonormalise` wherever that could act, so the same rounds change.  Declining
        (None) leaves the slot to play the rounds through `act`/`update`: the numpy reference.  Returns
        ``(state, plays, realized)``: the mixed plays stacked like the block's losses and ℓ_t = wᵀL_t w, (n, R).
        """
        X, (R, d) = getattr(block.stacked, "factors", None), state.lam.shape
        if (type(self) is not LogDetOMD or self.sampler == "full" or d > SMALL_D or not compiled_active()
                or type(block.stacked) is not FactoredLoss or X.shape[2] != 1):
            return None
        n, m = block.n, (d + 2 if self.sampler == "dense" else 3)
        rounds, most, i0 = state.rounds, state.newton_max, 0
        reorth = (np.arange(rounds + 1, rounds + n + 1) % self.reorth_every) == 0    # after round i: reorth[i]
        args = [np.ascontiguousarray(X[:, :, 0]).reshape(n, R, d), float(block.stacked.coef[0]), np.empty((0, R, m)),
                state.lam.copy(), np.ascontiguousarray(state.U, dtype=float).copy(), state.eta, state.gamma,
                logdet_kernels.DENSE if self.sampler == "dense" else logdet_kernels.SPARSE, 0, 0,
                np.empty((n, R, d)), np.empty((n, R, d, d)), np.empty((n, R)), state.unstable.astype(np.int64), reorth,
                logdet_kernels.REORTH_SAFE]
        if logdet_kernels.run(logdet_kernels.logdet_block, *args) is None:   # zero rounds: compiled before any
            return None                                                      # draw, so declining keeps the stream
        args[2] = np.ascontiguousarray(np.swapaxes(rng.random((n, m)), 0, 1))
        while i0 < n:                   # one call, unless numpy's re-orthonormalisation may act after some round
            args[8:10] = i0, n
            steps, i0 = logdet_kernels.run(logdet_kernels.logdet_block, *args)
            most = max(most, steps)
            if i0 < n or reorth[n - 1]:
                args[4] = np.ascontiguousarray(reorthonormalise(args[4]))
        lam, U, plays_lam, plays_U, realized, unstable = args[3], args[4], args[10], args[11], args[12], args[13]
        new = LogDetState(lam, U, state.eta, state.gamma, rounds + n, unstable.astype(state.unstable.dtype), most)
        return new, EigenPlay(plays_lam.reshape(n * R, d), plays_U.reshape(n * R, d, d)), realized

    def bounds(self, ctx) -> list:
        p = self.resolved_params(ctx)
        eta, gamma, d = p["eta"], p["gamma"], ctx.d
        if self.sampler == "dense":
            return [B.logdet_dense(d, eta, gamma, ctx), B.logdet_first_order(d, eta, gamma, ctx)]
        if self.sampler == "sparse":
            return [B.logdet_sparse(d, eta, gamma, ctx)]
        return [B.logdet_full_information(d, eta, gamma, ctx)]

    def diagnostics(self, state: LogDetState) -> dict:
        return {"unstable_rounds": state.unstable.astype(float)}


def _apply_estimate(a: np.ndarray, U: np.ndarray, eta: float, est: EigEstimate):
    """Eigenpairs of ``diag(a) + η·est`` and the rotated basis, exploiting the estimate's structure."""
    a = a + eta * est.diag
    rank1 = np.flatnonzero(est.coef != 0) if est.vec is not None else np.empty(0, dtype=int)
    pair = np.flatnonzero(est.off != 0) if est.off is not None else np.empty(0, dtype=int)
    if rank1.size or pair.size:
        U = U.copy()
    if rank1.size:
        x = est.vec[rank1]
        M = (a[rank1][:, :, None] * np.eye(a.shape[1])
             + (eta * est.coef[rank1])[:, None, None] * x[:, :, None] * x[:, None, :])
        a[rank1], V = eigh(M)
        U[rank1] = U[rank1] @ V
    if pair.size:  # Jacobi rotation of the (I, J) block [[p, c], [c, q]]
        i, j = est.i[pair], est.j[pair]
        p, q, c = a[pair, i], a[pair, j], eta * est.off[pair]
        theta = 0.5 * np.arctan2(2 * c, p - q)
        cs, sn = np.cos(theta), np.sin(theta)
        a[pair, i] = p * cs * cs + 2 * c * sn * cs + q * sn * sn
        a[pair, j] = p * sn * sn - 2 * c * sn * cs + q * cs * cs
        uI, uJ = U[pair, :, i], U[pair, :, j]
        U[pair, :, i] = cs[:, None] * uI + sn[:, None] * uJ
        U[pair, :, j] = -sn[:, None] * uI + cs[:, None] * uJ
    return a, U
