"""Shared pieces of the streaming-PCA and autoencoder learners (theory §4, docs/theory/04-streaming.md):
steps, QR, polar, plays, samples.

One copy of each helper, used by every ``learners/streaming_*.py`` module:

* `StepSchedule` — ``η_t`` constant, ``c/(t + t₀)`` ("inverse") or ``c/√(t + t₀)``
  ("inverse_sqrt"), validated positive at construction and again at every call;
* `orthonormalize` — batched thin QR with the sign of R's diagonal fixed, so the
  returned basis is a continuous function of its input (replicates stay comparable);
* `polar` — the orthonormal polar factor ``A Bᵀ`` of ``U = A Σ Bᵀ`` (gradient-PCA retraction);
* `subspace_play` — a learner's mixed strategy, the rank-k projector ``Q Qᵀ`` kept as
  an `onlinelab.EigenPlay` with k unit weights and a d × k basis (never d × d);
* `samples_of` — the samples a factored loss carries, checked finite: a round's
  ``(R, d, b)`` block of b samples, read from ``loss.factors`` (no d × d matrix formed);
* `SubspaceLearner` — base class: ``k`` validated against d, random orthonormal start,
  ``subspace(state)``, ``reconstruct(state, X)`` and an orthonormality diagnostic.

>>> s = StepSchedule("inverse", c=2.0, t0=1.0)
>>> float(s(np.array([1.0]))[0])
1.0
>>> Q = orthonormalize(np.random.default_rng(0).standard_normal((2, 5, 3)))
>>> bool(np.allclose(np.swapaxes(Q, 1, 2) @ Q, np.eye(3)))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.docs import Param
from onlinelab.core.protocol import EigenPlay, Play
from onlinelab.errors import ConfigError, LossError
from onlinelab.geometry.linalg import orthonormality_error
from onlinelab.geometry.subspaces import check_rank, orthonormalize, polar, random_basis  # noqa: F401  (re-exported for the streaming learners)

SCHEDULES = ("constant", "inverse", "inverse_sqrt")
# The streaming learners' shared parameters, documented once (onlinelab.core.docs: ``{params: k, step}``).
STREAM_PARAMS = {
    "k": Param("int", "Dimension of the tracked subspace, 1 ≤ k < d."),
    "step": Param("float", "Step constant c > 0 of the schedule."),
    "schedule": Param('{"constant", "inverse", "inverse_sqrt"}',
                      "η_n = c, c/(n + t₀) or c/√(n + t₀), with n counting samples."),
    "t0": Param("float", "Offset t₀ of the schedule (> −1)."),
}


class StepSchedule:
    """Step sizes ``η_t`` for t = 1, 2, … (t counts samples); every value is checked > 0.

    Parameters
    ----------
    kind : {"constant", "inverse", "inverse_sqrt"}, default "inverse"
        η_t = c, c/(t + t₀) or c/√(t + t₀).
    c : float, default 1.0
        Step constant (> 0).
    t0 : float, default 0.0
        Offset (> −1).
    field : str, default "step"
        Parameter name used in error messages.
    """

    def __init__(self, kind: str = "inverse", c: float = 1.0, t0: float = 0.0, field: str = "step"):
        self.kind = v.choice(f"{field} schedule", kind, SCHEDULES)
        self.c = v.positive_float(field, c)
        self.t0 = v.real("t0", t0)
        if 1.0 + self.t0 <= 0:
            raise ConfigError(f"t0 must be > -1 so that a schedule c/(t + t0) is positive from t = 1, "
                              f"got t0 = {t0!r}; use t0 >= 0")

    def __call__(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if self.kind == "constant":
            return np.full_like(t, self.c)
        base = t + self.t0
        return self.c / (base if self.kind == "inverse" else np.sqrt(base))

    def __repr__(self) -> str:
        return f"StepSchedule({self.kind!r}, c={self.c!r}, t0={self.t0!r})"


def subspace_play(Q: np.ndarray, info: dict | None = None) -> Play:
    """The projector ``Q Qᵀ`` as a mixed strategy: ``EigenPlay(ones(R, k), Q)``; a loss reads it in O(dk)."""
    R, _, k = Q.shape
    return Play(EigenPlay(np.ones((R, k)), Q), None, info or {})


def samples_of(loss, where: str = "sample") -> np.ndarray:
    """The round's samples ``(R, d, b)`` carried by a factored loss; non-finite values are an error."""
    X = getattr(loss, "factors", None)
    if X is None:
        raise LossError(f"{where}: streaming learners need a factored loss (onlinelab.FactoredLoss, whose factors "
                        f"are the samples), got {type(loss).__name__}; emit FactoredLoss(samples) instead")
    return check_finite(X, where)


def check_finite(X: np.ndarray, where: str = "sample") -> np.ndarray:
    if not np.all(np.isfinite(X)):
        bad = np.argwhere(~np.isfinite(X))[0]
        raise LossError(f"{where}: non-finite value {float(X[tuple(bad)])!r} at index {tuple(int(i) for i in bad)}; "
                        "remove or impute NaN/inf samples before streaming them")
    return X


class SubspaceLearner(Learner):
    """Base of the learners that track a k-dimensional subspace with an orthonormal basis ``state.Q``.

    Subclasses store ``k`` and define ``init``/``update``; ``act`` plays the projector ``Q Qᵀ``.
    """

    feedback = "full"
    plays = "spectral"
    loss_sign = False  # samples as L = −xxᵀ: these learners maximise captured variance

    def check_k(self, ctx) -> int:
        return check_rank(self.k, ctx.d)

    def act(self, state, rng) -> Play:
        return subspace_play(self.subspace(state))

    def subspace(self, state) -> np.ndarray:
        """Orthonormal basis ``(R, d, k)`` of the learner's current subspace."""
        return state.Q

    def reconstruct(self, state, X: np.ndarray) -> np.ndarray:
        """``Q Qᵀ X`` for samples ``X`` of shape (R, d, n) or (d, n)."""
        Q = self.subspace(state)
        return Q @ (np.swapaxes(Q, 1, 2) @ X)

    def diagnostics(self, state) -> dict:
        return {"orthonormality_error": orthonormality_error(self.subspace(state))}


def fit(learner, env, rounds: int, replicates: int = 1, seed: int = 0, check=None):
    """Run ``learner`` on ``rounds`` rounds of ``env`` outside the simulator and return its final state.

    The same seeding as `onlinelab.simulate` uses for labels "fit"; ``check(state)``, if given,
    is called after every update (tests use it for invariants).  For embeddings and experiments
    that need the learned basis itself rather than a metrics table.

    Parameters
    ----------
    learner : Learner
        A streaming learner.
    env : Environment
        The stream to learn from (cloned, so the argument is left untouched).
    rounds : int
        Number of rounds.
    replicates : int, default 1
        Independent repetitions.
    seed : int, default 0
        Root seed.
    check : callable or None, default None
        ``check(state)`` is called after every update.
    """
    from onlinelab.core.protocol import Context, Feedback
    from onlinelab.core.rng import BatchRNG
    rounds = v.integer("rounds", rounds, minimum=1)
    env = env.clone()
    env.reset(BatchRNG.from_seed(seed, "environment", "fit", replicates), rounds)
    rng = BatchRNG.from_seed(seed, "learner", "fit", replicates)
    state = learner.init(Context(d=env.d, T=rounds, replicates=replicates), rng)
    for t in range(1, rounds + 1):
        state = learner.update(state, learner.act(state, rng), Feedback("full", loss=env.emit(t, None)), rng)
        if check is not None:
            check(state)
    return state
