"""Robust PCA, matrix completion and composite first-order methods as iterative rounds on the event loop
(theory §6, §9).

* `robust_pca` — Algorithms 7 (linearised Bregman = gradient descent on the dual energy G_τ)
  and 9 (its FISTA acceleration), with the rate curves checked at every checkpoint;
* `complete_matrix` — Algorithms 10/11 (matrix completion), and `complete_stream`, the
  online version on a recommender stream that reveals a batch of entries per round;
* `prox_gradient` — gradient descent, ISTA and FISTA on `Lasso`, `HuberLasso`,
  `LeastSquares` (scikit-learn's diabetes data), and `svm_dual`, the soft-margin SVM by its
  dual with the primal–dual gap; the ``[bregman]`` run kind (`onlinelab.experiment.kinds.bregman`);
* `onlinelab.bregman.prox` — soft-thresholding, singular value thresholding and their envelopes;
* `onlinelab.bregman.loop` — `iterate`, the runner every method here shares, and
  `IterationResult`, the tidy table with ``bound:*`` rows.

>>> import numpy as np
>>> L, S, res = robust_pca(np.outer(np.arange(1.0, 6.0), np.ones(4)), iters=50)
>>> int(res.final("rank").iloc[0])
1
"""
from onlinelab.bregman.completion import (
    MatrixCompletion,
    OnlineCompletion,
    RecommenderStream,
    complete_matrix,
    complete_stream,
)
from onlinelab.bregman.composite import HuberLasso, Lasso, LeastSquares, ProxGradient, prox_gradient
from onlinelab.bregman.loop import IterationResult, iterate
from onlinelab.bregman.rpca import RobustPCA, robust_pca
from onlinelab.bregman.svm import SVMDual, svm_dual

__all__ = ["IterationResult", "iterate", "RobustPCA", "robust_pca", "MatrixCompletion", "OnlineCompletion",
           "RecommenderStream", "complete_matrix", "complete_stream", "HuberLasso", "Lasso", "LeastSquares",
           "ProxGradient", "prox_gradient", "SVMDual", "svm_dual"]
