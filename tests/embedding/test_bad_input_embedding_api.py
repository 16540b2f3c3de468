"""Bad input to the embedding Python API (issue 20, item 5): `NearIsometricEmbedding` refuses each row with an
onlinelab.errors exception naming the argument, the value and the fix; too many points are refused with the
estimate the ``[embedding]`` table gets (`onlinelab.core.sizes`), before the pairs are built."""
import numpy as np
import pytest

from onlinelab.core import sizes
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.errors import ConfigError, ConfigTypeError, UnknownNameError


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


X = np.random.default_rng(0).standard_normal((12, 4))

TABLE = [
    ("10⁶ points", lambda: NearIsometricEmbedding(2).fit(np.random.default_rng(0).standard_normal((10 ** 6, 3))),
     ConfigError, r"^this run needs about 33 TB of memory \(points = 1000000, so 5e\+11 pairs, in dimension 3\), more "
                  r"than this machine's 64 GB; embed fewer points \(lower points\) or a subset$"),
    ("n_components as a string", lambda: NearIsometricEmbedding("2").fit(X), ConfigTypeError,
     r"n_components must be an integer, got '2' \(str\)"),
    ("n_components ≥ d", lambda: NearIsometricEmbedding(4).fit(X), ConfigError,
     r"n_components must be below the data's dimension d = 4, got 4; .* pick n_components ≤ 3"),
    ("T = 0", lambda: NearIsometricEmbedding(2, T=0).fit(X), ConfigError, r"T must be >= 1, got 0"),
    ("an unknown step", lambda: NearIsometricEmbedding(2, eta="fast").fit(X), ConfigError,
     r"eta must be 'auto', 'centred' or a positive number, got 'fast'"),
    ("an unknown solver", lambda: NearIsometricEmbedding(2, solver="arpack").fit(X), UnknownNameError,
     r"solver must be one of 'auto', 'dense', 'lobpcg', got 'arpack'"),
    ("NaN points", lambda: NearIsometricEmbedding(2).fit(np.full((5, 3), np.nan)), ConfigError,
     r"points has a non-finite entry .* drop or impute the rows with NaN/inf"),
    ("duplicate points", lambda: NearIsometricEmbedding(2).fit(np.ones((5, 3))), ConfigError,
     r"points has duplicate rows \(0 and 1, and 9 more pairs\).* np\.unique\(points, axis=0\)"),
    ("no points", lambda: NearIsometricEmbedding(2).fit(), ConfigError,
     r"fit needs exactly one of points .* or differences="),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_bad_input_to_the_embedding_api(call, exc, message):
    with pytest.raises(exc, match=message):
        call()
