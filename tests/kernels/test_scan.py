"""The one-pass scan of a block of linear losses against numpy's row maxima and extremes, and the block check
that uses it against the numpy check (the same acceptance and the same error messages)."""
import numpy as np
import pytest

from onlinelab.core.blocks import LossBlock
from onlinelab.errors import LossError
from onlinelab.geometry.domains import Simplex
from onlinelab.kernels.rowops import einsum_dot
from onlinelab.kernels.scan import call, scan_rows_into
from onlinelab.kernels.switch import use_compiled
from onlinelab.losses.row_scan import MIN_ROWS, row_scan, row_square_sums
from onlinelab.losses.vector import LinearLoss


def test_scan_is_numpys_row_absmax_min_max_and_square_sums():
    rs = np.random.default_rng(0)
    G = rs.normal(size=(300, 7)) * 10.0 ** rs.uniform(-5, 5, (300, 7))
    G[3, 2], G[9] = -np.inf, 0.0
    G[10, 0] = -0.0
    out, fro = np.empty(300), np.empty(300)
    lo, hi = call(scan_rows_into, G, out, fro)
    np.testing.assert_array_equal(out, np.abs(G).max(axis=1))
    assert (lo, hi) == (G.min(), G.max())
    finite = np.isfinite(G).all(axis=1)
    np.testing.assert_array_equal(fro[finite], np.einsum("ij,ij->i", G, G)[finite])   # einsum's order, exactly
    np.testing.assert_array_equal(row_square_sums(G[finite]), np.einsum("ij,ij->i", G[finite], G[finite]))


@pytest.mark.parametrize("K", [1, 2, 7, 8, 9, 10, 16, 17, 33])
def test_square_sums_follow_einsum_for_every_row_length(K):
    """einsum's lanes change with K (groups of eight, then pairs): the scan matches it at each length."""
    rs = np.random.default_rng(K)
    G = rs.random((MIN_ROWS, K)) * 10.0 ** rs.uniform(-3, 3, (MIN_ROWS, K))
    with use_compiled(True):
        _, _, _, fro = row_scan(G)
    np.testing.assert_array_equal(fro, np.einsum("ij,ij->i", G, G))
    assert float(einsum_dot(G[0].copy(), G[0].copy(), K)) == float(np.einsum("ij,ij->i", G[:1], G[:1])[0])


def test_a_nan_row_reads_nan_as_in_numpy():
    G = np.ones((MIN_ROWS, 3))
    G[5, 1] = np.nan
    with use_compiled(True):
        absmax, lo, hi, _ = row_scan(G)
    want = np.abs(G).max(axis=1)
    assert np.isnan(absmax[5]) and np.array_equal(np.delete(absmax, 5), np.delete(want, 5))
    assert (lo, hi) == (1.0, 1.0)    # NaNs skipped: the row's NaN ‖g‖∞ already fails the bound check


def test_small_losses_and_the_switch_off_take_numpy():
    with use_compiled(True):
        assert row_scan(np.ones((MIN_ROWS - 1, 2)))[1] is None
    with use_compiled(False):
        assert row_scan(np.ones((MIN_ROWS, 2)))[1] is None


@pytest.mark.parametrize("case", ["ok", "negative", "too-large", "nan", "inf"])
def test_block_checks_agree_on_both_paths(case):
    """A 100-round block of 3 replicates × 4 experts, checked with and without the scan: the same outcome,
    and for a bad entry the same message naming the same round and replicate."""
    rs = np.random.default_rng(1)
    rows = rs.random((100, 3, 4))
    bad = {"negative": -0.5, "too-large": 1.5, "nan": np.nan, "inf": np.inf}.get(case)
    if bad is not None:
        rows[61, 2, 1] = bad
    outcomes = []
    for flag in (True, False):
        block = LossBlock.of_rows(LinearLoss, rows.copy(), domain=Simplex(4))
        with use_compiled(flag):
            try:
                block.validate(lambda i: f"round {i + 1}", 3, 4, 1.0, True)
                outcomes.append("accepted")
            except LossError as exc:
                outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] == "accepted") == (case == "ok")
    if case != "ok":
        assert outcomes[0].startswith("round 62")
