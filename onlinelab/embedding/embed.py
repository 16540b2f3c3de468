"""Near-isometric orthonormal embeddings by Lagrange duality, played as a game (theory §5).

`NearIsometricEmbedding` finds V (d × k, orthonormal columns) that keeps every pairwise
squared distance as well as it can in the worst case: it minimises the maximum distortion
max_{i<j} 1 − ‖Vᵀ(u_i − u_j)‖²/‖u_i − u_j‖².  It runs the dual game of
`onlinelab.embedding.game` (projected supergradient ascent on the simplex of pairs against
a top-k best response) and keeps the better of the best iterate and the average, as the source's
Algorithm 1 does.  Alongside comes a certificate: ``dual_bound_`` ≤ p⋆ ≤ ``max_distortion_``, where
p⋆ is the best maximum distortion any orthonormal V can achieve (docs/theory/05-near-isometric.md).

>>> import numpy as np
>>> pts = np.random.default_rng(0).standard_normal((20, 6))
>>> emb = NearIsometricEmbedding(n_components=3, T=60).fit(pts)
>>> emb.components_.shape, bool(emb.dual_bound_ <= emb.max_distortion_ <= 1)
((6, 3), True)
>>> np.allclose(emb.components_.T @ emb.components_, np.eye(3))
True
"""
from __future__ import annotations

import numbers

import numpy as np

from onlinelab.core import validation as v
from onlinelab.embedding.bounds import centred_eta, paper_eta
from onlinelab.embedding.dual import SOLVERS, _finite_matrix, max_distortion, unit_rows
from onlinelab.embedding.game import play_embedding_game
from onlinelab.embedding.pairs import UnitPairs
from onlinelab.errors import ConfigError


def resolve_eta(eta, n: int, T: int) -> float:
    """The step: ``"auto"`` = the source's D/(L√T) = √2/√(nT); ``"centred"`` = R/(L_eff√T); or a number.

    Parameters
    ----------
    eta : {"auto", "centred"} or float
        The requested step.
    n : int
        Number of pairs.
    T : int
        Horizon.
    """
    if eta in ("auto", None):
        return paper_eta(n, T)
    if eta == "centred":
        return centred_eta(n, T)
    if isinstance(eta, numbers.Real) and not isinstance(eta, bool):
        return v.positive_float("eta", eta)
    raise ConfigError(f"eta must be 'auto', 'centred' or a positive number, got {eta!r}; 'auto' takes the "
                      "source's step √2/√(nT)")


class NearIsometricEmbedding:
    """Minimise the maximum pairwise distortion of an orthonormal linear embedding (theory §5).

    Parameters
    ----------
    n_components : int
        k, the embedding's dimension (1 ≤ k < d).
    T : int, default 120
        Rounds of the dual game (iterations of Algorithm 1).
    eta : {"auto", "centred"} or float, default "auto"
        The λ-player's step: ``"auto"`` is √2/√(nT) (the source's D/(L√T)), ``"centred"`` the step
        tuned for the centred bound, √(1 − 1/n)/(√n/2 · √T).
    solver : {"auto", "dense", "lobpcg"}, default "auto"
        Top-k eigen-solver; ``auto`` forms M(λ) for moderate d and goes matrix-free (warm-started
        LOBPCG on v ↦ Xᵀ(λ ∘ Xv)) for large d.
    checkpoints : int, list of int or None, default None
        Rounds logged in ``history``: a list, or a count of log-spaced rounds (None: 16); T always.
    tol : float, default 1e-9
        LOBPCG residual tolerance.

    Attributes
    ----------
    components_ : numpy.ndarray, shape (d, k)
        Orthonormal columns spanning the embedding; ``transform`` projects onto them.
    max_distortion_ : float
        Its maximum distortion over the pairs (the better of the best iterate and the average), computed directly
        from the unit differences: accurate to rounding on badly scaled data too.
    certificate_ : dict
        How the bracket ``dual_bound_ ≤ p⋆ ≤ max_distortion_`` was checked: ``relative_tol``, ``rounding`` (the
        distortions' rounding bound for this data), ``closest_excess`` (the largest side-over-side excess seen;
        > 0 means met only to rounding) and ``tol_there`` (the tolerance it was compared with).
    dual_bound_ : float
        Certified lower bound on p⋆: the largest dual value g(λ) seen (g(λ̄) at the end, or better).
    history : pandas.DataFrame
        One row per checkpoint: dual values, the three distortions, gap, regret and the rate curves.
    result_ : onlinelab.embedding.result.EmbeddingResult
        The game's full result (``save``, ``plot``, ``summary``).
    """

    def __init__(self, n_components, T=120, eta="auto", solver="auto", checkpoints=None, tol=1e-9):
        self.n_components, self.T, self.eta = n_components, T, eta
        self.solver, self.checkpoints, self.tol = solver, checkpoints, tol

    def get_params(self) -> dict:
        """The hyper-parameters as a dict (the scikit-learn convention)."""
        return {"n_components": self.n_components, "T": self.T, "eta": self.eta, "solver": self.solver,
                "checkpoints": self.checkpoints, "tol": self.tol}

    def fit(self, points=None, *, differences=None) -> NearIsometricEmbedding:
        """Fit on ``points`` (rows; their r(r−1)/2 unit differences are formed) or on ``differences`` directly.

        Parameters
        ----------
        points : array-like, shape (r, d), optional
            The points; at least two, no duplicates, no NaN.
        differences : array-like, shape (n, d), optional
            Pairwise differences (scaled to unit length here) instead of points.
        """
        if (points is None) == (differences is None):
            raise ConfigError("fit needs exactly one of points (rows are points) or differences= (rows are pairwise "
                              "differences); got " + ("both" if points is not None else "neither"))
        pairs = UnitPairs.from_points(points) if points is not None else UnitPairs.from_rows(unit_rows(differences))
        X = pairs.X
        T = v.integer("T", self.T, minimum=1)
        v.choice("solver", self.solver, SOLVERS)
        v.positive_float("tol", self.tol)
        self.eta_ = resolve_eta(self.eta, X.shape[0], T)
        res = play_embedding_game(pairs, self.n_components, T=T, eta=self.eta_, solver=self.solver,
                                  checkpoints=self.checkpoints, tol=self.tol)
        self.result_, self.history = res, res.history()
        last = self.history.iloc[-1]
        self.components_ = np.asarray(res.solution["V"])
        self.lambda_ = np.asarray(res.solution["lambda"])
        self.projector_ = np.asarray(res.solution["projector"])
        # ε of the output V (the better of best and average), from its unit differences directly: exact to
        # rounding whatever the data's scale (the game's pair path is checked against it in tests)
        self.max_distortion_ = max_distortion(X, self.components_)
        self.certificate_ = dict(res.meta["game"]["certificate"])   # tolerance and closest excess of the bracket
        self.dual_bound_ = float(last["dual_best"])
        self.output_ = res.meta["game"]["output"]
        self.n_pairs_, self.n_features_in_ = X.shape
        return self

    def transform(self, points) -> np.ndarray:
        """Project rows onto the fitted subspace: ``points @ components_`` (r × k).

        Parameters
        ----------
        points : array-like, shape (r, d)
            Points in the original space.
        """
        if not hasattr(self, "components_"):
            raise ConfigError("this NearIsometricEmbedding is not fitted yet; call fit(points) first")
        P = _finite_matrix("points", points)
        if P.shape[1] != self.components_.shape[0]:
            raise ConfigError(f"points has {P.shape[1]} columns but the embedding was fitted in dimension "
                              f"{self.components_.shape[0]}; pass points of that dimension")
        return P @ self.components_

    def fit_transform(self, points) -> np.ndarray:
        """``fit(points)`` then ``transform(points)``.

        Parameters
        ----------
        points : array-like, shape (r, d)
            The points.
        """
        return self.fit(points).transform(points)
