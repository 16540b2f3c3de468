"""The building blocks of the simplex, recorder and arms kernels against the numpy operations they repeat.

Every comparison is exact (``assert_array_equal``): the helpers are written in numpy's order of operations
(pairwise sums, einsum's lanes, sequential running sums), and the exp and log are numpy's own loops
(onlinelab.kernels.ufuncs, tested in test_ufuncs.py).
"""

import numpy as np
import pytest

from onlinelab.core.rng import categorical_from
from onlinelab.geometry.domains import Simplex
from onlinelab.geometry.linalg import normalised_inverse, softmax
from onlinelab.geometry.mirror import get_mirror, mirror_step
from onlinelab.kernels import arms as KA
from onlinelab.kernels import recorder as KR
from onlinelab.kernels import rowops, ufuncs


@pytest.fixture(scope="module", autouse=True)
def bound():
    assert rowops.bind() and rowops.bind()     # once per process; a second call is a no-op
    return True


def spread(rs, shape):
    """Positive numbers over six orders of magnitude (so that summation order shows in the last bits)."""
    return rs.random(shape) * 10.0 ** rs.uniform(-3, 3, shape)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 100, 128, 129, 200, 256, 1000, 4097])
def test_pairwise_sum_is_numpys_reduction(n):
    rows = spread(np.random.default_rng(n), (6, n))
    want = np.add.reduce(rows, axis=-1)
    got = [rowops.pairwise_sum(row, 0, n) for row in rows]
    np.testing.assert_array_equal(got, want)
    assert rowops.pairwise_sum(np.concatenate([[5.0], rows[0]]), 1, n) == want[0]    # an offset start


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 10, 16, 17, 33, 64])
def test_einsum_square_sum_is_einsums_order(n):
    rows = spread(np.random.default_rng(n), (6, n))
    np.testing.assert_array_equal([rowops.einsum_square_sum(r, n) for r in rows], np.einsum("ij,ij->i", rows, rows))


@pytest.mark.parametrize("K", [2, 5, 10, 20, 200])
def test_softmax_and_categorical_are_numpys(K):
    rs = np.random.default_rng(K)
    h = rs.normal(size=(8, K)) * 5
    out = np.empty_like(h)
    for r in range(8):
        rowops.softmax_into(h[r], out[r], ufuncs.table())
    np.testing.assert_array_equal(out, softmax(h))
    u = rs.random(8)
    u[0] = np.nextafter(1.0, 0.0)                       # u·total may round to the total: the last index
    assert [rowops.categorical(out[r], u[r]) for r in range(8)] == categorical_from(out, u).tolist()


@pytest.mark.parametrize("d", [2, 3, 10, 17])
def test_logbarrier_solve_is_normalised_inverse(d):
    rs = np.random.default_rng(d)
    a = np.concatenate([spread(rs, (5, d)), -rs.random((5, d))])
    out, work = np.empty(d), np.empty(d)
    for row, want in zip(a, normalised_inverse(a), strict=True):
        rowops.logbarrier_solve_into(row.copy(), out, work)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("name, code", [("entropy", 0), ("log-barrier", 1)])
def test_omd_step_is_mirror_step(name, code):
    rs, d = np.random.default_rng(3), 10
    z = rs.dirichlet(np.full(d, 0.5), size=6) + 1e-9
    z /= z.sum(axis=1, keepdims=True)
    g = spread(rs, (6, d))
    want = mirror_step(get_mirror(name), z, g, 0.07, Simplex(d))
    out, a, work = np.empty(d), np.empty(d), np.empty(d)
    for r in range(6):
        rowops.omd_step_into(code, z[r], g[r], 0.07, a, work, out, ufuncs.table())
        np.testing.assert_array_equal(out, want[r])


def test_running_sums_are_numpys_accumulate():
    rs = np.random.default_rng(1)
    total, rows = spread(rs, 4), spread(rs, (50, 4))
    want = np.add.accumulate(np.concatenate([total[None], rows]), axis=0)[-1]
    assert KR.run(KR.running_into, total, rows)
    np.testing.assert_array_equal(total, want)


@pytest.mark.parametrize("d, coef", [(2, -1.0), (5, 0.3), (16, -2.5)])
def test_rank_one_fold_is_the_running_sum_of_dense_losses(d, coef):
    """The comparator's compiled fold of rank-one losses equals numpy's: FactoredLoss.dense's matrices added to the
    total in round order by np.add.accumulate (the reference; the sum of n calls of SpectralComparator.add)."""
    from onlinelab.losses.matrix import FactoredLoss
    rs, n, R = np.random.default_rng(3), 37, 3
    X, total = spread(rs, (n, R, d)), spread(rs, (R, d, d))
    dense = FactoredLoss(X.reshape(n * R, d, 1), coef=coef).dense().reshape(n, R, d, d)
    want = np.add.accumulate(np.concatenate([total[None], dense]), axis=0)[-1]
    assert KR.run(KR.rank_one_into, total, X, coef)
    np.testing.assert_array_equal(total, want)


@pytest.mark.parametrize("compiled", [True, False])
def test_the_comparator_folds_a_block_as_its_rounds(compiled):
    """SpectralComparator.add_block on a block of rank-one losses (compiled: `rank_one_into`; else the dense running
    sum) equals n calls of `add`, one round at a time (the reference), bit for bit."""
    from onlinelab.core.blocks import LossBlock
    from onlinelab.kernels.switch import use_compiled
    from onlinelab.losses.matrix import FactoredLoss, SpectralComparator
    rs, n, R, d = np.random.default_rng(4), 23, 3, 6
    block = LossBlock.of_rows(FactoredLoss, spread(rs, (n, R, d, 1)), coef=-0.7)
    one, each = SpectralComparator(R, d), SpectralComparator(R, d)
    one.total[...] = each.total[...] = spread(rs, (R, d, d))
    with use_compiled(compiled):
        one.add_block(block)
    for loss in block.rounds:
        each.add(loss)
    np.testing.assert_array_equal(one.total, each.total)


@pytest.mark.parametrize("per_replicate, constant", [(False, False), (True, False), (False, True), (True, True)])
def test_arm_terms_are_the_numpy_terms(per_replicate, constant):
    """The per-arm metrics' kernel against ArmMetrics' numpy terms and running sums (one-hot and mixed plays);
    ``constant``: the same means every round, passed to the kernel as one row (as stochastic arms' are)."""
    from onlinelab.core.arm_metrics import ArmMetrics, _running
    rs, n, R, K = np.random.default_rng(2), 40, 3, 6
    m = rs.random((n, R, K) if per_replicate else (n, K))
    if constant:
        m = np.broadcast_to(m[:1], m.shape).copy()
    m[:, ..., 2] = m.min(axis=-1)                       # ties for the best arm
    p = rs.dirichlet(np.ones(K), size=(n, R))
    p[::3] = np.eye(K)[rs.integers(0, K, (len(p[::3]), R))]
    regret, optimal = ArmMetrics._terms(None, m, p)
    totals = [rs.random(R), rs.random(R), rs.random((R, K))]
    want = [_running(totals[0], regret), _running(totals[1], optimal), _running(totals[2], p)]
    m3 = np.ascontiguousarray(m if per_replicate else m[:, None, :])
    m3 = m3[:1] if constant else m3
    assert KR.run(KR.arm_terms_into, m3, p, *totals)
    for got, w in zip(totals, want, strict=True):
        np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("below", [True, False])
def test_threshold_rows_are_the_comparison(below):
    rs = np.random.default_rng(5)
    u = rs.random((3, 30, 4))[:, 5:25]                  # a strided view, as the environments' chunks are
    th = rs.random((22, 4))                             # one row per round of out: rounds 2 … 21 are written
    for thresholds, per_round in ((th[:1], th[:1]), (th, th[2:])):
        out = np.full((22, 3, 4), -1.0)
        assert KA.threshold_into.call(u, thresholds, below, out, 2)
        want = np.swapaxes((u < per_round) if below else (u >= per_round), 0, 1).astype(float)
        np.testing.assert_array_equal(out[2:], want)
        assert (out[:2] == -1).all()
