"""Online convex losses from a data set: round t's loss is the regularised risk of a random mini-batch
(theory §3.1, docs/theory/03-oco-fenchel.md).

ℓ_t(x) = (1/b) Σ_{i∈B_t} φ(ã_i·x − o_i) + (λ/2)‖x‖² with B_t drawn per replicate
(`onlinelab.losses.datasets` defines φ, ã, o).  A `DataLoss` offers the vector-loss protocol
of `onlinelab.losses.vector`: ``gradient`` (first-order oracle), ``terms()`` (follow-the-leader
sums: a weight per sample, `DataTerms`, whose ``argmin`` is an exact L-BFGS-B solve) and the
comparator, the best fixed x ∈ K for the summed losses.  ``statistics`` reports bounds over K:
``fro_sq`` = (|φ'|max·(1/b)Σ‖ã_i‖₂ + λ sup_K‖x‖)² ≥ ‖∇ℓ_t(x)‖₂², ``spec_sq`` the same in ‖·‖∞, and
``curvature`` = λ, the strong convexity of ℓ_t (FTL's bound, theory §3.2).

>>> import numpy as np
>>> from onlinelab.losses.datasets import Margin, Risk, load_data
>>> from onlinelab.geometry.domains import Box
>>> risk = Risk(Margin("logistic"), *load_data())
>>> loss = DataLoss(risk, np.array([[0, 1]]), lam=0.1, domain=Box(31, -5, 5))
>>> round(float(loss.mixed_value(np.zeros((1, 31)))[0]), 6)
0.693147
"""
from __future__ import annotations

import numpy as np

from onlinelab.errors import LossError
from onlinelab.losses.vector import LeaderComparator, VectorLoss, _terms_value, sup_norm


class DataTerms:
    """Σ_s α_s ℓ_s as sample weights c (R, N) and ridge weight ρ (R,): Σ c_i φ(ã_i·x − o_i) + (ρ/2)‖x‖²."""

    def __init__(self, risk, c, rho):
        self.risk, self.c, self.rho = risk, np.asarray(c, dtype=float), np.asarray(rho, dtype=float)

    def scaled(self, a: float) -> DataTerms:
        return DataTerms(self.risk, a * self.c, a * self.rho)

    def plus(self, other: DataTerms) -> DataTerms:
        return DataTerms(self.risk, self.c + other.c, self.rho + other.rho)

    def add_(self, other: DataTerms) -> DataTerms:
        self.c += other.c
        self.rho += other.rho
        return self

    def pooled(self) -> DataTerms:
        return DataTerms(self.risk, self.c.mean(axis=0, keepdims=True), self.rho.mean(keepdims=True))

    def value(self, x):
        return self.risk.value(x, self.c, self.rho)

    def argmin(self, domain):
        return self.risk.argmin(self.c, self.rho, domain)


class DataLoss(VectorLoss):
    """The regularised risk of mini-batch ``idx`` (R, b) of ``risk``'s samples, on ``domain`` (ℝⁿ or a box).

    Parameters
    ----------
    risk : onlinelab.losses.datasets.Risk
        The data set and margin loss.
    idx : array-like of int
        The mini-batch, sample indices of shape ``(R, b)``.
    lam : float
        Ridge weight λ (the loss is λ-strongly convex).
    domain : Domain
        The decision set (ℝⁿ or a box).
    """

    def __init__(self, risk, idx, lam: float, domain):
        self.risk, self.idx, self.lam, self.domain = risk, np.asarray(idx), float(lam), domain
        if self.idx.ndim != 2 or not np.issubdtype(self.idx.dtype, np.integer):
            raise LossError(f"DataLoss needs integer sample indices of shape (R, b), got {self.idx.shape}")
        R, b = self.idx.shape
        self.c = np.zeros((R, risk.N))
        np.add.at(self.c, (np.repeat(np.arange(R), b), self.idx.ravel()), 1.0 / b)

    @property
    def shape(self):
        return self.idx.shape[0], self.risk.n

    @property
    def n_samples(self) -> int:
        """b, the mini-batch size: what an arrivals server's service time counts (theory §8)."""
        return self.idx.shape[1]

    @classmethod
    def joined(cls, losses) -> DataLoss:
        """The sample-weighted mean ``Σ_i (b_i/N) ℓ_i`` of queued mini-batch losses (same data, λ and domain): the
        regularised risk of their samples as one mini-batch of N = Σ b_i — the block an arrivals queue hands a
        learner that takes it whole (theory §8, `onlinelab.feedback.arrivals`)."""
        first = losses[0]
        for loss in losses[1:]:
            if loss.risk is not first.risk or loss.lam != first.lam or loss.domain != first.domain:
                raise LossError("DataLoss.joined needs mini-batches of one data set, λ and domain (one stream's "
                                f"losses), got λ = {first.lam!r} and {loss.lam!r}; join one environment's losses only")
        return cls(first.risk, np.concatenate([loss.idx for loss in losses], axis=1), first.lam, first.domain)

    def _rho(self):
        return np.full(self.idx.shape[0], self.lam)

    def validate(self, where, R, d, bound, psd=None):
        self._validate_common(where, R, d, [self.c])
        self._check_bound(where, bound, np.sqrt(self.statistics()["fro_sq"]))

    def mixed_value(self, mixed):
        return self.risk.value(mixed, self.c, self._rho())

    def gradient(self, mixed):
        return self.risk.grad(mixed, self.c, self._rho())

    def terms(self):
        return DataTerms(self.risk, self.c, self._rho())

    def statistics(self):
        lip, rows = self.risk.margin.lip, self.risk.At[self.idx]                     # (R, b, n)
        g2 = lip * np.linalg.norm(rows, axis=2).mean(axis=1) + self.lam * sup_norm(self.domain)
        gi = lip * np.abs(rows).max(axis=2).mean(axis=1) + self.lam * _sup_abs(self.domain)
        return {"spec_sq": gi ** 2, "fro_sq": g2 ** 2, "curvature": self._rho()}

    def comparator(self, replicates, d):
        return LeaderComparator(self.domain, _terms_value)  # a named function: checkpoints can save it


def _sup_abs(domain) -> float:
    """sup_{x∈K} ‖x‖∞ (a box's largest |bound|; inf on ℝⁿ)."""
    return domain.scale if domain.kind == "box" else float("inf")
