"""Streaming least squares with a fixed design: the convex test bed for the SGD bound of theory §4
(docs/theory/04-streaming.md).

Each round brings fresh noisy targets ``y_t = B w* + noise·ε_t`` for a fixed design ``B``
(m × d); the round's loss is ``e_t(w) = ‖B w − y_t‖² / (2m)``.  Everything Theorem 3.3 needs
is exact: ``E(w) = ‖B(w − w*)‖²/(2m) + const``, so ``ŵ = w*``; ``L = λ_max(BᵀB)/m``; and
``∇e_t(w) − ∇E(w) = −Bᵀ ε_t · noise/m`` has variance ``σ² = noise² ‖B‖_F² / m²`` for every w
(a Gaussian random design would make the variance grow with ‖w − w*‖, breaking the theorem's
assumption).  At checkpoints, for a learner with ``averaged(state)`` (see ``sgd``): the
``suboptimality`` ``E(w̄) − E*`` and ``sgd_bound`` (the proven constant of theory §4), plus
``sgd_bound_printed`` (the notes' constant, unproven).  Regret is against the best fixed w.
The same bound is also an ordinary, checked bound (`instance_bounds`, `onlinelab.bounds.steps.sgd_average`):
its assumption τ_k ≤ 1/L is tested, and a mean suboptimality above it while that held is a violation.

>>> env = LeastSquaresStream(d=3)
>>> env.smoothness > 0 and env.grad_variance > 0
True
"""
from __future__ import annotations

import warnings

import numpy as np

from onlinelab.bounds.steps import first_step, sgd_average
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.registry import register_environment
from onlinelab.errors import LossError, NumericalWarning
from onlinelab.geometry.linalg import rows_at

DIVERGED = 1e6   # a suboptimality 10⁶ times that of w⁰ = 0: the iterates grow geometrically (τ > 2/L diverges)


def _warn_diverged(learner, sub, L) -> None:
    warnings.warn(f"learner {getattr(learner, 'name', type(learner).__name__)!r} diverges on least-squares-stream: "
                  f"its suboptimality reached {float(np.max(sub)):.3g}, over {DIVERGED:g} times that of w⁰ = 0; its "
                  f"step = {getattr(learner, 'step', '?')!r} is past 1/L = {1 / L:.4g}, which the SGD bound of "
                  "theory §4 assumes. Lower step", NumericalWarning, stacklevel=2)


class LeastSquaresLoss:
    """``e(w) = ‖B w − y‖²/(2M)`` per replicate; B (M, d) shared, y (R, M).  Mixed strategies are points w (R, d).

    A round's loss has M = m rows and is one sample (one noisy target vector y_t).  `joined` stacks n
    samples' rows, M = n·m: ``‖B_cat w − y_cat‖²/(2nm) = (1/n) Σ_t e_t(w)``, the mean loss of a mini-batch —
    what an arrivals queue hands a learner that takes it whole (theory §8, `onlinelab.feedback.arrivals`).

    Parameters
    ----------
    B : numpy.ndarray
        The design, (M, d).
    y : numpy.ndarray
        The targets, (R, M).
    n_samples : int, default 1
        How many target vectors of the stream the rows hold (the stacked rounds of a joined loss).
    """

    def __init__(self, B: np.ndarray, y: np.ndarray, n_samples: int = 1):
        self.B, self.y, self.n_samples = B, y, n_samples

    @classmethod
    def joined(cls, losses) -> LeastSquaresLoss:
        """The sample-weighted mean of ``losses``: their rows stacked (each loss divides by its own row count, the
        stack by the total, so loss i weighs b_i/N with b_i = n_samples — rows per sample are m for all)."""
        return cls(np.concatenate([loss.B for loss in losses]), np.concatenate([loss.y for loss in losses], axis=1),
                   sum(loss.n_samples for loss in losses))

    @property
    def shape(self):
        return self.y.shape[0], self.B.shape[1]

    def validate(self, where, R, d, bound, psd=None):
        if self.shape != (R, d):
            raise LossError(f"{where}: least-squares loss has shape {self.shape}, expected ({R}, {d})")
        if not np.all(np.isfinite(self.y)):
            raise LossError(f"{where}: targets have non-finite entries (NaN or inf)")

    def mixed_value(self, w):
        r = rows_at(np.asarray(w), self.B.T) - self.y   # row by row: bits independent of R
        return np.einsum("rm,rm->r", r, r) / (2 * self.B.shape[0])

    action_value = mixed_value

    def gradient(self, w):
        return rows_at(rows_at(np.asarray(w), self.B.T) - self.y, self.B) / self.B.shape[0]

    def statistics(self):
        return {}

    def comparator(self, replicates, d):
        return LeastSquaresComparator(self.B, replicates)


class LeastSquaresComparator:
    """min_w Σ_t e_t(w) = (Σ‖y_t‖² − T‖P_B ȳ‖²)/(2m), from running sums of y_t and ‖y_t‖²."""

    def __init__(self, B, replicates):
        self.B, self.T = B, 0
        self.ysum = np.zeros((replicates, B.shape[0]))
        self.ysq = np.zeros(replicates)
        Qb, _ = np.linalg.qr(B)
        self.basis = Qb  # orthonormal basis of range(B)

    def add(self, loss):
        self.ysum += loss.y
        self.ysq += np.einsum("rm,rm->r", loss.y, loss.y)
        self.T += 1

    def _value(self, ysum, ysq):
        proj = rows_at(ysum, self.basis)
        return (ysq - np.einsum("...m,...m->...", proj, proj) / self.T) / (2 * self.B.shape[0])

    def value(self):
        return self._value(self.ysum, self.ysq)

    def pooled_value(self):
        return float(self._value(self.ysum.mean(axis=0), self.ysq.mean()))


@register_environment("least-squares-stream")
class LeastSquaresStream(Environment):
    """Fresh noisy targets for a fixed design each round; the SGD bound's assumptions hold exactly.

    Parameters
    ----------
    d : int, default 5
        Dimension of w.
    m : int, default 20
        Rows of the fixed design B (m ≥ d).
    noise : float, default 1.0
        Standard deviation of the target noise; sets σ² = noise²‖B‖_F²/m².
    design_seed : int, default 0
        Seed of the fixed design and of w* (the same for every replicate and run seed).
    """

    loss_bound = float("inf")
    domain = "euclidean"
    loss_offers = frozenset()  # a gradient oracle only: no leader (argmin) and not linear

    def __init__(self, d: int = 5, m: int = 20, noise: float = 1.0, design_seed: int = 0):
        super().__init__(d=d)
        self.m = v.integer("m", m, minimum=self.d)
        self.noise = v.positive_float("noise", noise)
        self.design_seed = v.integer("design_seed", design_seed, minimum=0)
        g = np.random.default_rng(self.design_seed)
        self.B = g.standard_normal((self.m, self.d))
        w = g.standard_normal(self.d)
        self.w_star = w / np.linalg.norm(w)
        self.smoothness = float(np.linalg.eigvalsh(self.B.T @ self.B)[-1] / self.m)
        self.grad_variance = float(self.noise ** 2 * np.sum(self.B ** 2) / self.m ** 2)

    def emit(self, t, history):
        y = self.B @ self.w_star + self.noise * self.rng.normal(self.m)
        return LeastSquaresLoss(self.B, y)

    def excess(self, w: np.ndarray) -> np.ndarray:
        """E(w) − E* = ‖B(w − w*)‖²/(2m) per replicate."""
        r = rows_at(w - self.w_star, self.B.T)
        return np.einsum("rm,rm->r", r, r) / (2 * self.m)

    def reset(self, rng, T):
        super().reset(rng, T)
        self.step_sums = []   # [learner, [(Σ τ_k, Σ τ_k²) per checkpoint]]: what `instance_bounds` checks
        self.diverged = []

    def checkpoint_metrics(self, learner, state):
        if not hasattr(learner, "averaged"):
            return {}
        dist0 = float(np.sum(self.w_star ** 2))  # learners start at w⁰ = 0
        s1, s2 = state.tau_sum, state.tau_sq_sum
        self._sums_of(learner).append((float(s1), float(s2)))
        sub = self.excess(learner.averaged(state))
        warned = self.__dict__.setdefault("diverged", [])   # learners already warned about, once each per run
        if np.any(sub > DIVERGED * self.excess(np.zeros((1, self.d)))[0]) and all(w is not learner for w in warned):
            warned.append(learner)
            _warn_diverged(learner, sub, self.smoothness)
        if s1 == 0:   # no step yet (under arrivals, a checkpoint before the first update ends): nothing is bounded
            inf = np.full(self.replicates, np.inf)
            return {"suboptimality": sub, "sgd_bound": inf, "sgd_bound_printed": inf}
        return {"suboptimality": sub,
                "sgd_bound": np.full(self.replicates, dist0 / (2 * s1) + self.grad_variance * s2 / s1),
                "sgd_bound_printed": np.full(self.replicates, dist0 / (2 * s1) + self.grad_variance * s2 / (2 * s1))}

    def _sums_of(self, learner) -> list:
        log = self.__dict__.setdefault("step_sums", [])
        for who, sums in log:
            if who is learner:
                return sums
        log.append([learner, []])
        return log[-1][1]

    def instance_bounds(self, ctx, learner) -> list:
        """The SGD bound of theory §4 as a checked bound on ``suboptimality`` (`onlinelab.bounds.steps`), from the
        step sums the learner's state held at each checkpoint; it applies when every τ_k ≤ 1/L."""
        if not (hasattr(learner, "averaged") and hasattr(learner, "step")):
            return []
        tau_max = first_step(getattr(learner, "schedule", "constant"), learner.step, getattr(learner, "t0", 0.0))
        return [sgd_average(float(np.sum(self.w_star ** 2)), self.grad_variance, self.smoothness, tau_max,
                            self._sums_of(learner))]
