"""What every manifold estimator shares: scikit-learn's conventions on top of the trace solver.

``fit(X)`` stores ``embedding_`` (m, k), points as rows (the theory's Y is its transpose) and
``eigenvalues_``; ``fit_transform`` returns ``embedding_``; ``get_params``/``set_params`` and
``sklearn.base.clone`` work because hyper-parameters are exactly the ``__init__`` arguments.
Linear methods (PCA, LPP, ONPP) also store ``components_`` (d, k) and ``mean_`` and map new
points with ``transform``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from onlinelab.core.docs import Param
from onlinelab.manifold.checks import check_count, check_points

# The estimators' shared parameters, documented once (onlinelab.core.docs: ``{params: solver, random_state}``).
MANIFOLD_PARAMS = {
    "solver": Param('{"auto", "dense", "arpack", "lobpcg"}', "Passed to `onlinelab.manifold.trace_optimize`."),
    "random_state": Param("int", "Seed of the iterative solver."),
}


class ManifoldEstimator(BaseEstimator):
    """Base class: subclasses implement ``_fit(X)`` returning (embedding, eigenvalues)."""

    def _validate_components(self, m: int) -> int:
        return check_count("n_components", self.n_components, m)

    def _check_input(self, X):
        return check_points(X)

    def fit(self, X, y=None):
        """Compute the embedding of the rows of ``X``.

        Parameters
        ----------
        X : array_like
            Points as rows, ``(m, d)`` (a symmetric affinity or distance matrix for the precomputed modes).
        y : None
            Ignored (scikit-learn's signature).
        """
        X = self._check_input(X)
        self._validate_components(X.shape[0])
        self.embedding_, self.eigenvalues_ = self._fit(X)
        self.n_features_in_ = X.shape[1]
        return self

    def fit_transform(self, X, y=None) -> np.ndarray:
        """Fit and return ``embedding_``, ``(m, n_components)``.

        Parameters
        ----------
        X : array_like
            Points as rows, ``(m, d)``.
        y : None
            Ignored.
        """
        return self.fit(X).embedding_


class LinearEmbedding(ManifoldEstimator):
    """A method whose embedding is Y = Vᵀ(x − mean): ``transform`` maps points never seen."""

    def transform(self, X) -> np.ndarray:
        """Project new points with the fitted ``components_``: (X − mean_) @ components_.

        Parameters
        ----------
        X : array_like
            Points as rows, ``(n, d)`` with the training data's d.
        """
        X = check_points(X, min_points=1)
        if not hasattr(self, "components_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit(X) first")
        if X.shape[1] != self.components_.shape[0]:
            from onlinelab.errors import DataError
            raise DataError(f"X has {X.shape[1]} features but {type(self).__name__} was fitted on "
                            f"{self.components_.shape[0]}; pass points with the same columns")
        return (X - self.mean_) @ self.components_
