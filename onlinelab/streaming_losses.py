"""Sample losses for streaming PCA and their comparator, the best rank-k projection in hindsight (theory §4, docs/theory/04-streaming.md).

A round brings a block of b samples ``X = [x_1 … x_b]`` (b = 1 for a single sample).  It
travels as :class:`SampleLoss`, a :class:`~onlinelab.FactoredLoss` with ``coef = −1/b``:
``L = −(1/b) Σ_j x_j x_jᵀ`` (the gain form of :class:`onlinelab.environments.spiked.SpikedCovariance`).
Playing the projector ``P = Q Qᵀ`` costs ``⟨P, L⟩ = −(1/b) Σ_j ‖Qᵀx_j‖²``, which is the mean
compression loss ``(1/b) Σ_j ‖x_j − Q Qᵀ x_j‖²`` minus ``(1/b) Σ_j ‖x_j‖²`` — a term that does
not depend on the play, so regret in the gain form *is* compression regret.

:class:`TopKComparator` keeps what ``min_{rank-k projector P} ⟨P, Σ_t L_t⟩`` needs: by Ky Fan
it is the sum of the k smallest eigenvalues of ``Σ_t L_t`` (k = 1 is the core's
``λ_min``).  ``add`` only buffers the factors; they are folded into the d × d sum with one
GEMM per 512 buffered samples or when ``value`` is asked for (checkpoints only), so a
d = 784 stream pays O(d²) per sample in BLAS-3, not a rank-one update per round.

>>> import numpy as np
>>> L = SampleLoss(np.array([[[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]]), k=1)   # two samples in R^3
>>> cmp = L.comparator(1, 3); cmp.add(L); round(float(cmp.value()[0]), 12)   # best line: e2, gain 4/2
-2.0
"""
from __future__ import annotations

import numpy as np

from .losses import FactoredLoss
from .streaming import check_rank


class SampleLoss(FactoredLoss):
    """``L = −(1/b) Σ_j x_j x_jᵀ`` for samples ``(R, d)`` or ``(R, d, b)``; ``k`` sets the comparator's rank.

    Parameters
    ----------
    samples : array-like
        The round's samples, ``(R, d)`` (one per replicate) or ``(R, d, b)`` (a block of b).
    k : int, default 1
        Rank of the comparator: the best rank-k projection in hindsight.
    """

    def __init__(self, samples, k: int = 1):
        super().__init__(samples, coef=-1.0)
        b = self.factors.shape[2]
        self.coef = np.full(b, -1.0 / b)
        self.k = check_rank(k, self.factors.shape[1])

    @property
    def samples(self) -> np.ndarray:
        return self.factors

    def statistics(self) -> dict:
        """Per-round sums: ‖L‖₂², ‖L‖_F² and the mean energy (1/b)Σ‖x_j‖², without a d × d matrix.

        ‖L‖₂ is λ_max of the b × b Gram matrix ``XᵀX/b`` when b ≤ 64; for bigger blocks it is
        replaced by its upper bound ‖L‖_F (bounds that grow with Σ‖L‖₂² stay valid, only looser).
        """
        fro_sq = self.frobenius_sq()
        X, b = self.factors, self.factors.shape[2]
        energy = np.einsum("rib,rib->r", X, X) / b
        if b == 1:
            spec_sq = energy ** 2
        elif b <= 64:
            spec_sq = (np.linalg.eigvalsh(np.swapaxes(X, 1, 2) @ X)[:, -1] / b) ** 2
        else:
            spec_sq = fro_sq
        return {"spec_sq": spec_sq, "fro_sq": fro_sq, "energy": energy}

    def comparator(self, replicates: int, d: int) -> "TopKComparator":
        return TopKComparator(replicates, d, self.k)


class TopKComparator:
    """Cumulative loss of the best fixed rank-k projector: Σ of the k smallest eigenvalues of Σ_t L_t.

    Parameters
    ----------
    replicates : int
        Number of replicates R.
    d : int
        Dimension.
    k : int
        Rank of the comparator.
    """

    flush_every = 512

    def __init__(self, replicates: int, d: int, k: int):
        self.total = np.zeros((replicates, d, d))
        self.k = k
        self._buffer: list = []
        self._buffered = 0

    def add(self, loss) -> None:
        X = loss.factors * np.sqrt(np.abs(loss.coef))
        self._buffer.append((X, np.sign(loss.coef)))
        self._buffered += X.shape[2]
        if self._buffered >= self.flush_every:
            self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        X = np.concatenate([x for x, _ in self._buffer], axis=2)
        s = np.concatenate([c for _, c in self._buffer])
        self.total += (X * s) @ np.swapaxes(X, 1, 2)
        self._buffer, self._buffered = [], 0

    def _bottom_k(self, total: np.ndarray) -> np.ndarray:
        return np.linalg.eigvalsh(0.5 * (total + np.swapaxes(total, -1, -2)))[..., : self.k].sum(axis=-1)

    def value(self) -> np.ndarray:
        self._flush()
        return self._bottom_k(self.total)

    def pooled_value(self) -> float:
        self._flush()
        return float(self._bottom_k(self.total.mean(axis=0)))
