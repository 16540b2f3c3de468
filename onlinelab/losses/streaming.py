"""Sample losses for streaming PCA and their comparator, the best rank-k projection in hindsight
(theory §4, docs/theory/04-streaming.md).

A round brings a block of b samples ``X = [x_1 … x_b]`` (b = 1 for a single sample).  It
travels as `SampleLoss`, a `onlinelab.FactoredLoss` with ``coef = −1/b``:
``L = −(1/b) Σ_j x_j x_jᵀ`` (the gain form of `onlinelab.environments.spiked.SpikedCovariance`).
Playing the projector ``P = Q Qᵀ`` costs ``⟨P, L⟩ = −(1/b) Σ_j ‖Qᵀx_j‖²``, which is the mean
compression loss ``(1/b) Σ_j ‖x_j − Q Qᵀ x_j‖²`` minus ``(1/b) Σ_j ‖x_j‖²`` — a term that does
not depend on the play, so regret in the gain form *is* compression regret.

`TopKComparator` keeps what ``min_{rank-k projector P} ⟨P, Σ_t L_t⟩`` needs: by Ky Fan
it is the sum of the k smallest eigenvalues of ``Σ_t L_t`` (k = 1 is the core's
``λ_min``).  ``add`` only buffers the factors; they are folded into the d × d sum with one
symmetric rank-n update (BLAS-3 ``syrk``) per 512 buffered samples or when ``value`` is asked for
(checkpoints only), so a d = 784 stream pays O(d²) per sample in BLAS-3, not a rank-one update per
round; at checkpoints a warm-started iterative solver (`onlinelab.geometry.topk`) finds the k extreme
eigenvalues instead of a full eigendecomposition.

>>> import numpy as np
>>> L = SampleLoss(np.array([[[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]]), k=1)   # two samples in R^3
>>> cmp = L.comparator(1, 3); cmp.add(L); round(float(cmp.value()[0]), 12)   # best line: e2, gain 4/2
-2.0
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dsyrk as syrk

from onlinelab.errors import LossError
from onlinelab.geometry.subspaces import check_rank
from onlinelab.geometry.topk import LowerSymmetric, block_size, top_k_sum
from onlinelab.losses.matrix import FactoredLoss


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

    def with_factors(self, factors, coef) -> SampleLoss:
        """The samples as a SampleLoss of this rank; its weights are −1/b again, which is what
        `onlinelab.FactoredLoss.joined` asks for (each −1/b_i scaled by b_i/N)."""
        out = SampleLoss(factors, k=self.k)
        if not np.allclose(coef, out.coef, rtol=1e-12, atol=0.0):
            raise LossError(f"a SampleLoss weighs its {out.coef.size} samples −1/{out.coef.size} each, not {coef!r}; "
                            "use onlinelab.FactoredLoss(factors, coef) for other weights")
        return out

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

    def comparator(self, replicates: int, d: int) -> TopKComparator:
        return TopKComparator(replicates, d, self.k)


class TopKComparator:
    """Cumulative loss of the best fixed rank-k projector: Σ of the k smallest eigenvalues of Σ_t L_t.

    ``add`` buffers the factors; every 512 buffered samples (and at checkpoints) they are folded into
    the d × d sum by one BLAS-3 call — a symmetric rank-n update (``syrk``, half a GEMM's work) per
    replicate when all coefficients share a sign.  Only the lower triangle of ``total`` is kept
    current.  While every loss is negative semi-definite (streaming PCA's gain form), ``−Σ_t L_t``
    is a Gram matrix and its k largest eigenvalues come from the warm-started iterative solver of
    `onlinelab.geometry.topk`; otherwise from ``eigvalsh``.

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
        self.gain = True            # every loss so far ⪯ 0: −total is a Gram matrix
        self._basis = self._pooled_basis = None
        self._cached = None         # (samples folded in, value) of the last value()
        self.samples = 0
        self._early: list | None = []   # every sample block while there are at most d/2 of them

    def add(self, loss) -> None:
        self._add(loss.factors, loss.coef)

    def add_block(self, block) -> None:
        """n rounds at once: their factors side by side, (R, d, n·b), in round order."""
        F, n = block.stacked.factors, block.n
        R = F.shape[0] // n
        X = F.reshape((n, R) + F.shape[1:]).transpose(1, 2, 0, 3).reshape(R, F.shape[1], n * F.shape[2])
        self._add(X, np.tile(block.stacked.coef, n))

    def _add(self, factors, coef) -> None:
        coef = np.asarray(coef, dtype=float)
        self._buffer.append((factors, coef))
        self._buffered += factors.shape[2]
        self.samples += factors.shape[2]
        if self._early is not None:
            if self.samples <= self.total.shape[1] // 2 and np.all(coef <= 0):
                self._early.append(factors * np.sqrt(np.abs(coef)))
            else:
                self._early = None
        if self._buffered >= self.flush_every:
            self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        F = np.concatenate([x for x, _ in self._buffer], axis=2) if len(self._buffer) > 1 else self._buffer[0][0]
        c = np.concatenate([w for _, w in self._buffer])
        self._buffer, self._buffered = [], 0
        self.gain = self.gain and bool(np.all(c <= 0))
        if np.all(c == c[0]):  # one weight for every sample (streaming PCA's −1/b): syrk's alpha, no scaled copy
            alpha, X = float(c[0]), F
        elif np.all(c <= 0) or np.all(c >= 0):
            alpha, X = (-1.0 if np.all(c <= 0) else 1.0), F * np.sqrt(np.abs(c))
        else:
            self.total += (F * c) @ np.swapaxes(F, 1, 2)
            return
        for r in range(X.shape[0]):  # one BLAS-3 call per replicate; the lower triangle of total[r]
            out = syrk(alpha, X[r].T, beta=1.0, c=self.total[r].T, trans=1, lower=0, overwrite_c=1)
            if not np.shares_memory(out, self.total):
                self.total[r] = out.T

    def _bottom_k(self, total: np.ndarray, pooled: bool) -> np.ndarray:
        if not self.gain:
            return np.linalg.eigvalsh(LowerSymmetric(total).dense())[..., : self.k].sum(axis=-1)
        if self._early is not None:   # fewer samples than d/2: the spectrum of the small dual Gram XᵀX
            return -self._dual(pooled)
        value, basis = top_k_sum(LowerSymmetric(total, -1.0), self.k, self._pooled_basis if pooled else self._basis)
        if pooled:
            self._pooled_basis = basis
        else:
            self._basis = basis
        return -value

    def _dual(self, pooled: bool) -> np.ndarray:
        """Top-k eigenvalues of X Xᵀ from XᵀX (N × N, N ≤ d/2); its eigenvectors X u warm the first solve."""
        X = np.concatenate(self._early, axis=2)                                     # (R, d, N)
        if pooled:  # the mean of the replicates' Grams: stack them as one wider sample matrix / √R
            X = np.concatenate(list(X), axis=1)[None] / np.sqrt(X.shape[0])
        lam, U = np.linalg.eigh(np.swapaxes(X, 1, 2) @ X)
        m = min(block_size(X.shape[1], self.k), U.shape[2])
        start = X @ U[:, :, -m:]
        if start.shape[2] == block_size(X.shape[1], self.k):
            if pooled:
                self._pooled_basis = start
            else:
                self._basis = start
        return lam[:, -self.k:].sum(axis=1)

    def value(self) -> np.ndarray:
        self._flush()
        if self._cached is None or self._cached[0] != self.samples:
            self._cached = (self.samples, self._bottom_k(self.total, pooled=False))
        return self._cached[1]

    def pooled_value(self) -> float:
        if self.total.shape[0] == 1:
            return float(self.value()[0])
        self._flush()
        return float(self._bottom_k(self.total.mean(axis=0, keepdims=True), pooled=True)[0])
