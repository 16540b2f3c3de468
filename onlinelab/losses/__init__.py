"""Loss types: symmetric loss matrices (dense or factored), vector losses, sample and data losses, convex objectives.

The matrix losses of `onlinelab.losses.matrix` are re-exported here, so ``onlinelab.losses.DenseLoss``
keeps working.
"""
from onlinelab.losses.matrix import DenseLoss, FactoredLoss, MatrixLoss, SpectralComparator, real_array

__all__ = ["DenseLoss", "FactoredLoss", "MatrixLoss", "SpectralComparator", "real_array"]
