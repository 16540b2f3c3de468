"""Bad input to the manifold Python API (issue 20, item 5): `run_grid` and the estimators refuse each row with an
onlinelab.errors exception naming the argument, the value and the fix; a size is refused with the estimate the
``[manifold]`` table gets (`onlinelab.core.sizes`), before a point is drawn."""
import numpy as np
import pytest

from onlinelab.core import sizes
from onlinelab.errors import ConfigError, ConfigTypeError, DataError, UnknownNameError
from onlinelab.manifold.experiment import run_grid
from onlinelab.manifold.laplacian import LaplacianEigenmaps
from onlinelab.manifold.lle import LocallyLinearEmbedding
from onlinelab.manifold.mds import ClassicalMDS, Isomap


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


X = np.random.default_rng(0).standard_normal((40, 3))

TABLE = [
    ("m = 10⁶", lambda: run_grid("helix", ["le"], m=10 ** 6), ConfigError,
     r"^m = 1000000 gives arrays of 1000000 × 1000000 entries, about 32 TB of memory, more than this machine's "
     r"64 GB; lower m$"),
    ("years of fits", lambda: run_grid("helix", ["le"], m=20000, n_neighbors=list(range(5, 105)), draws=50),
     ConfigError, r"^this run would take about .* \(m = 20000, 5000 fits\); lower m, or fit fewer methods, grid "
                  r"points or draws$"),
    ("more digits than there are", lambda: run_grid("digits", ["pca"], m=5000), ConfigError,
     r"digits has 1797 points, asked for m = 5000; use m <= 1797"),
    ("an unknown method", lambda: run_grid("helix", ["ltsa"], m=50), UnknownNameError, r"method must be one of"),
    ("draws = 0", lambda: run_grid("helix", ["le"], m=50, draws=0), ConfigError, r"draws must be >= 1, got 0"),
    ("a grid value as a string", lambda: run_grid("helix", ["le"], m=50, n_neighbors=["8"]), ConfigTypeError,
     r"manifold\.n_neighbors must hold numbers, got '8' \(str\) for le"),
    ("NaN points", lambda: LaplacianEigenmaps().fit_transform(np.full((10, 3), np.nan)), DataError,
     r"X has NaN or infinite entries in 10 row\(s\) \(first: row 0\); drop or impute them"),
    ("1-D points", lambda: LaplacianEigenmaps().fit_transform(np.ones(10)), DataError,
     r"X must be 2-D \(points as rows\), got shape \(10,\); use X\.reshape\(-1, 1\)"),
    ("n_components as a string", lambda: LaplacianEigenmaps(n_components="2").fit_transform(X), ConfigTypeError,
     r"n_components must be an integer, got '2' \(str\)"),
    ("n_neighbors ≥ m", lambda: LaplacianEigenmaps(n_neighbors=40).fit_transform(X), ConfigError,
     r"n_neighbors must be < the number of points m = 40, got 40; use n_neighbors <= 39"),
    ("unknown weights", lambda: LaplacianEigenmaps(weights="gauss").fit_transform(X), UnknownNameError,
     r"weights must be one of 'heat', 'binary', 'ale', 'vrle', 'precomputed', got 'gauss'"),
    ("a negative regulariser", lambda: LocallyLinearEmbedding(reg=-1).fit_transform(X), ConfigError,
     r"reg must be > 0, got -1\.0"),
    ("Isomap on 10⁶ points", lambda: Isomap().fit_transform(np.zeros((10 ** 6, 2))), ConfigError,
     r"^m = 1000000 points gives arrays of 1000000 × 1000000 entries, about 24 TB of memory, more than this "
     r"machine's 64 GB; embed a subset of the points, or use a method on a sparse neighbour graph \(le, lle\)$"),
    ("classical MDS on 10⁶ points", lambda: ClassicalMDS().fit_transform(np.zeros((10 ** 6, 2))), ConfigError,
     r"^m = 1000000 points gives arrays of 1000000 × 1000000 entries"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_bad_input_to_the_manifold_api(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
