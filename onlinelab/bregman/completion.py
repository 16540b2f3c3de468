"""Matrix completion by linearised Bregman iteration: Algorithms 10 and 11, batch and online (theory §6).

Solved problem, for γ > 0 (nuclear-norm minimal completion as γ → ∞)::

    min ½‖L‖²_F + γ‖L‖_*   subject to   P_Ω L = P_Ω X

with P_Ω the restriction to the observed entries Ω.  Algorithm 10: L^{k+1} = SVT_γ(τP_Ωᵀz^k),
z^{k+1} = z^k − (P_Ω L^{k+1} − P_Ω X), z⁰ = P_Ω X — gradient descent with step 1 on the dual energy
G_τ (‖P_Ω‖ = 1, so τ ≤ 1); Algorithm 11 adds FISTA momentum.  The dual iterate z is stored as
an n × s matrix that is zero off Ω.  Rates as for robust PCA (`onlinelab.bregman.linearised`).

*Online* (a recommender stream): `RecommenderStream` holds out a fixed set of entries and
reveals the others ``batch`` at a time, one round each; `OnlineCompletion` adds the revealed
entries to Ω (their dual entries start at their values, as z⁰ = P_Ω X does) and takes one
iteration per round, so it always works on what it has seen.  Metrics: held-out RMSE, rank,
residual on the seen entries, the fraction seen.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> X = rng.normal(size=(20, 1)) @ rng.normal(size=(1, 20))          # rank 1, 60 % seen: recovered exactly
>>> mask = rng.random(X.shape) < 0.6
>>> L, res = complete_matrix(np.where(mask, X, np.nan), gamma=100.0, iters=800, truth=X, reference=False)
>>> bool(res.final("heldout_rmse").iloc[0] < 1e-4), int(res.final("rank").iloc[0])
(True, 1)
"""
from __future__ import annotations

import numpy as np

from onlinelab.bregman.linearised import LinearisedBregman
from onlinelab.bregman.loop import iterate, single_blas
from onlinelab.bregman.prox import nuclear_envelope, svt
from onlinelab.bregman.rpca import check_tau, matrices, per_replicate
from onlinelab.core import validation as v
from onlinelab.errors import ConfigError


def observed(M_observed, mask=None):
    """(b, mask) as (R, n, s) arrays: the observed data with zeros off Ω, and Ω as booleans.

    Entries off the mask may be NaN (the usual way to write "missing"); ``mask=None`` takes Ω as the
    finite entries.

    Parameters
    ----------
    M_observed : array-like
        ``(n, s)`` or ``(R, n, s)``.
    mask : array-like of bool or None, default None
        Ω, the same shape as ``M_observed``.
    """
    M = np.asarray(M_observed, dtype=float)
    if mask is None:
        mask = np.isfinite(M)
    mask = np.asarray(mask)
    if mask.shape != M.shape:
        raise ConfigError(f"mask has shape {mask.shape} but M_observed has shape {M.shape}; pass a boolean mask "
                          "of the same shape (True where the entry is observed)")
    if mask.dtype != bool:
        if not np.all(np.isin(mask, (0, 1))):
            raise ConfigError("mask must be boolean (True where observed), got values other than 0/1")
        mask = mask.astype(bool)
    b = matrices(np.where(mask, M, 0.0), "M_observed (on the mask)")
    mask = mask[None] if mask.ndim == 2 else mask
    empty = np.flatnonzero(~mask.any(axis=(1, 2)))
    if len(empty):
        raise ConfigError(f"mask observes no entry (replicate {int(empty[0])}); matrix completion needs at least one "
                          "observed entry — check that True marks the observed ones")
    return b, mask


class MatrixCompletion(LinearisedBregman):
    """Algorithm 10 (``accelerated=False``) or 11 as an iterative method for `onlinelab.bregman.loop.iterate`.

    Parameters
    ----------
    M_observed : array-like
        ``(n, s)`` or ``(R, n, s)``; entries off the mask are ignored (NaN allowed).
    mask : array-like of bool or None, default None
        Ω; None for the finite entries of ``M_observed``.
    gamma : float, array-like or None, default None
        γ; None for 5·√(ns)·rms(P_Ω X) (Cai–Candès–Shen's 5n threshold, scaled with the data).
    tau : float, default 1.0
        τ ∈ (0, 1].
    accelerated : bool, default True
        Algorithm 11 (FISTA) or Algorithm 10.
    t_rule : {"recursive", "linear"}, default "recursive"
        The momentum's t_k rule.
    momentum : {"fista", "notes"}, default "fista"
        The momentum weight.
    truth : array-like or None, default None
        The full matrix, for the ``heldout_rmse`` metric on the unobserved entries.
    reference : bool, default True
        Run the reference solve (G⋆ for ``dual_gap`` and the rate curves).
    tol : float, default 1e-10
        Relative gradient tolerance of the reference solve.
    """

    lip_A = 1.0
    refs = ("Algorithm 10", "Algorithm 11")

    def __init__(self, M_observed, mask=None, gamma=None, tau: float = 1.0, accelerated: bool = True,
                 t_rule: str = "recursive", momentum: str = "fista", truth=None, reference: bool = True,
                 tol: float = 1e-10):
        self.b, self.mask = observed(M_observed, mask)
        R, n, s = self.b.shape
        scale = np.sqrt(np.sum(self.b ** 2, axis=(1, 2)) / self.mask.sum(axis=(1, 2)))
        self.gamma = per_replicate("gamma", gamma, 5.0 * np.sqrt(n * s) * scale, R)
        self.truth = None if truth is None else matrices(truth, "truth")
        if self.truth is not None and self.truth.shape[1:] != (n, s):
            raise ConfigError(f"truth has shape {self.truth.shape[1:]} but the data {(n, s)}; pass the full matrix")
        tau = check_tau(tau, 1.0, "1/‖P_Ω‖² = 1: ∇G_τ is τ-Lipschitz and the step is 1")
        self.name = "completion-alg11" if accelerated else "completion-alg10"
        self.problem = f"completion {n}x{s} ({100 * self.mask.mean():.0f}% seen)"
        self._setup(tau, accelerated, t_rule, momentum, reference, tol)

    def adjoint(self, B):
        return np.where(self.mask, B, 0.0)

    def forward(self, parts):
        return np.where(self.mask, parts[0], 0.0)

    def prox(self, Z, fac):
        L, shrunk = svt(Z, self.gamma, fac)
        return (L,), np.count_nonzero(shrunk, axis=-1)

    def envelope(self, Z, fac):
        return nuclear_envelope(fac[1], self.gamma)

    def primal_value(self, parts) -> np.ndarray:
        """½‖L‖² + γ‖L‖_* per replicate (P⋆ is its minimum on P_Ω L = P_Ω X)."""
        L = parts[0]
        return 0.5 * np.sum(L * L, axis=(1, 2)) + self.gamma * np.linalg.svd(L, compute_uv=False).sum(axis=-1)

    def feasible(self, parts):
        return (np.where(self.mask, self.b, parts[0]),)

    def metrics(self, st) -> dict:
        out = super().metrics(st)
        if self.truth is not None and st.parts:
            out["heldout_rmse"] = heldout_rmse(st.parts[0], self.truth, ~self.mask)
        return out

    def params(self) -> dict:
        return {"gamma": self.gamma.tolist()}


def heldout_rmse(L, truth, where) -> np.ndarray:
    """√(mean of (L − truth)² over ``where``) per replicate (NaN where a replicate has no such entry).

    Parameters
    ----------
    L, truth : numpy.ndarray
        ``(R, n, s)``.
    where : numpy.ndarray of bool
        ``(R, n, s)``, the entries to score.
    """
    cnt = where.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sqrt(np.sum(np.where(where, (L - truth) ** 2, 0.0), axis=(1, 2)) / cnt)


class RecommenderStream:
    """Reveal the entries of ``truth`` ``batch`` at a time in a random order, holding out a fixed fraction.

    Parameters
    ----------
    truth : array-like
        The full matrix ``(n, s)`` or a stack ``(R, n, s)`` (ratings, say).
    batch : int
        Entries revealed per round.
    holdout : float, default 0.2
        Fraction of entries never revealed (scored by ``heldout_rmse``).
    seed : int, default 0
        Seed of the order and of the held-out set (one spawned stream per replicate).
    """

    def __init__(self, truth, batch: int, holdout: float = 0.2, seed: int = 0):
        self.truth = matrices(truth, "truth")
        R, n, s = self.truth.shape
        self.batch = v.integer("batch", batch, minimum=1)
        self.holdout = v.unit_interval("holdout", holdout)
        if not 0 <= self.holdout < 1:
            raise ConfigError(f"holdout must be in [0, 1), got {holdout!r}; it is the fraction never revealed")
        rngs = [np.random.default_rng(ss) for ss in np.random.SeedSequence(v.integer("seed", seed, minimum=0)).spawn(R)]
        n_test = int(round(self.holdout * n * s))
        orders = np.stack([g.permutation(n * s) for g in rngs])                # (R, ns)
        self.test = np.zeros((R, n * s), dtype=bool)
        np.put_along_axis(self.test, orders[:, :n_test], True, axis=1)
        self.test = self.test.reshape(R, n, s)
        self.order = orders[:, n_test:]
        self.rounds_to_all = -(-self.order.shape[1] // self.batch)

    def reveal(self, t: int):
        """Round t's entries: flat indices ``(R, ≤ batch)`` into n·s (empty once every entry is out)."""
        return self.order[:, (t - 1) * self.batch: t * self.batch]


class OnlineCompletion(MatrixCompletion):
    """Algorithm 10/11 on a growing Ω: each round adds the revealed entries, then takes one iteration.

    Parameters
    ----------
    stream : RecommenderStream
        Where the entries come from; its held-out entries are scored.
    gamma : float
        γ (no data-scaled default: nothing is seen at the start).
    tau : float, default 1.0
        τ ∈ (0, 1].
    accelerated : bool, default False
        FISTA momentum (carried across rounds).
    """

    headline = ("heldout_rmse", "residual", "rank", "seen")

    def __init__(self, stream: RecommenderStream, gamma: float, tau: float = 1.0, accelerated: bool = False):
        self.stream = stream
        R, n, s = stream.truth.shape
        self.b, self.mask = np.zeros((R, n, s)), np.zeros((R, n, s), dtype=bool)
        self.gamma = per_replicate("gamma", gamma, None, R)
        self.truth = stream.truth
        self.name = "online-completion" + ("-accelerated" if accelerated else "")
        self.problem = f"recommender-stream {n}x{s} (batch {stream.batch})"
        self._setup(check_tau(tau, 1.0, "1/‖P_Ω‖² = 1"), accelerated, "recursive", "fista", False, 1e-10)

    def step(self, st, k, data=None):
        R = self.b.shape[0]
        if data is not None and data.size:
            rows = np.repeat(np.arange(R), data.shape[1])
            flat_b, flat_m = self.b.reshape(R, -1), self.mask.reshape(R, -1)
            flat_b[rows, data.ravel()] = self.truth.reshape(R, -1)[rows, data.ravel()]
            flat_m[rows, data.ravel()] = True
            X, Y = st.X.reshape(R, -1).copy(), st.Y.reshape(R, -1).copy()
            X[rows, data.ravel()] = flat_b[rows, data.ravel()]                 # new dual entries start at z⁰ = P_Ω X
            Y[rows, data.ravel()] = flat_b[rows, data.ravel()]
            st = st._replace(X=X.reshape(st.X.shape), Y=Y.reshape(st.Y.shape))
        return super().step(st, k)

    def metrics(self, st) -> dict:
        out = {"residual": 0.5 * np.sum((st.Aw - self.b) ** 2, axis=(1, 2)), "rank": st.rank,
               "seen": self.mask.mean(axis=(1, 2))}
        out["heldout_rmse"] = heldout_rmse(st.parts[0], self.truth, self.stream.test)
        return out

    def describe(self) -> dict:
        return {**super().describe(), "stream": {"batch": self.stream.batch, "holdout": self.stream.holdout}}


@single_blas
def complete_matrix(M_observed, mask=None, gamma=None, accelerated: bool = True, iters: int = 500, *,
                    tau: float = 1.0, t_rule: str = "recursive", momentum: str = "fista", truth=None,
                    checkpoints=None, reference: bool = True, tol: float = 1e-10):
    """Complete a partly observed matrix by Algorithm 11 (or 10); returns ``(L, result)``.

    ``result`` (an `onlinelab.bregman.loop.IterationResult`) logs ``dual_gap``, ``residual``
    ½‖P_Ω(L^k − X)‖², ``rank``, ``dual_energy`` and, given ``truth``, ``heldout_rmse`` on the
    unobserved entries; the rate curve is checked at every checkpoint (theory §6).

    Parameters
    ----------
    M_observed : array-like
        ``(n, s)`` or ``(R, n, s)``; entries off the mask are ignored (NaN allowed).
    mask : array-like of bool or None, default None
        Ω (True where observed); None for the finite entries.
    gamma : float, array-like or None, default None
        γ; None for 5·√(ns)·rms(P_Ω X).
    accelerated : bool, default True
        Algorithm 11 instead of 10.
    iters : int, default 500
        Iterations.
    tau : float, default 1.0
        τ ∈ (0, 1].
    t_rule : {"recursive", "linear"}, default "recursive"
        The momentum's t_k rule.
    momentum : {"fista", "notes"}, default "fista"
        The momentum weight.
    truth : array-like or None, default None
        The full matrix, for ``heldout_rmse``.
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged.
    reference : bool, default True
        Run the reference solve (``dual_gap`` and the rate curves need it).
    tol : float, default 1e-10
        Relative gradient tolerance of the reference solve.
    """
    method = MatrixCompletion(M_observed, mask, gamma, tau, accelerated, t_rule, momentum, truth, reference, tol)
    res = iterate(method, iters, checkpoints=checkpoints)
    L = res.final_state.parts[0]
    return (L[0] if np.asarray(M_observed).ndim == 2 else L), res


@single_blas
def complete_stream(truth, batch: int, gamma: float, rounds: int | None = None, *, holdout: float = 0.2,
                    tau: float = 1.0, accelerated: bool = False, seed: int = 0, checkpoints=None):
    """Online completion on a `RecommenderStream` of ``truth``; returns ``(L, result)``.

    Parameters
    ----------
    truth : array-like
        The full matrix ``(n, s)`` or ``(R, n, s)``.
    batch : int
        Entries revealed per round.
    gamma : float
        γ of the nuclear norm.
    rounds : int or None, default None
        Rounds; None for two rounds per reveal needed to show every training entry.
    holdout : float, default 0.2
        Fraction of entries never revealed.
    tau : float, default 1.0
        τ ∈ (0, 1].
    accelerated : bool, default False
        Carry FISTA momentum across rounds.
    seed : int, default 0
        Seed of the stream.
    checkpoints : int, list of int or None, default None
        Rounds at which metrics are logged.
    """
    stream = RecommenderStream(truth, batch, holdout, seed)
    method = OnlineCompletion(stream, gamma, tau, accelerated)
    res = iterate(method, rounds or 2 * stream.rounds_to_all, checkpoints=checkpoints, stream=stream)
    L = res.final_state.parts[0]
    return (L[0] if np.asarray(truth).ndim == 2 else L), res
