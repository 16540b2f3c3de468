"""OCO bound data (theory §3.2, §2 "Rank k"): regulariser ranges and strong convexity against hand computations and
enumeration, bound formulas against hand-computed values, and every bound of a deterministic learner pointwise."""
import itertools

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.bounds.base import LossStats
from onlinelab.bounds.oco import ZERO_TOL, capped_meg_bounds, ftrl_bound, prescient_bound
from onlinelab.core.protocol import Context
from onlinelab.games.recoveries import RECOVERIES
from onlinelab.geometry.mirror import get_mirror, mirror_beta, mirror_range
from onlinelab.geometry.specs import make_domain

STATS = LossStats(t=np.array([1, 100]), comparator=np.array([[0.0, 3.0]]),
                  spec_sq=np.array([[1.0, 50.0]]), fro_sq=np.array([[1.0, 60.0]]))
EUC, ENT = get_mirror("euclidean"), get_mirror("entropy")


@pytest.mark.parametrize("d", [2, 3, 7])
def test_euclidean_range_on_simplex_and_spectraplex(d):
    """sup ½‖u − 1/d‖² over the simplex is at a vertex: ½((1 − 1/d)² + (d − 1)/d²) = ½(1 − 1/d)."""
    for spec in ("simplex", "spectraplex"):
        assert mirror_range(EUC, make_domain(spec, d)) == pytest.approx(0.5 * (1 - 1 / d), rel=1e-15)
        assert mirror_beta(EUC, make_domain(spec, d)) == 1.0


@pytest.mark.parametrize("d", [2, 3, 7])
def test_entropy_range_on_simplex_and_spectraplex(d):
    """Σ u log u ranges from −log d (uniform) to 0 (vertex); strongly convex with β = 1 w.r.t. ‖·‖₁ (Pinsker)."""
    for spec in ("simplex", "spectraplex"):
        assert mirror_range(ENT, make_domain(spec, d)) == pytest.approx(np.log(d), rel=1e-15)
        assert mirror_beta(ENT, make_domain(spec, d)) == 1.0


@pytest.mark.parametrize("d,m", [(4, 1), (6, 2), (8, 6), (5, 4)])
def test_entropy_range_on_fantope_and_capped_density(d, m):
    """Fantope:m (gain form, eigenvalues in [0, 1] summing to m): Σ p log p is m log(m/d) at the centre p = m/d and
    0 at a projector, so the range is m log(d/m) and β = 1/m (Pinsker scaled to total m) — the D of capped MEG
    (theory §2 "Rank k").
    Capped density:m (eigenvalues ≤ 1/m summing to 1): −log m at a scaled projector, −log d at I/d: log(d/m), β = 1."""
    fant, dens = make_domain(f"fantope:{m}", d), make_domain(f"capped-density:{m}", d)
    assert mirror_range(ENT, fant) == pytest.approx(m * np.log(d / m), rel=1e-13, abs=1e-15)
    assert mirror_beta(ENT, fant) == pytest.approx(1.0 / m, rel=1e-15)
    assert mirror_range(ENT, dens) == pytest.approx(np.log(d / m), rel=1e-13, abs=1e-15)
    assert mirror_beta(ENT, dens) == pytest.approx(1.0, rel=1e-15)


@pytest.mark.parametrize("spec", ["box:-1:3", "box:0:1", "box:-2:2"])
def test_euclidean_range_on_a_box_by_corner_enumeration(spec):
    dom = make_domain(spec, 4)
    c = dom.centre()
    corners = np.array(list(itertools.product((dom.lo, dom.hi), repeat=4)))
    assert mirror_range(EUC, dom) == pytest.approx(np.max(0.5 * np.sum((corners - c) ** 2, axis=1)), rel=1e-15)


def test_euclidean_range_on_a_ball():
    assert mirror_range(EUC, make_domain("ball:2.5", 3)) == pytest.approx(0.5 * 2.5 ** 2, rel=1e-15)


def test_ftrl_bound_value():
    b = ftrl_bound("x", range_=0.5, beta=2.0, eta=0.1, stat="fro_sq", assumptions={"a": True})
    assert b.curve(STATS)[0, 1] == pytest.approx(0.5 / 0.1 + 0.1 / 4 * 60, rel=1e-15)
    assert b.curve(STATS)[0, 0] == pytest.approx(0.5 / 0.1 + 0.1 / 4 * 1, rel=1e-15)
    b = ftrl_bound("x", range_=np.log(4), beta=1.0, eta=0.2, stat="spec_sq", assumptions={})
    assert b.curve(STATS)[0, 1] == pytest.approx(np.log(4) / 0.2 + 0.1 * 50, rel=1e-15)
    assert b.holds and b.pointwise
    assert not ftrl_bound("x", range_=np.inf, beta=1.0, eta=0.2, stat="fro_sq", assumptions={}).holds


def test_prescient_bound_value():
    b = prescient_bound("ftrl+", 0.5, 0.25, {}, "ref")
    assert b.curve(STATS)[0, 1] == pytest.approx(2.0 + ZERO_TOL * 4.0, rel=1e-15)
    zero = prescient_bound("ftl+", 0.0, 0.0, {}, "ref")                     # be-the-leader: 0 (+ rounding slack)
    assert zero.curve(STATS)[0].tolist() == [ZERO_TOL, ZERO_TOL * 4.0]
    assert b.pointwise and zero.pointwise


def test_capped_meg_bound_values():
    d, m, eta, Lhat = 8, 6, 0.3, 600.0                                   # L̂ = m·T·loss_bound
    D = 6 * np.log(8 / 6)
    ctx = Context(d=d, T=100, replicates=1, psd=True)
    fo, tuned = capped_meg_bounds(d, m, eta, Lhat, ctx)
    assert fo.curve(STATS)[0, 1] == pytest.approx((0.3 * 3 + D) / (1 - np.exp(-0.3)) - 3, rel=1e-14)
    assert fo.curve(STATS)[0, 0] == pytest.approx(D / (1 - np.exp(-0.3)), rel=1e-14)
    assert tuned.curve(STATS)[0].tolist() == pytest.approx([np.sqrt(1200 * D) + D] * 2, rel=1e-14)
    assert fo.holds and tuned.holds and fo.pointwise and tuned.pointwise
    assert len(capped_meg_bounds(d, m, eta, None, ctx)) == 1
    assert not capped_meg_bounds(d, m, eta, 100.0, ctx)[1].holds           # L̂ < m·T·loss_bound: L̂ ≥ L* not known
    assert not capped_meg_bounds(d, m, eta, Lhat, Context(d=d, T=100, replicates=1, psd=False))[0].holds
    # with the tuned η = ln(1 + √(2D/L̂)) the first-order form at L* = L̂ is below the tuned bound √(2L̂D) + D
    eta_t = np.log1p(np.sqrt(2 * D / Lhat))
    first, _ = capped_meg_bounds(d, m, eta_t, Lhat, ctx)
    at_Lhat = LossStats(t=np.array([100]), comparator=np.array([[Lhat]]))
    assert first.curve(at_Lhat)[0, 0] <= np.sqrt(2 * Lhat * D) + D


@pytest.mark.parametrize("name", ["ftl", "ftl+", "bestresp+", "ftrl", "ftrl+", "omd", "omd+", "capped-meg", "meg"])
def test_every_deterministic_learner_declares_pointwise_bounds(name):
    env = {"capped-meg": "pca-compression", "ftl": "quadratic-ball"}.get(name, "experts-stochastic")
    env = "spiked-covariance" if name == "meg" else env
    res = ol.simulate(env, [ol.make_learner(name)], T=5)
    assert res.meta["bounds"] and all(b["pointwise"] for b in res.meta["bounds"])


@pytest.mark.parametrize("name", sorted(RECOVERIES))
def test_every_recovery_curve_is_pointwise(name):
    assert all(b.pointwise for b in RECOVERIES[name](T=10).bounds)
