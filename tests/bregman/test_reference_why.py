"""A rate curve that cannot be checked says why (issue 20 item 6): a reference solve stopped at its iteration cap
names the cap, its residual and its tolerance; a run without one says so.

Independent computation: the tolerance tol·max(1, ‖X‖_F) is recomputed here, and the constraint residual
‖L + S − X‖_F (the gradient of G_τ) at the solve's start is evaluated and is far above it.
"""
import functools

import numpy as np

from onlinelab.bregman.data import low_rank_plus_sparse
from onlinelab.bregman.rpca import RobustPCA, robust_pca


def test_a_capped_reference_solve_is_named_with_its_residual(monkeypatch):
    X = low_rank_plus_sparse(12, 8, replicates=1, seed=2)[0][0]
    monkeypatch.setattr(RobustPCA, "solve_reference",
                        functools.partialmethod(RobustPCA.solve_reference, max_iter=5))
    _, _, res = robust_pca(X, iters=20)
    ref = res.meta["iteration"]["method"]["reference"]
    assert ref["iterations"] == ref["max_iter"] == 5 and not ref["converged"]
    target = 1e-10 * max(1.0, np.linalg.norm(X))
    np.testing.assert_allclose(ref["target"], [target], rtol=1e-12)
    # the solve's start B⁰ = X, re-evaluated independently: its residual is far above the tolerance, which 5
    # steps of a first-order method cannot close
    m = RobustPCA(X, reference=False)
    L, S = (np.asarray(p) for p in m.primal_point(m.b)[0])
    assert np.linalg.norm(L + S - X) > target
    why = res.summary()["no_rate"].iloc[0]
    assert why.startswith("the reference solve stopped at its iteration cap (5 iterations) with a residual ")
    assert f"above its tolerance {target:.2g}" in why
    assert "why no rate" in res.summary_text() and why in res.summary_text()
    assert not res.bounds().holds.any()


def test_no_reference_solve_says_so_and_a_converged_one_needs_no_reason():
    X = low_rank_plus_sparse(12, 8, replicates=1, seed=2)[0][0]
    _, _, res = robust_pca(X, iters=20, reference=False)
    assert res.summary()["no_rate"].iloc[0].startswith("no reference solve (reference=False)")
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(20, 3)) @ rng.normal(size=(3, 15))
    Y[rng.random(Y.shape) < 0.05] += 10.0
    _, _, res = robust_pca(Y, gamma=3.0, iters=50)     # the module's example: its reference solve converges
    assert res.meta["iteration"]["method"]["reference"]["converged"]
    assert res.summary()["no_rate"].iloc[0] is None and "why no rate" not in res.summary_text()
