"""Theory §9's Huber-smoothed LASSO: what shrinks with μ and what does not, measured before it was written.

The smoothed minimiser ŵ_μ approaches the LASSO minimiser in proportion to μ (on the diabetes data, α = 300:
about 1.45 μ).  Gradient descent's iterates after a fixed budget do the opposite: the step 1/L with
L = ‖X‖² + α/μ shrinks with μ, so after 150 iterations they are farther from the LASSO minimiser the smaller μ.
"""
import numpy as np
from sklearn.linear_model import Lasso as SkLasso

from onlinelab.bregman.composite import HuberLasso, ProxGradient, diabetes, prox_gradient


def test_minimiser_distance_shrinks_like_mu_but_a_fixed_budget_of_iterates_does_not():
    X, y = diabetes()
    alpha = 300.0
    lasso = SkLasso(alpha=alpha / len(y), fit_intercept=False, tol=1e-14, max_iter=10 ** 6).fit(X, y).coef_
    minimiser, iterate = [], []
    for mu in (10.0, 1.0, 0.1):
        minimiser.append(np.linalg.norm(ProxGradient(HuberLasso(X, y, alpha, mu)).ref["w_hat"][0] - lasso))
        w, _ = prox_gradient(HuberLasso(X, y, alpha, mu), iters=150, checkpoints=[150])
        iterate.append(np.linalg.norm(np.asarray(w).reshape(-1, X.shape[1])[0] - lasso))
    # measured: 14.25, 1.448, 0.1452 (ratio to μ 1.42-1.45); 34.5, 336, 545 after 150 iterations
    ratios = np.array(minimiser) / np.array([10.0, 1.0, 0.1])
    assert np.all((1.3 < ratios) & (ratios < 1.6)), ratios
    assert iterate[0] < iterate[1] < iterate[2], iterate
    assert iterate[2] > 10 * iterate[0]
