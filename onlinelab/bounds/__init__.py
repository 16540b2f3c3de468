"""Theoretical bounds as data: each theorem's curve with the assumptions it needs (docs/theory/).

`onlinelab.bounds.base` holds the `Bound` type and the bandit-PCA / MEG bounds; the OCO
learners' bounds are in `onlinelab.bounds.oco` and the delayed-feedback ones in
`onlinelab.bounds.delay`.  The names of ``base`` are re-exported here.
"""
from onlinelab.bounds.base import (
                                   TOL,
                                   Bound,
                                   LossStats,
                                   c_d,
                                   logdet_dense,
                                   logdet_first_order,
                                   logdet_full_information,
                                   logdet_sparse,
                                   meg_first_order,
                                   meg_worst_case,
)

__all__ = ["TOL", "Bound", "LossStats", "c_d", "logdet_dense", "logdet_first_order", "logdet_full_information",
           "logdet_sparse", "meg_first_order", "meg_worst_case"]
