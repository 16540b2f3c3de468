"""Bandit-PCA sampling schemes and their unbiased loss estimators, in the learner's eigen-coordinates
(theory §1.3, docs/theory/01-bandit-pca.md).

Given the mixed strategy ``Ŵ = U diag(λ̂) Uᵀ`` a sampler draws a unit vector ``w`` with
``E[w wᵀ] = Ŵ`` and, from the observed scalar ``ℓ = wᵀ L w`` alone, builds ``L̃`` with
``E[L̃] = L``.  The estimate is returned *structured*, as ``Uᵀ L̃ U = diag(diag) +
coef · vec vecᵀ + off · (e_I e_Jᵀ + e_J e_Iᵀ)``, so that the log-det update can exploit
the structure (diagonal: O(d); diagonal plus rank one: one eigh; a 2 × 2 block: a Jacobi
rotation).  ``EigEstimate.dense()`` gives the matrix, for tests.

>>> import numpy as np
>>> from onlinelab.core.rng import BatchRNG
>>> rng = BatchRNG.from_seed(0, "learner", "doc", replicates=2)
>>> lam, U = np.full((2, 3), 1 / 3), np.broadcast_to(np.eye(3), (2, 3, 3))
>>> w, info = SparseSampler().sample(lam, U, rng)
>>> np.allclose(np.linalg.norm(w, axis=1), 1.0)
True
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EigEstimate:
    """``Uᵀ L̃ U = diag(diag) + coef·vec vecᵀ + off·(e_I e_Jᵀ + e_J e_Iᵀ)`` per replicate."""

    diag: np.ndarray                 # (R, d)
    coef: np.ndarray                 # (R,)  0 where there is no rank-one part
    vec: np.ndarray | None = None    # (R, d)
    i: np.ndarray | None = None      # (R,) int, the pair's index I
    j: np.ndarray | None = None      # (R,) int, the pair's index J
    off: np.ndarray | None = None    # (R,)  0 where there is no off-diagonal pair

    def dense(self) -> np.ndarray:
        R, d = self.diag.shape
        out = np.zeros((R, d, d))
        out[:, np.arange(d), np.arange(d)] = self.diag
        if self.vec is not None:
            out += self.coef[:, None, None] * self.vec[:, :, None] * self.vec[:, None, :]
        if self.off is not None:
            r = np.arange(R)
            out[r, self.i, self.j] += self.off
            out[r, self.j, self.i] += self.off
        return out


def _column(U: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.take_along_axis(U, idx[:, None, None], axis=2)[:, :, 0]


class DenseSampler:
    """Dense sampling (theory §1.3): with prob. ½ an eigenvector u_I, I ~ λ̂; else Σ_i s_i √λ̂_i u_i, s ∈ {±1}^d."""

    name = "dense"

    def sample(self, lam_hat, U, rng):
        R, d = lam_hat.shape
        B = rng.random() < 0.5                      # draw every variable for every replicate:
        i = rng.categorical(lam_hat)                # replicate r's stream never depends on branches
        s = rng.signs(d)
        w1 = _column(U, i)
        w0 = np.einsum("rij,rj->ri", U, s * np.sqrt(lam_hat))
        w = np.where(B[:, None], w1, w0)
        return w, {"B": B, "I": i, "s": s, "lam_hat": lam_hat}

    def estimate(self, info, ell) -> EigEstimate:
        B, i, s, lam_hat = info["B"], info["I"], info["s"], info["lam_hat"]
        R, d = lam_hat.shape
        r = np.arange(R)
        diag = np.where(B[:, None], 0.0, -ell[:, None] / lam_hat)
        diag[r[B], i[B]] = 2 * ell[B] / lam_hat[r[B], i[B]]
        coef = np.where(B, 0.0, ell)
        return EigEstimate(diag=diag, coef=coef, vec=s / np.sqrt(lam_hat))


class SparseSampler:
    """Sparse sampling (theory §1.3): I, J ~ λ̂ i.i.d.; u_I if I = J, else (u_I + σ u_J)/√2 with a random sign σ."""

    name = "sparse"

    def sample(self, lam_hat, U, rng):
        i = rng.categorical(lam_hat)
        j = rng.categorical(lam_hat)
        sigma = rng.signs()
        same = i == j
        uI, uJ = _column(U, i), _column(U, j)
        w = np.where(same[:, None], uI, (uI + sigma[:, None] * uJ) / np.sqrt(2.0))
        return w, {"I": i, "J": j, "sigma": sigma, "lam_hat": lam_hat}

    def estimate(self, info, ell) -> EigEstimate:
        i, j, sigma, lam_hat = info["I"], info["J"], info["sigma"], info["lam_hat"]
        R, d = lam_hat.shape
        r = np.arange(R)
        same = i == j
        lI, lJ = lam_hat[r, i], lam_hat[r, j]
        diag = np.zeros((R, d))
        diag[r[same], i[same]] = ell[same] / lI[same] ** 2
        off = np.where(same, 0.0, sigma * ell / (2 * lI * lJ))
        return EigEstimate(diag=diag, coef=np.zeros(R), i=i, j=j, off=off)


SAMPLERS = {"dense": DenseSampler, "sparse": SparseSampler}
