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
        drawn = {ln.get_label() for ln in ax.get_lines() if ln.get_label().endswith("(bound)")}
        held = {f"{k[1]}: {k[3][6:]} (bound)" for k, ok in swept.holds.items() if ok}
        failed = {f"{k[1]}: {k[3][6:]} (bound)" for k, ok in swept.holds.items() if not ok}
        assert drawn == held - failed and failed, "a bound whose assumptions fail somewhere is left out"
    assert np.isfinite(np.asarray(bound.get_data()[1], dtype=float)).all()


def test_sweep_plot_on_a_linear_grid_keeps_a_linear_x_axis(swept):
    fig, axes = swept.plot(D)
    assert axes.shape == (3,) and all(ax.get_xscale() == "linear" for ax in axes)
    assert [f"{ETA} = {eta}" in ax.get_title() for ax, eta in zip(axes, (0.01, 0.1, 1.0), strict=True)] == [True] * 3


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    import onlinelab as ol
    from onlinelab.runs.compare import compare
    from onlinelab.runs.storage import save_run
    tmp = tmp_path_factory.mktemp("compare")
    a = ol.simulate(["spiked-covariance", "switching"], [ol.make_learner("meg"), ol.make_learner("ftl")], T=40,
                    replicates=3, seed=1)
    b = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=80, replicates=5, seed=2)
    save_run(a, tmp / "a3", report=False)
    save_run(b, tmp / "b5", report=False)
    return a, compare([tmp / "a3", tmp / "b5"])[1]


def test_compare_plot_is_log_log_with_bounds_per_run_replicates_and_honest_titles(compared):
    a, fig = compared
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["spiked-covariance\nruns: a3, b5", "switching\nruns: a3"]
    assert all(ax.get_xscale() == "log" and ax.get_yscale() == "log" for ax in axes)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "mean ± 1.96 SE over each run's replicates (a3: 3, b5: 5)" in labels   # not 8, the sum
    held = {(b["learner"], b["environment"], b["name"]) for b in a.meta["bounds"] if b["holds"]}
    lines = {ln.get_label(): ln for ln in axes[0].get_lines()}
    for learner, env, name in held:   # every bound that holds in run a3 is drawn, equal to its recorded curve
        if env != "spiked-covariance":
            continue
        ln = lines[f"{learner} [a3: T=40, seed=1]: {name}"]
        expected = a.curve(f"bound:{name}", learner=learner, environment=env)
        np.testing.assert_allclose(ln.get_ydata(), expected["mean"][expected.t > 0], rtol=1e-12)
    assert held and all("[a3" in k or "[b5" in k for k in lines)
    assert_legend_outside(fig)


@pytest.fixture(scope="module")
def na_run():
    import onlinelab as ol
    return ol.simulate("spiked-covariance", [ol.make_learner("meg"), ol.make_learner("logdet-omd")], T=30,
                       replicates=3, seed=3)


def test_na_reasons_go_below_the_figure_not_into_the_legend(na_run):
    failed = na_run.bounds()[~na_run.bounds().holds]
    assert len(failed)
    fig, axes = na_run.plot(show_na=True)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    for _, b in failed.iterrows():
        assert f"{b.learner}: {b.bound} (n/a)" in labels
        assert f"n/a: {b.learner}: {b.bound} on spiked-covariance (failed: {b.failed_assumptions})" in \
            fig._supxlabel.get_text().replace("\n    ", " ")
    assert all("failed" not in label and len(label) < 60 for label in labels)
    fig.canvas.draw()   # the notes sit below the axes and their x label
    assert fig._supxlabel.get_window_extent().y1 <= axes[0].xaxis.label.get_window_extent().y0
    assert_legend_outside(fig)
    fig2, _ = na_run.plot()
    assert fig2._supxlabel is None or not fig2._supxlabel.get_text()


def test_bands_are_visible_and_curves_have_distinct_markers(na_run):
    from matplotlib.collections import PolyCollection
    fig, axes = na_run.plot()
    bands = [c for c in axes[0].collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    for band in bands:
        assert band.get_facecolor()[0][3] >= 0.25 and band.get_linewidth()[0] > 0 and band.get_edgecolor()[0][3] > 0.5
    mains = [ln for ln in axes[0].get_lines() if ln.get_label() in ("meg", "logdet-omd")]
    assert len({ln.get_marker() for ln in mains}) == 2 and len({str(ln.get_markevery()) for ln in mains}) == 2


def test_coinciding_curves_are_named_below_the_figure():
    from onlinelab.runs.figures import coinciding
    x = np.arange(1, 6)
    y = np.sqrt(x)
    assert coinciding({"hedge": (x, y), "omd-entropy": (x, y * (1 + 1e-12)), "ftl": (x, 2 * y)}) == [
        "hedge and omd-entropy coincide (drawn on top of one another; told apart by their markers)"]
    assert coinciding({"a": (x, y), "b": (x, y + 1e-3)}) == []
    assert coinciding({"a": (x, y), "b": (x + 1, y)}) == []   # other abscissae: not the same curve
    assert len(coinciding({"a": (x, y), "b": (x, y), "c": (x, y)})) == 1   # one note for a group of three


def test_robust_pca_counts_on_their_own_linear_axis_and_no_seed_none():
    from onlinelab.bregman import robust_pca
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)) @ rng.normal(size=(2, 15))
    X[rng.random(X.shape) < 0.05] += 5.0
    _, _, res = robust_pca(X, iters=40)
    fig, axes = res.plot()
    main, twin = axes[0], next(ax for ax in fig.axes if ax is not axes[0])
    assert main.get_yscale() == "log" and twin.get_yscale() == "linear"
    assert {ln.get_label() for ln in main.get_lines()}.isdisjoint({"rank", "nnz"})
    assert [ln.get_label() for ln in twin.get_lines()] == ["rank (right axis)", "nnz (right axis)"]
    for ln, m in zip(twin.get_lines(), ("rank", "nnz"), strict=True):   # the counts as logged, zeros kept at 0
        np.testing.assert_array_equal(ln.get_ydata(), res.curve(m)["mean"])
    assert twin.get_ylim()[0] == 0 and "count" in twin.get_ylabel()
    assert main.get_ylim()[0] > 1e-6   # no clipped zeros drag the log axis down to 1e-16
    assert "seed = None" not in main.get_title() and "T = 40" in main.get_title()
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "rank (right axis)" in labels and "nnz (right axis)" in labels
    assert_legend_outside(fig)
