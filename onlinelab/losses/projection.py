"""PSD losses for rank-m projections (compression form of online PCA, theory §2 "Rank k", docs/theory/02-online-pca.md).

A rank-m projector P pays ⟨P, L⟩; with L = x xᵀ that is ‖P x‖², the compression loss of keeping the
k = d − m directions of I − P.  The learner's mixed strategy is a Fantope point mW (tr = m,
0 ⪯ mW ⪯ I; W a capped density matrix), its sampled action an orthonormal frame U (R, d, m)
carried as ``EigenPlay(ones, U)``, and the comparator the best fixed rank-m projector in hindsight:
by Ky Fan, the sum of the m smallest eigenvalues of Σ_t L_t — the streaming-PCA helper's
`onlinelab.losses.streaming.TopKComparator`, reused with rank m.

>>> import numpy as np
>>> L = ProjectionLoss(np.array([[0.6, 0.8, 0.0]]), rank=2)   # L = x xᵀ in R³
>>> c = L.comparator(1, 3); c.add(L); round(float(c.value()[0]), 12) + 0.0   # a plane ⟂ x loses nothing
0.0
"""
from __future__ import annotations

import numpy as np

from onlinelab.core.protocol import EigenPlay
from onlinelab.geometry.subspaces import check_rank
from onlinelab.losses.matrix import FactoredLoss
from onlinelab.losses.streaming import TopKComparator


class ProjectionLoss(FactoredLoss):
    """``L = Σ_j coef_j x_j x_jᵀ`` played by rank-``rank`` projectors; comparator Σ of the ``rank`` smallest
    eigenvalues.

    Parameters
    ----------
    factors : array-like
        The vectors x_j, ``(R, d)`` or ``(R, d, k)``.
    coef : float or array-like, default 1.0
        The coefficients c_j.
    rank : int, default 1
        Rank of the projectors the learner plays (and of the comparator).
    """

    def __init__(self, factors, coef=1.0, rank: int = 1):
        super().__init__(factors, coef)
        self.rank = check_rank(rank, self.shape[1], "rank")

    def with_factors(self, factors, coef) -> ProjectionLoss:
        return ProjectionLoss(factors, coef, rank=self.rank)

    def action_value(self, action):
        """⟨U Uᵀ, L⟩ for a sampled frame (an EigenPlay with unit weights), or xᵀLx for a vector."""
        if isinstance(action, EigenPlay):
            return self.mixed_value(action)
        return self.quad(np.asarray(action))

    def comparator(self, replicates: int, d: int) -> TopKComparator:
        return TopKComparator(replicates, d, self.rank)
