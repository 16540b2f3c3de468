"""The shared memory and time estimate (onlinelab.core.sizes) against its closed forms, and its thresholds."""
import warnings

import pytest

from onlinelab.core import sizes
from onlinelab.core.sizes import (
    FLOPS_PER_S,
    ROUND_OVERHEAD_S,
    Estimate,
    PreflightWarning,
    check_array,
    check_count,
    check_dimension,
    check_estimate,
    regret_estimate,
)
from onlinelab.errors import ConfigError


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


def test_the_regret_estimate_is_its_closed_form():
    d, n, T, R = 12, 3, 700, 5
    est = regret_estimate([(d, True), (40, False)], n_learners=n, T=T, R=R)
    spectral_bytes, vector_bytes = 8 * R * d ** 2 * (4 + 5 * n), 8 * R * 40 * (4 + 5 * n)
    seconds = T * (n + 1) * (R * 15 * d ** 3 / FLOPS_PER_S + ROUND_OVERHEAD_S) \
        + T * (n + 1) * (R * 50 * 40 / FLOPS_PER_S + ROUND_OVERHEAD_S)
    assert est.bytes == max(spectral_bytes, vector_bytes)
    assert est.seconds == pytest.approx(seconds, rel=1e-12)
    assert (est.d, est.spectral) == (40, False)


def test_a_dimension_is_refused_exactly_above_80_percent_of_memory():
    # one replicate, one learner: 8 d² (4 + 5) bytes ≤ 0.8 × 64e9  ⇔  d ≤ √(51.2e9 / 72) = 26666.6…
    assert check_dimension(26666, spectral=True) == 26666
    with pytest.raises(ConfigError, match=r"^d = 26667 is too large: one replicate of one learner already needs "
                                          r"about 51\.2 GB \(26667 × 26667 matrices\), more than this machine's "
                                          r"64 GB; lower d$"):
        check_dimension(26667, spectral=True)
    assert check_dimension(26667, spectral=False) == 26667    # vectors of that length are small


def test_arrays_counts_and_estimates():
    check_array("n × s", (1000, 1000), copies=6.4e3)           # 8 × 6.4e9 = 51.2e9: exactly the limit
    with pytest.raises(ConfigError, match=r"^n × s gives arrays of 1000 × 1000 entries, about 51\.2 GB of memory, "
                                          r"more than this machine's 64 GB; lower n or s$"):
        check_array("n × s", (1000, 1000), copies=6.4001e3, fix="lower n or s")
    check_count("the grid", 10, 10, unit="cells", why="w", fix="f")
    with pytest.raises(ConfigError, match=r"^the grid gives 11 cells, more than 10 \(w\); f$"):
        check_count("the grid", 11, 10, unit="cells", why="w", fix="f")
    with pytest.raises(ConfigError, match=r"^this run would take about 31 days \(x = 1\); lower x$"):
        check_estimate(Estimate(0.0, 31 * 86400.0), sizes="x = 1", fix="lower x")
    with pytest.warns(PreflightWarning, match=r"^this run is estimated to take about 2 hours \(x = 1\)$"):
        check_estimate(Estimate(0.0, 7200.0), sizes="x = 1", fix="lower x")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_estimate(Estimate(1.0, 3599.0), sizes="x = 1", fix="lower x")   # under an hour: silent
