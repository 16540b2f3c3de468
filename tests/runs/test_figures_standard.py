"""Figures to a paper's standard (issue 22), checked on their artists: sweeps never pool distinct configurations,
log axes for geometric grids, bounds drawn, legends outside the axes."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from onlinelab.runs.figures import log_spaced  # noqa: E402
from tests.runs.test_figures import assert_legend_outside  # noqa: E402

ETA, D = "learners.meg.eta", "environments.spiked-covariance.d"


@pytest.mark.parametrize(("grid", "log"), [([0.01, 0.03, 0.1, 0.3, 1.0], True), ([1, 10, 100], True),
                                           ([1, 2, 3, 4], False), ([0.1, 0.5], False), ([1, 100], True),
                                           ([0, 1, 10], False), (["a", "b", "c"], False), ([2.0], False)])
def test_log_spaced_grids(grid, log):
    assert log_spaced(grid) is log


@pytest.fixture(scope="module")
def swept():
    from onlinelab.experiment.sweeps import sweep
    base = {"run": {"rounds": 40, "replicates": 2}, "environments": [{"name": "spiked-covariance", "d": 3}],
            "learners": [{"name": "meg"}]}
    return sweep(base, {ETA: [0.01, 0.1, 1.0], D: [3, 5], "seed": [0, 1]})


def test_sweep_plot_has_one_panel_per_configuration_and_never_pools_them(swept):
    fig, axes = swept.plot(ETA)
    assert axes.shape == (2,)
    final = swept.final()
    for ax, d in zip(axes, (3, 5), strict=True):
        assert f"{D} = {d}" in ax.get_title() and "seeds and replicates pooled" in ax.get_title()
        assert ax.get_xscale() == "log" and ax.get_xlabel() == ETA and ax.get_ylabel().startswith("final regret")
        bars = next(c for c in ax.containers if c.get_label() == "meg")   # errorbar: line, caps, bars
        xs, ys = bars.lines[0].get_data()
        assert list(xs) == [0.01, 0.1, 1.0]
        for x, y in zip(xs, ys, strict=True):  # a plain mean over this configuration's seeds and replicates only
            rows = final[(final[ETA] == x) & (final[D] == d)]
            assert len(rows) == 2 * 2 and y == pytest.approx(rows["value"].mean(), rel=1e-12)
    assert_legend_outside(fig)


def test_sweep_plot_draws_the_bounds_that_hold(swept):
    fig, axes = swept.plot(ETA)
    for ax, d in zip(axes, (3, 5), strict=True):
        bound = next(ln for ln in ax.get_lines() if ln.get_label() == "meg: meg-worst-case (bound)")
        final = swept.final("bound:meg-worst-case")
        for x, y in zip(*bound.get_data(), strict=True):
            assert y == pytest.approx(final[(final[ETA] == x) & (final[D] == d)]["value"].mean(), rel=1e-12)
        for ln in ax.get_lines():   # bounds whose assumptions fail are left out
            assert "(bound)" not in ln.get_label() or swept.table.loc[
                swept.table.metric == "bound:" + ln.get_label().split(": ")[1][:-8], "holds"].all()
    assert np.isfinite(np.asarray(bound.get_data()[1], dtype=float)).all()


def test_sweep_plot_on_a_linear_grid_keeps_a_linear_x_axis(swept):
    fig, axes = swept.plot(D)
    assert axes.shape == (3,) and all(ax.get_xscale() == "linear" for ax in axes)
    assert [f"{ETA} = {eta}" in ax.get_title() for ax, eta in zip(axes, (0.01, 0.1, 1.0), strict=True)] == [True] * 3
