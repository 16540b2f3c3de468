"""Figures fit for a paper, checked on their artists: legend outside the axes, one style per bound, labelled axes,
T/R/d/seed in titles, bands with replicates, n/a bounds hidden unless asked, streams against samples, games."""
import matplotlib
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

import onlinelab as ol
from onlinelab.bounds.base import Bound
from onlinelab.games.recoveries import make_recovery, play_recovery
from onlinelab.runs.game_result import GameResult, game_frame
from onlinelab.runs.report import plot_regret

T, R, SEED = 60, 3, 4
LEARNERS = ("meg", "ftl", "logdet-omd")
ENVS = ("spiked-covariance", "switching")


@pytest.fixture(scope="module")
def run():
    return ol.simulate(list(ENVS), [ol.make_learner(n) for n in LEARNERS], T=T, replicates=R, seed=SEED)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _legend(fig):
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    assert len(legends) == 1, "one legend per figure"
    return legends[0]


def assert_legend_outside(fig):
    fig.canvas.draw()                      # lay out, then compare extents in display coordinates
    box = _legend(fig).get_window_extent()
    for ax in fig.axes:
        assert not _overlaps(box, ax.get_window_extent()), "the legend covers an axes"


def _bound_lines(ax):
    return [ln for ln in ax.get_lines() if ": " in ln.get_label()]


def test_plot_returns_figure_and_axes_array_with_labels_titles_and_outside_legend(run):
    fig, axes = run.plot()
    assert isinstance(fig, matplotlib.figure.Figure) and isinstance(axes, np.ndarray) and axes.shape == (2,)
    for ax, env in zip(axes, ENVS, strict=True):
        assert ax.get_xlabel() == "round t" and ax.get_ylabel() == "regret"
        d = ol.make_environment(env).d
        title = ax.get_title()
        for part in (env, f"T = {T}", f"R = {R}", f"d = {d}", f"seed = {SEED}"):
            assert part in title
    assert_legend_outside(fig)
    fig2, axes2 = plot_regret(run, environment="switching")
    assert axes2.shape == (1,) and "switching" in axes2[0].get_title()


def test_one_style_per_bound_in_its_learners_colour(run):
    fig, axes = run.plot(show_na=True)
    style_of = {}
    for ax in axes:
        colour = {ln.get_label(): ln.get_color() for ln in ax.get_lines() if ": " not in ln.get_label()}
        for ln in _bound_lines(ax):
            learner, bound = ln.get_label().split(": ", 1)
            bound = bound.split(" (n/a")[0]
            assert ln.get_color() == colour[learner], "a bound is drawn in its learner's colour"
            style = (str(ln.get_linestyle()), ln.get_marker())
            assert style_of.setdefault(bound, style) == style, "one bound, one style on every panel"
    assert len(set(style_of.values())) == len(style_of) >= 3, "distinct bounds, distinct styles"
    assert all(ls != "-" for ls, _ in style_of.values()), "bounds are never drawn solid like the regret"


def test_na_bounds_hidden_unless_asked(run):
    b = run.bounds()
    assert (~b.holds).any() and b.holds.any()   # this run has both kinds
    for show_na, expected in ((False, b[b.holds]), (True, b)):
        fig, axes = run.plot(show_na=show_na)
        for ax, env in zip(axes, ENVS, strict=True):
            drawn = {ln.get_label().split(" (n/a")[0] for ln in _bound_lines(ax)}
            rows = expected[expected.environment == env]
            assert drawn == {f"{r.learner}: {r.bound}" for r in rows.itertuples()}
            faint = [ln for ln in _bound_lines(ax) if "(n/a" in ln.get_label()]
            assert len(faint) == (0 if not show_na else int((~rows.holds).sum()))


def test_bands_on_every_curve_with_replicates(run):
    fig, axes = run.plot()
    for ax in axes:
        assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == len(LEARNERS)
    assert any("1.96 SE over 3 replicates" in t.get_text() for t in _legend(fig).get_texts())
    single = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, replicates=1)
    fig, axes = single.plot()
    assert not [c for c in axes[0].collections if isinstance(c, PolyCollection)]


def test_band_is_mean_pm_196_standard_errors():
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, replicates=5, seed=1)
    fig, axes = res.plot()
    band = next(c for c in axes[0].collections if isinstance(c, PolyCollection))
    m = res.metrics[res.metrics.metric == "regret"].pivot_table(index="t", columns="replicate", values="value")
    hi = m.mean(axis=1) + 1.96 * m.std(axis=1, ddof=1) / np.sqrt(5)   # plain reference: mean + 1.96 s/√R
    top = band.get_paths()[0].vertices
    for t, v in hi.items():
        assert np.isclose(top[:, 1], max(v, 1e-12), rtol=1e-3).any(), f"upper edge at t = {t}"


def test_streams_are_drawn_against_samples():
    env = ol.make_environment("spiked-stream", d=6, k=1, block=4)
    res = ol.simulate(env, [ol.make_learner("oja", k=1)], T=30, replicates=2, seed=0)
    fig, axes = res.plot(metric="sin2_theta")
    t = np.sort(res.metrics[res.metrics.metric == "sin2_theta"].t.unique())
    x = axes[0].get_lines()[0].get_xdata()
    assert np.array_equal(np.asarray(x, float), 4.0 * t[t > 0])
    assert axes[0].get_xlabel().startswith("samples n = 4·t") and axes[0].get_ylabel() == "sin2_theta"


def test_tidy_table_has_a_holds_column(run):
    tidy = run.tidy()
    assert len(tidy) == len(run.metrics) and (tidy[run.metrics.columns] == run.metrics).all().all()
    for b in run.bounds().itertuples():
        rows = tidy[(tidy.learner == b.learner) & (tidy.environment == b.environment)
                    & (tidy.metric == f"bound:{b.bound}")]
        assert len(rows) and (rows.holds == b.holds).all()
    assert tidy[tidy.metric == "regret"].holds.isna().all()


def test_game_plot_has_ylabel_bands_every_rate_curve_and_outside_legend():
    res = play_recovery(make_recovery("gd", n=3, T=64), T=64, replicates=3, seed=2)
    fig, axes = res.plot()
    ax = axes[0]
    assert axes.shape == (1,) and ax.get_xlabel() == "round t" and ax.get_ylabel()
    for part in ("T = 64", "R = 3", "d = 3", "seed = 2"):
        assert part in ax.get_title()
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 3     # subopt, gap, regret
    rates = {ln.get_label().rsplit(": ", 1)[1] for ln in ax.get_lines() if ln.get_label().startswith("rate")}
    assert rates == {b["name"] for b in res.meta["bounds"]} and len(rates) == 2
    styles = {(str(ln.get_linestyle()), ln.get_marker()) for ln in ax.get_lines() if ln.get_label().startswith("rate")}
    assert len(styles) == 2
    assert_legend_outside(fig)


def test_nesterov_reference_curve_is_L_dist_sq_over_t_sq():
    rec = make_recovery("nesterov", n=8, T=50)
    res = play_recovery(rec, T=50)
    A, b = rec.f.A, rec.f.b
    xstar = -np.linalg.solve(A, b)          # the unconstrained minimiser; the ball (radius 100) does not bind
    L = np.linalg.eigvalsh(A).max()
    fig, axes = res.plot()
    line = next(ln for ln in axes[0].get_lines() if "nesterov" in ln.get_label())
    assert line.get_label().startswith("reference (constant unconfirmed): ")
    t = np.asarray(line.get_xdata(), float)
    # cond(A) = 1e9: solve to ~1e-7
    np.testing.assert_allclose(line.get_ydata(), L * (xstar @ xstar) / t ** 2, rtol=1e-5)
    row = res.meta["bounds"][0]
    assert row["reference"] and row["holds"] and not row["violated"] and row["assumptions"]
    assert res.summary().bound[0] is None    # a reference is never the table's bound


def test_a_reference_rate_is_never_a_violation():
    rows = {"suboptimality": [np.array([0.5, 0.7])]}
    for reference, violated in ((False, True), (True, False)):
        curve = Bound("c", "test", "0.1", {}, lambda s: np.full((2, 1), 0.1), pointwise=True, reference=reference)
        res = GameResult(game_frame("x vs y", "f", [10], rows, [curve]), {"T": 10, "replicates": 2}, [curve])
        assert res.meta["bounds"][0]["violated"] is violated


def test_game_na_rate_curves_hidden_unless_asked():
    rows = {m: [np.array([0.5, 0.7])] for m in ("suboptimality", "gap", "regret")}
    ok = Bound("ok", "test", "1", {"a": True}, lambda s: np.full((2, 1), 1.0), pointwise=True)
    na = Bound("na", "test", "1", {"a": False}, lambda s: np.full((2, 1), 2.0), pointwise=True)
    meta = {"T": 10, "replicates": 2, "seed": 0, "environments": {"f": {"d": 2}}}
    res = GameResult(game_frame("x vs y", "f", [10], rows, [ok, na]), meta, [ok, na])
    for show_na, names in ((False, {"ok"}), (True, {"ok", "na (n/a)"})):
        fig, axes = res.plot(show_na=show_na)
        assert {ln.get_label().rsplit(": ", 1)[1] for ln in axes[0].get_lines() if ": " in ln.get_label()} == names


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")
