"""The tidy table of a run is the same whichever way its string columns are built."""
import numpy as np
import pandas as pd
import pytest

from onlinelab.runs import result


def _naive(learner, env, t, arrays):
    """The table built the plain way: Python strings repeated row by row."""
    rows = []
    for name, arr in arrays.items():
        for c, tc in enumerate(t):
            for r in range(arr.shape[1]):
                rows.append((learner, env, r, int(tc), name, float(arr[c, r])))
    return pd.DataFrame(rows, columns=result.COLUMNS)


@pytest.mark.parametrize("fast", [True, False])
def test_frame_equals_the_row_by_row_table(fast, monkeypatch):
    if not fast:   # the path for a pandas whose string columns are not pyarrow-backed
        monkeypatch.setattr(result, "_STR", [np.dtype(object)])
    rs = np.random.default_rng(0)
    arrays = {"regret": rs.random((4, 3)), "pulls_0": rs.random((4, 3)), "bound:ucb1 (Auer et al.)": rs.random((4, 3))}
    got = result._frame("ucb1 ü", "bernoulli-arms", np.array([1, 10, 100, 1000]), arrays)
    want = _naive("ucb1 ü", "bernoulli-arms", [1, 10, 100, 1000], arrays)
    if fast:
        pd.testing.assert_frame_equal(got, want)
    else:
        assert got.astype({"learner": str, "environment": str, "metric": str}).equals(want)
