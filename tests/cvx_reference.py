"""cvxpy for the tests that check a solution against an independent convex solve.

cvxpy is in the test extra, so CI runs these tests. An install without it still collects every test
module: only a test that needs cvxpy is skipped, saying how to install it; the module's other tests run.
"""
import pytest

# Clarabel (bundled with cvxpy) to a 1e-10 duality gap; each test states what that gap implies for its tolerance.
SOLVER = dict(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)


def cvxpy():
    """The cvxpy module, or skip the calling test where it is not installed."""
    return pytest.importorskip("cvxpy", reason="cvxpy is in the test extra: pip install -e '.[test]'")
