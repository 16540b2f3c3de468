"""Batched symmetric loss matrices, dense or low-rank factored, and their best-in-hindsight comparator.

A `MatrixLoss` holds one d × d symmetric loss per replicate.  `FactoredLoss`
keeps ``L_r = Σ_j c_j x_{rj} x_{rj}ᵀ`` as its factors (streaming PCA's ``L = −x xᵀ`` is one
vector per replicate), so an O(dk) learner never builds a d × d matrix; ``.dense()`` builds
it on demand.  The comparator of theory §1.1/§2 (docs/theory/01-bandit-pca.md, 02-online-pca.md) is
``λ_min(Σ_t L_t)`` (best fixed unit vector).

>>> import numpy as np
>>> L = FactoredLoss(np.array([[1.0, 0.0]]), coef=-1.0)   # L = -e1 e1ᵀ, one replicate
>>> L.dense()[0] + 0.0
array([[-1.,  0.],
       [ 0.,  0.]])
>>> float(L.quad(np.array([[1.0, 0.0]]))[0])
-1.0
"""
from __future__ import annotations

import numpy as np

from onlinelab.core.metrics import running
from onlinelab.core.protocol import EigenPlay
from onlinelab.errors import LossError
from onlinelab.kernels import recorder as recorder_kernels
from onlinelab.kernels.switch import compiled_active


def real_array(value, what: str) -> np.ndarray:
    """``value`` as a float array; a complex one is a `LossError` (its imaginary part would be dropped)."""
    if np.iscomplexobj(value):
        raise LossError(f"{what} got a complex array (dtype {np.asarray(value).dtype}); losses are real: take "
                        "the real part explicitly (np.real) if the imaginary part is zero, else fix the environment")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise LossError(f"{what} needs a real numeric array, got {type(value).__name__}: {exc}") from exc


class MatrixLoss:
    """Base class: symmetric (R, d, d) losses for spectraplex learners."""

    kind = "matrix"

    @property
    def shape(self) -> tuple[int, int]:
        raise NotImplementedError

    def dense(self) -> np.ndarray:
        raise NotImplementedError

    def quad(self, w: np.ndarray) -> np.ndarray:
        """wᵀ L w per replicate, w: (R, d) → (R,).

        Parameters
        ----------
        w : numpy.ndarray
            Unit vectors, shape ``(R, d)``.
        """
        return np.einsum("ri,ri->r", w, np.einsum("rij,rj->ri", self.dense(), w))

    def in_basis(self, U: np.ndarray) -> np.ndarray:
        """Uᵀ L U per replicate: the loss in the learner's eigen-coordinates.

        Parameters
        ----------
        U : numpy.ndarray
            Orthonormal bases, shape ``(R, d, d)`` (or ``(R, d, k)``).
        """
        return np.swapaxes(U, 1, 2) @ self.dense() @ U

    def mixed_value(self, mixed) -> np.ndarray:
        """⟨W, L⟩ per replicate for a mixed strategy (EigenPlay or dense (R, d, d)).

        Parameters
        ----------
        mixed : EigenPlay or numpy.ndarray
            Mixed strategies W, as eigenpairs or dense ``(R, d, d)``.
        """
        if isinstance(mixed, EigenPlay):
            diag = np.einsum("rik,rik->rk", mixed.U, self.dense() @ mixed.U)  # u_kᵀ L u_k
            return np.einsum("rk,rk->r", mixed.lam, diag)
        return np.einsum("rij,rij->r", np.asarray(mixed), self.dense())

    def action_value(self, action: np.ndarray) -> np.ndarray:
        """wᵀ L w for the sampled actions w: the loss a randomised learner actually paid.

        Parameters
        ----------
        action : numpy.ndarray
            Sampled unit vectors, shape ``(R, d)``.
        """
        return self.quad(action)

    def eigenvalues(self) -> np.ndarray:
        """Ascending eigenvalues per replicate, computed once per loss (validation and statistics both need them)."""
        cached = self.__dict__.get("_eigenvalues")
        if cached is None:
            cached = self.__dict__["_eigenvalues"] = np.linalg.eigvalsh(self.dense())
        return cached

    def spectral_norm(self) -> np.ndarray:
        ev = self.eigenvalues()
        return np.maximum(-ev[:, 0], ev[:, -1])

    def frobenius_sq(self) -> np.ndarray:
        return np.einsum("rij,rij->r", self.dense(), self.dense())

    def add_to(self, total: np.ndarray) -> None:
        """total += L (in place), for the incremental comparator.

        Parameters
        ----------
        total : numpy.ndarray
            Running sum, shape ``(R, d, d)``, updated in place.
        """
        total += self.dense()

    def statistics(self) -> dict[str, np.ndarray]:
        """Per-replicate quantities the bounds sum over rounds: ‖L‖₂² and ‖L‖_F²."""
        return {"spec_sq": self.spectral_norm() ** 2, "fro_sq": self.frobenius_sq()}

    def min_eigenvalue(self) -> np.ndarray:
        return self.eigenvalues()[:, 0]

    def max_eigenvalue(self) -> np.ndarray:
        return self.eigenvalues()[:, -1]

    def comparator(self, replicates: int, d: int) -> SpectralComparator:
        """A fresh best-in-hindsight tracker for this loss type: λ_min of the summed losses.

        Parameters
        ----------
        replicates : int
            Number of replicates R.
        d : int
            Dimension.
        """
        return SpectralComparator(replicates, d)

    def validate(self, where: str, R: int, d: int, bound: float | None, psd: bool | None = None) -> None:
        """Raise `LossError` naming ``where`` if the loss breaks its contract.

        Checks shape (R, d, d), finiteness, symmetry, ‖L‖₂ ≤ ``bound`` and, when ``psd`` is
        True/False, that every loss is positive/negative semi-definite.

        Parameters
        ----------
        where : str
            Where the loss came from, for the message (environment and round).
        R : int
            Expected number of replicates.
        d : int
            Expected dimension.
        bound : float or None
            Declared bound on ‖L‖₂ (``None``: not checked).
        psd : bool or None, default None
            Declared sign: True positive, False negative semi-definite, None unchecked.
        """
        if self.shape != (R, d):
            raise LossError(f"{where}: loss has shape (replicates, d) = {self.shape}, expected ({R}, {d}); "
                            "emit one d × d loss per replicate (leading axis R)")
        dense_ok = self._check_finite_symmetric(where)
        if bound is not None and dense_ok and bound < float("inf"):
            fro = np.sqrt(self.frobenius_sq())
            if np.any(fro > bound * (1 + 1e-9)):  # ‖L‖₂ ≤ ‖L‖_F: only then compute the spectrum
                norm = self.spectral_norm()
                worst = int(np.argmax(norm))
                if norm[worst] > bound * (1 + 1e-9):
                    fit = float(np.ceil(norm[worst] * 100 - 1e-6) / 100)
                    raise LossError(
                        f"{where}: ‖L‖₂ = {norm[worst]:.6g} in replicate {worst} exceeds the declared bound "
                        f"{bound:g}; scale the loss down or declare loss_bound = {fit:g}"
                    )
        if psd is not None:
            scale = max(1.0, bound or 1.0)
            ext = self.min_eigenvalue() if psd else -self.max_eigenvalue()
            if np.any(ext < -1e-10 * scale):
                worst = int(np.argmin(ext))
                sign, fix = ("positive", "psd = None") if psd else ("negative", "psd = None")
                wrong = float(ext[worst]) * (1 if psd else -1)
                raise LossError(f"{where}: the environment declares {sign} semi-definite losses (psd = {psd}) but "
                                f"replicate {worst} has an eigenvalue of the wrong sign ({wrong:.3g}); "
                                f"fix the loss or declare {fix}")

    def _check_finite_symmetric(self, where: str) -> bool:
        raise NotImplementedError


class DenseLoss(MatrixLoss):
    """Explicit matrices, ``matrix``: (R, d, d) (broadcast views are fine).

    Parameters
    ----------
    matrix : array-like
        Symmetric loss matrices, shape ``(R, d, d)``; a broadcast view (``np.broadcast_to``) is fine.
    """

    def __init__(self, matrix):
        self.matrix = real_array(matrix, "DenseLoss")
        if self.matrix.ndim != 3 or self.matrix.shape[1] != self.matrix.shape[2]:
            raise LossError(f"DenseLoss needs an array of shape (R, d, d), got shape {self.matrix.shape}")

    @property
    def shape(self):
        return self.matrix.shape[0], self.matrix.shape[1]

    def dense(self):
        return self.matrix

    def _check_finite_symmetric(self, where):
        m = self.matrix
        if not np.all(np.isfinite(m)):
            raise LossError(f"{where}: loss has non-finite entries (NaN or inf); check the environment's arithmetic")
        asym = np.abs(m - np.swapaxes(m, 1, 2)).max()
        scale = max(1.0, float(np.abs(m).max()))
        if asym > 1e-10 * scale:
            raise LossError(f"{where}: loss is not symmetric (max |L − Lᵀ| = {asym:.3g}); emit (L + Lᵀ)/2")
        return True


class FactoredLoss(MatrixLoss):
    """``L_r = Σ_j coef_j x_{rj} x_{rj}ᵀ`` with ``factors`` (R, d) or (R, d, k) and ``coef`` scalar or (k,).

    Parameters
    ----------
    factors : array-like
        The vectors x, shape ``(R, d)`` (one per replicate) or ``(R, d, k)`` (k per replicate).
    coef : float or array-like, default -1.0
        The coefficients c_j, a scalar or one per factor (length k). ``coef=1`` gives the PSD loss
        x xᵀ, ``coef=-1`` the gain form −x xᵀ of streaming PCA.
    """

    def __init__(self, factors, coef=-1.0):
        x = real_array(factors, "FactoredLoss")
        if x.ndim == 2:
            x = x[:, :, None]
        if x.ndim != 3:
            raise LossError(f"FactoredLoss needs factors of shape (R, d) or (R, d, k), got shape {np.shape(factors)}")
        self.factors = x
        self.coef = np.broadcast_to(real_array(coef, "FactoredLoss coef"), (x.shape[2],))

    @property
    def shape(self):
        return self.factors.shape[0], self.factors.shape[1]

    @property
    def n_samples(self) -> int:
        """Samples this loss carries, one per factor (a streamed block of b samples has b): what an
        arrivals server's service time counts (theory §8, `onlinelab.feedback.arrivals`)."""
        return self.factors.shape[2]

    @classmethod
    def joined(cls, losses) -> FactoredLoss:
        """The sample-weighted mean ``Σ_i (b_i/N) L_i`` of queued losses (b_i = ``n_samples``, N = Σ b_i): their
        factors side by side, each one's coefficients scaled by b_i/N — the one block a block learner takes
        from an arrivals queue (theory §8).  For streaming PCA's ``−(1/b_i) Σ_j x_j x_jᵀ`` that is
        ``−(1/N) Σ`` over every queued sample; the type and settings (rank, k) are those of ``losses[0]``."""
        N = sum(loss.n_samples for loss in losses)
        X = np.concatenate([loss.factors for loss in losses], axis=2)
        coef = np.concatenate([loss.coef * (loss.n_samples / N) for loss in losses])
        return losses[0].with_factors(X, coef)

    def with_factors(self, factors, coef) -> FactoredLoss:
        """A loss like this one (its type and its settings) on other factors and coefficients."""
        return FactoredLoss(factors, coef)

    def dense(self):
        return (self.factors * self.coef) @ np.swapaxes(self.factors, 1, 2)

    def quad(self, w):
        proj = np.einsum("ri,rik->rk", w, self.factors)
        return (proj ** 2) @ self.coef

    def in_basis(self, U):
        y = np.swapaxes(U, 1, 2) @ self.factors
        return (y * self.coef) @ np.swapaxes(y, 1, 2)

    def mixed_value(self, mixed):
        if isinstance(mixed, EigenPlay):
            y = np.swapaxes(mixed.U, 1, 2) @ self.factors  # (R, d, k)
            return np.einsum("ri,rik,k->r", mixed.lam, y ** 2, self.coef)
        wx = np.asarray(mixed) @ self.factors  # (R, d, k)
        return np.einsum("rik,rik,k->r", self.factors, wx, self.coef)

    def spectral_norm(self):
        if self.factors.shape[2] == 1:
            return np.abs(self.coef[0]) * np.einsum("ri,ri->r", self.factors[:, :, 0], self.factors[:, :, 0])
        return super().spectral_norm()

    def frobenius_sq(self):
        cached = self.__dict__.get("_fro_sq")  # validation and statistics both ask: one k × k Gram per loss
        if cached is None:
            gram = np.swapaxes(self.factors, 1, 2) @ self.factors  # (R, k, k)
            cached = self.__dict__["_fro_sq"] = np.einsum("k,rkl,l,rkl->r", self.coef, gram, self.coef, gram)
        return cached

    def add_to(self, total):
        total += self.dense()

    def min_eigenvalue(self):
        if np.all(self.coef >= 0):
            return np.zeros(self.shape[0]) if self.factors.shape[2] < self.shape[1] else super().min_eigenvalue()
        return super().min_eigenvalue()

    def max_eigenvalue(self):
        if np.all(self.coef <= 0):
            return np.zeros(self.shape[0]) if self.factors.shape[2] < self.shape[1] else super().max_eigenvalue()
        return super().max_eigenvalue()

    def _check_finite_symmetric(self, where):
        if np.isfinite(self.factors.sum()) and np.all(np.isfinite(self.coef)):
            return True  # one pass, no temporary: a NaN or inf entry makes the sum non-finite
        if not (np.all(np.isfinite(self.factors)) and np.all(np.isfinite(self.coef))):
            raise LossError(f"{where}: loss factors have non-finite entries (NaN or inf); check the environment")
        return True


class SpectralComparator:
    """Keeps S_t = Σ_{s≤t} L_s per replicate; ``value()`` is λ_min(S_t), the best fixed direction's loss.

    Parameters
    ----------
    replicates : int
        Number of replicates R.
    d : int
        Dimension.
    """

    def __init__(self, replicates: int, d: int):
        self.total = np.zeros((replicates, d, d))

    def add(self, loss: MatrixLoss) -> None:
        loss.add_to(self.total)

    def add_block(self, block) -> None:
        """n rounds at once, their dense losses added in round order (the sums of n calls of `add`).

        Rank-one losses c·x xᵀ (`FactoredLoss` with one factor) go through a compiled pass with the compiled
        switch on (`onlinelab.kernels.recorder.rank_one_into`): the same products added in the same order,
        without forming the n dense d × d matrices.
        """
        R, stacked = self.total.shape[0], block.stacked
        if type(stacked) is FactoredLoss and stacked.factors.shape[2] == 1 and compiled_active():
            out = np.array(self.total, dtype=float)
            X = np.ascontiguousarray(stacked.factors[:, :, 0], dtype=float).reshape(block.n, R, -1)
            if recorder_kernels.run(recorder_kernels.rank_one_into, out, X, float(stacked.coef[0])) is not None:
                self.total = out
                return
        self.total = running(self.total, stacked.dense().reshape((block.n, R) + self.total.shape[1:]))

    def value(self) -> np.ndarray:
        return np.linalg.eigvalsh(self.total)[:, 0]

    def pooled_value(self) -> float:
        """λ_min of the replicate-averaged cumulative loss (pseudo-regret comparator, theory §1.1)."""
        return float(np.linalg.eigvalsh(self.total.mean(axis=0))[0])
