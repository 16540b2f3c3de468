"""The hinge loss as an online convex loss (theory §9): its exact comparator against a cvxpy QP, its
conjugate against a grid, and OMD/FTRL regret on the breast-cancer stream against their bounds."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.geometry.domains import Box, Euclidean
from onlinelab.losses.datasets import Margin, Risk, load_data
from tests.cvx_reference import SOLVER, cvxpy


@pytest.mark.parametrize("domain", [Box(31, -0.5, 0.5), Euclidean(31)], ids=["box", "euclidean"])
def test_hinge_argmin_equals_a_cvxpy_qp(domain):
    A, y = load_data()
    risk = Risk(Margin("hinge"), A, y)
    rng = np.random.default_rng(0)
    c = np.zeros(risk.N)
    c[rng.choice(risk.N, 60, replace=False)] = rng.random(60)
    rho, s = 0.3, 0.1 * rng.normal(size=31)
    cp = cvxpy()
    x = cp.Variable(31)
    obj = c @ cp.pos(1 - risk.At @ x) + rho / 2 * cp.sum_squares(x) - s @ x
    cons = [x >= domain.lo, x <= domain.hi] if domain.kind == "box" else []
    prob = cp.Problem(cp.Minimize(obj), cons)
    prob.solve(**SOLVER)
    got = risk.argmin(c[None], np.array([rho]), domain, s=s[None])[0]
    # ρ-strong convexity: ‖x − x⋆‖² ≤ 2(F(x) − F⋆)/ρ; both solvers stop near 1e-9 in F
    assert np.abs(got - x.value).max() < 1e-4
    F = risk.value(got[None], c[None], np.array([rho]), s[None])[0]
    assert F == pytest.approx(prob.value, abs=1e-7)


def test_hinge_conjugate_and_subgradient():
    m = Margin("hinge")
    z = np.linspace(-50, 50, 200001)
    for u in (-1.0, -0.3, 0.0):
        assert float(m.conjugate(u)) == pytest.approx(np.max(u * z - m.phi(z)), abs=1e-6)
    assert np.isinf(m.conjugate(0.5)) and np.isinf(m.conjugate(-1.5))
    assert m.dphi(np.array([0.5, 1.5])).tolist() == [-1.0, 0.0]


def test_omd_and_ftrl_regret_on_the_hinge_stream_within_their_bounds():
    res = ol.simulate("hinge-data", [ol.make_learner("omd"), ol.make_learner("ftrl")], T=200, replicates=2,
                      checkpoints=6)
    b = res.bounds()
    assert len(b) and not b.violated.any()
    assert np.all(np.isfinite(res.final("regret").to_numpy()))
