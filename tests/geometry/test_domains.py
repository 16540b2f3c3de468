"""Domains and mirror maps against brute force (small n) and optimality certificates (theory §2)."""
import itertools

import numpy as np
import pytest

from onlinelab.errors import DomainError, UnknownNameError
from onlinelab.geometry.domains import Ball, Box, CappedSimplex, Simplex
from onlinelab.geometry.mirror import capped_entropy_projection, get_mirror, mirror_solve
from onlinelab.geometry.specs import make_domain
from onlinelab.geometry.spectral import systematic_sample


def brute_capped_projection(y, cap, total):
    """Enumerate each coordinate as 0 / capped / free; keep the feasible KKT point closest to y."""
    best, best_d = None, np.inf
    n = y.size
    for states in itertools.product((0, 1, 2), repeat=n):
        s = np.array(states)
        free = s == 2
        if not free.any():
            p = np.where(s == 1, cap, 0.0)
            if abs(p.sum() - total) > 1e-12:
                continue
        else:
            theta = (y[free].sum() + cap * (s == 1).sum() - total) / free.sum()
            p = np.where(s == 1, cap, np.where(free, y - theta, 0.0))
        if p.min() < -1e-12 or p.max() > cap + 1e-12:
            continue
        d = np.sum((p - y) ** 2)
        if d < best_d:
            best, best_d = p, d
    return best


@pytest.mark.parametrize("n", [2, 3, 5])
def test_simplex_projection_matches_brute_force(n):
    rng = np.random.default_rng(20)
    y = rng.normal(size=(30, n)) * 2
    got = Simplex(n).project(y)
    want = np.stack([brute_capped_projection(row, cap=1.0, total=1.0) for row in y])
    assert np.abs(got - want).max() < 1e-12


@pytest.mark.parametrize("cap,total", [(0.4, 1.0), (1.0, 2.0), (0.3, 1.0)])
def test_capped_simplex_projection_matches_brute_force(cap, total):
    rng = np.random.default_rng(21)
    y = rng.normal(size=(30, 5))
    got = CappedSimplex(5, cap, total).project(y)
    want = np.stack([brute_capped_projection(row, cap, total) for row in y])
    assert np.abs(got - want).max() < 1e-12


DOMAINS = [Simplex(4), CappedSimplex(4, 0.4, 1.0), Ball(4, 1.5), Box(4, -0.5, 1.0)]


@pytest.mark.parametrize("dom", DOMAINS, ids=lambda d: d.spec)
def test_projection_certificate(dom):
    """⟨y − p, z − p⟩ ≤ 0 for every z ∈ K; the LMO gives the worst z, so one inequality certifies p."""
    rng = np.random.default_rng(22)
    y = rng.normal(size=(50, 4)) * 3
    p = dom.project(y)
    assert np.all(dom.contains(p))
    r = y - p
    worst = np.einsum("ri,ri->r", r, dom.lmo(-r) - p)
    assert worst.max() <= 1e-12 * max(1.0, np.abs(y).max())


def test_lmo_matches_vertex_enumeration():
    rng = np.random.default_rng(23)
    g = rng.normal(size=(20, 4))
    box = Box(4, -0.5, 1.0)
    corners = np.array(list(itertools.product((-0.5, 1.0), repeat=4)))
    assert np.allclose(np.einsum("ri,ri->r", g, box.lmo(g)), (g @ corners.T).min(axis=1))
    cs = CappedSimplex(4, 0.4, 1.0)
    verts = np.array([p for p in itertools.permutations([0.4, 0.4, 0.2, 0.0])])
    assert np.allclose(np.einsum("ri,ri->r", g, cs.lmo(g)), (g @ verts.T).min(axis=1))
    assert np.allclose(np.einsum("ri,ri->r", g, Simplex(4).lmo(g)), g.min(axis=1))
    assert np.allclose(np.einsum("ri,ri->r", g, Ball(4, 2.0).lmo(g)), -2.0 * np.linalg.norm(g, axis=1))


@pytest.mark.parametrize("spec", ["spectraplex", "fantope:2", "capped-density:2"])
def test_spectral_projection_certificate_and_lmo(spec):
    """theory §2 certificate λ_max(Y − P) ≤ ⟨Y − P, P⟩ (spectraplex), generally ⟨Y−P, P⟩ ≥ max_Z ⟨Y−P, Z⟩."""
    dom = make_domain(spec, 4)
    rng = np.random.default_rng(24)
    Y = rng.normal(size=(10, 4, 4))
    Y = Y + np.swapaxes(Y, 1, 2)
    P = dom.project(Y)
    assert np.all(dom.contains(P))
    Pd = P.dense()
    resid = Y - Pd
    lhs = np.einsum("rij,rij->r", resid, Pd)
    worst = np.einsum("rij,rij->r", resid, dom.lmo(-resid).dense())
    assert np.all(worst <= lhs + 1e-10)
    if spec == "spectraplex":
        assert np.all(np.linalg.eigvalsh(resid)[:, -1] <= lhs + 1e-10)
    # spectral LMO = sum of the smallest eigenvalues (weighted by the base vertex)
    evals = np.linalg.eigvalsh(Y)
    want = np.einsum("ri,ri->r", evals, dom.base.lmo(evals))
    assert np.allclose(np.einsum("rij,rij->r", Y, dom.lmo(Y).dense()), want)


def test_entropy_projection_onto_capped_simplex_matches_brute_force():
    """argmin KL(p‖q): enumerate the capped set C; p = cap on C, τq elsewhere; keep the feasible minimiser."""
    cap, total, n = 0.3, 1.0, 5
    rng = np.random.default_rng(25)
    for q in rng.random((20, n)) ** 3 + 1e-3:
        best, best_kl = None, np.inf
        for C in itertools.product((False, True), repeat=n):
            C = np.array(C)
            if C.all():
                continue
            tau = (total - cap * C.sum()) / q[~C].sum()
            p = np.where(C, cap, tau * q)
            if tau <= 0 or p.max() > cap + 1e-12:
                continue
            kl = np.sum(p * np.log(p / q)) - p.sum() + q.sum()
            if kl < best_kl:
                best, best_kl = p, kl
        got = capped_entropy_projection(q[None], cap, total)[0]
        assert np.abs(got - best).max() < 1e-12


def test_log_barrier_solve_kkt():
    """argmin −⟨θ,x⟩ − Σ log x on Δ: 1/x_i + θ_i is constant (the multiplier β), x > 0, Σx = 1."""
    rng = np.random.default_rng(26)
    theta = rng.normal(size=(10, 6)) * 5
    x = mirror_solve(get_mirror("log-barrier"), theta, Simplex(6))
    assert np.all(x > 0) and np.allclose(x.sum(axis=1), 1, atol=1e-14)
    beta = 1 / x + theta
    assert np.abs(beta - beta[:, :1]).max() < 1e-9 * np.abs(beta).max()


def test_systematic_sampling_inclusion_probabilities_exact():
    """P(i taken) = p_i: integrate the piecewise-constant selection over u ∈ [0, 1) exactly."""
    rng = np.random.default_rng(27)
    p = CappedSimplex(6, 1.0, 3.0).project(rng.normal(size=(1, 6)))
    cum = np.cumsum(p[0])
    breaks = np.unique(np.concatenate([[0.0, 1.0], np.mod(cum, 1.0)]))
    incl = np.zeros(6)
    for lo, hi in zip(breaks[:-1], breaks[1:], strict=True):
        idx = systematic_sample(p, np.array([0.5 * (lo + hi)]))[0]
        assert len(set(idx)) == 3
        incl[idx] += hi - lo
    assert np.abs(incl - p[0]).max() < 1e-12


def test_bad_domain_input():
    with pytest.raises(UnknownNameError, match="did you mean 'simplex'"):
        make_domain("simplx", 3)
    with pytest.raises(DomainError, match="entropy"):
        get_mirror("entropy").check(Ball(3), "ftrl")
    with pytest.raises(DomainError, match="integer 1 ≤ k < d"):
        make_domain("fantope:5", 4)
    with pytest.raises(DomainError, match="no linear minimisation oracle"):
        make_domain("euclidean", 3).lmo(np.ones((1, 3)))


def test_capped_projection_of_a_row_does_not_depend_on_the_rows_beside_it():
    """The bisection closes each row's bracket on its own: a row projected among others is bit for bit the row
    projected alone.  Before, every row bisected until the last one closed, and a row whose entries sit within
    rounding of the cap (as an iterate near the capped-simplex face does) came out capped otherwise.  The first
    five rows are the iterates of pca-compression's delay-copies run (R = 5, seed 7, round 9) that showed it."""
    near_cap = [[0.10979518159404555, 0.251523620534553, 0.5653862743815836, 0.823294923489818, 0.9374999999999996,
                 0.9374999999999998, 0.9375, 0.9375000000000006],
                [-0.29014857009555683, 0.4803299619157308, 0.7016977789249859, 0.8581208292548392,
                 0.9374999999999997, 0.9375000000000001, 0.9375000000000003, 0.9375000000000004],
                [-0.3559865491120173, 0.43687081287035645, 0.7942892225643756, 0.9040622553007637,
                 0.9301910645941303, 0.9301910645941304, 0.9301910645941306, 0.9301910645941307],
                [-0.28069791791460186, 0.4306440012374593, 0.7569806086083737, 0.8430733080687692,
                 0.9374999999999998, 0.9374999999999998, 0.9375, 0.9375000000000002],
                [-0.28941782547291917, 0.5380339078118611, 0.6060373046534526, 0.8953466130076043, 0.9375, 0.9375,
                 0.9375000000000004, 0.9375000000000008]]
    rs = np.random.default_rng(11)
    y = np.concatenate([near_cap, rs.normal(size=(60, 8)) * 10.0 ** rs.uniform(-3, 3, size=(60, 1))])
    dom = CappedSimplex(8, cap=1.0, total=6.0)
    together = dom.project(y)
    alone = np.stack([dom.project(row[None])[0] for row in y])
    np.testing.assert_array_equal(together, alone)
    np.testing.assert_array_equal(dom.project(y[:5])[0], dom.project(y[:1])[0])
    np.testing.assert_allclose(together.sum(axis=1), 6.0, rtol=1e-12)
