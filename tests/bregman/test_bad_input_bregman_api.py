"""Bad input to the Bregman Python API (issue 20, item 5): the solvers and the instance generators refuse each
row with an onlinelab.errors exception naming the argument, the value and the fix — ``accelerated="false"`` is
refused, not read as true; a rank larger than the matrix and a size that cannot fit are refused before drawing."""
import numpy as np
import pytest

from onlinelab.bregman.completion import complete_matrix, complete_stream
from onlinelab.bregman.composite import Lasso, prox_gradient
from onlinelab.bregman.data import low_rank, low_rank_plus_sparse
from onlinelab.bregman.rpca import robust_pca
from onlinelab.core import sizes
from onlinelab.errors import ConfigError, ConfigTypeError


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


XR = low_rank_plus_sparse(10, 8, 2)[0]
OBSERVED = np.where(np.eye(4, dtype=bool)[None], 1.0, np.nan)

TABLE = [
    ("robust_pca accelerated=\"false\"", lambda: robust_pca(XR, None, None, "false", 10), ConfigTypeError,
     r"^accelerated must be true or false, got 'false' \(str\) \(a string: 'false' would read as true\); write "
     r"accelerated = false \(a boolean, no quotes\)$"),
    ("complete_matrix accelerated=\"no\"", lambda: complete_matrix(OBSERVED, None, None, "no", 10), ConfigTypeError,
     r"accelerated must be true or false, got 'no'"),
    ("complete_stream accelerated=\"yes\"", lambda: complete_stream(low_rank(6, 6, 2), 5, 50.0, 10,
                                                                    accelerated="yes"),
     ConfigTypeError, r"accelerated must be true or false, got 'yes' .* write accelerated = true"),
    ("prox_gradient accelerated=\"false\"", lambda: prox_gradient(Lasso.diabetes(alpha=1.0), 10,
                                                                  accelerated="false"),
     ConfigTypeError, r"accelerated must be true or false, got 'false'"),
    ("a rank larger than the matrix", lambda: low_rank(4, 3, 5), ConfigError,
     r"^rank = 5 is larger than the matrix: an n × s = 4 × 3 matrix has rank at most 3; pick rank <= 3"),
    ("a rank larger than the matrix, with outliers", lambda: low_rank_plus_sparse(5, 6, rank=9), ConfigError,
     r"rank = 9 is larger than the matrix: an n × s = 5 × 6 matrix has rank at most 5"),
    ("n × s too large", lambda: low_rank(10 ** 6, 10 ** 6, 2), ConfigError,
     r"^replicates × n × s gives arrays of 1 × 1000000 × 1000000 entries, about 96 TB of memory, more than this "
     r"machine's 64 GB; lower n, s or replicates$"),
    ("iterations = 0", lambda: robust_pca(XR, None, None, True, 0), ConfigError, r"iters must be >= 1, got 0"),
    ("a step above its limit", lambda: robust_pca(XR, None, None, True, 10, tau=5), ConfigError,
     r"tau = 5\.0 is above its limit 0\.5"),
    ("NaN data", lambda: robust_pca(np.full((1, 4, 4), np.nan), None, None, True, 10), ConfigError,
     r"X has a non-finite entry at \(0, 0, 0\) \(nan\)"),
    ("nothing observed", lambda: complete_matrix(np.full((1, 4, 4), np.nan), None, None, True, 10), ConfigError,
     r"mask observes no entry \(replicate 0\)"),
    ("batch = 0", lambda: complete_stream(low_rank(6, 6, 2), 0, 50.0, 10), ConfigError, r"batch must be >= 1, got 0"),
    ("a negative step", lambda: prox_gradient(Lasso.diabetes(alpha=1.0), 10, step=-1), ConfigError,
     r"step must be > 0, got -1\.0"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_bad_input_to_the_bregman_api(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_accelerated_false_runs_the_plain_method():
    """The boolean decides the method: False is ISTA, True is FISTA (the string "false" used to give FISTA)."""
    _, plain = prox_gradient(Lasso.diabetes(alpha=1.0), 5, accelerated=False)
    _, fast = prox_gradient(Lasso.diabetes(alpha=1.0), 5, accelerated=np.bool_(True))
    assert list(plain.metrics.learner.unique()) == ["ista"]
    assert list(fast.metrics.learner.unique()) == ["fista-recursive"]
