"""The experiment protocol, over every registered run kind (onlinelab.experiment.kinds), through the command line.

For each kind, with its own tiny ``example()`` config (a new kind is covered by registering it):
1. a run's ``config.toml`` run again gives the same metrics bit for bit (wall-clock metrics aside), and a sweep
   cell equals the plain run of the cell's ``config.toml`` — or the sweep is refused with exit status 2;
2. compare of two runs works, or is refused with exit status 2 naming the kind;
3. ``onlinelab report`` and ``load_run`` work and give the kind's Result class;
4. a config whose every unit of work is refused (``refused_example()``) exits 2 with the reasons, writing nothing.
Then the seams that once gave wrong answers: a regret sweep's ``[delay]``, ``[run] comparator`` and
``[arrivals]`` take effect in every cell (compared with the same run without them).
"""
import contextlib
import io

import pandas as pd
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.experiment.kinds import kinds
from onlinelab.runs.tomlio import dump_toml

KINDS = sorted(kinds())


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _toml(path, data: dict):
    path.write_text(dump_toml(data))
    return path


def timeless(kind, metrics: pd.DataFrame) -> pd.DataFrame:
    """The metrics but the kind's wall-clock ones (they differ between any two runs of one config)."""
    return metrics[~metrics.metric.isin(kind.wall_clock)].reset_index(drop=True)


def _same_run(kind, a, b) -> None:
    pd.testing.assert_frame_equal(timeless(kind, pd.read_parquet(a / "metrics.parquet")),
                                  timeless(kind, pd.read_parquet(b / "metrics.parquet")), check_exact=True)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """``made(key)``: the run directory of the kind's example (run once per module) and the folder it sits in."""
    done = {}

    def make(key):
        if key not in done:
            root = tmp_path_factory.mktemp(key)
            status, _, err = _cli("run", _toml(root / "example.toml", kinds()[key].example()), "--out", root / "a",
                                  "--quiet")
            assert status == 0, err
            done[key] = (root / "a", root)
        return done[key]
    return make


def test_every_kind_is_one_declared_object_with_an_example():
    assert {"regret", "game", "manifold", "embedding", "bregman"} <= set(KINDS)
    for key, kind in kinds().items():
        assert kind.key == key and (kind.table == key or kind.table is None)
        assert isinstance(kind.example(), dict) and isinstance(kind.refused_example(), dict)


@pytest.mark.parametrize("key", KINDS)
def test_the_written_config_reruns_bit_for_bit(key, made):
    kind = kinds()[key]
    first, root = made(key)
    status, _, err = _cli("run", first / "config.toml", "--out", root / "again", "--quiet")
    assert status == 0, err
    _same_run(kind, first, root / "again")
    assert (root / "again" / "config.toml").read_text() == (first / "config.toml").read_text()  # nothing dropped
    assert ol.load_run(first).meta["kind"] == key


@pytest.mark.parametrize("key", KINDS)
def test_a_sweep_cell_is_the_plain_run_of_its_config(key, made, tmp_path):
    kind = kinds()[key]
    first, _ = made(key)
    seed = ol.load_run(first).meta["config"]["run"]["seed"]   # the example's own seed, and another
    base = {**kind.example(), "sweep": {"seed": [seed, 11]}}
    status, out, err = _cli("sweep", _toml(tmp_path / "sweep.toml", base), "--out", tmp_path / "s", "--quiet")
    if not kind.supports("sweep"):
        assert status == 2 and f"sweep is not supported for {kind.label()} runs: " in err
        return
    assert status == 0, err
    cells = sorted((tmp_path / "s" / "cells").iterdir())
    assert len(cells) == 2 and "sweep directory" in out
    for i, cell in enumerate(cells):  # (a sweep pins each learner's label, so a cell is not the example's run)
        status, _, err = _cli("run", cell / "config.toml", "--out", tmp_path / f"plain{i}", "--quiet")
        assert status == 0, err
        _same_run(kind, cell, tmp_path / f"plain{i}")
        assert type(ol.load_run(cell)) is kind.result_class()
    table = pd.read_parquet(tmp_path / "s" / "sweep.parquet")
    assert set(table.seed) == {seed, 11}


@pytest.mark.parametrize("key", KINDS)
def test_compare_of_two_runs_works_or_is_refused_naming_the_kind(key, made, tmp_path):
    kind = kinds()[key]
    first, root = made(key)
    status, _, err = _cli("run", root / "example.toml", "--out", tmp_path / "other", "--seed", 9, "--quiet")
    assert status == 0, err
    status, out, err = _cli("compare", first, tmp_path / "other", "--plot", tmp_path / "cmp.png")
    if kind.supports("compare"):
        assert status == 0, err
        assert "a" in out.split() and "other" in out.split() and (tmp_path / "cmp.png").stat().st_size > 0
    else:
        assert status == 2 and f"compare is not supported for {kind.label()} runs: " in err
        assert not (tmp_path / "cmp.png").exists()


def test_compare_refuses_runs_of_two_kinds(made):
    game, _ = made("game")
    regret, _ = made("regret")
    status, _, err = _cli("compare", game, regret)
    assert status == 2 and "compare needs runs of one kind" in err and "[game]" in err and "regret" in err


@pytest.mark.parametrize("key", KINDS)
def test_report_and_load_run_give_the_kinds_result_class(key, made):
    kind = kinds()[key]
    first, _ = made(key)
    back = ol.load_run(first)
    assert type(back) is kind.result_class()
    status, out, err = _cli("report", first)
    assert status == 0, err
    assert out.splitlines()[0] == "status: complete" and back.summary_text().splitlines()[0] in out


@pytest.mark.parametrize("key", KINDS)
def test_a_config_whose_every_unit_is_refused_exits_2_with_the_reasons(key, tmp_path):
    kind = kinds()[key]
    status, out, err = _cli("run", _toml(tmp_path / "bad.toml", kind.refused_example()), "--out", tmp_path / "r",
                            "--quiet")
    assert status == 2 and err.startswith("error: ") and len(err) > 60, err
    assert not (tmp_path / "r").exists() and "run directory" not in out


def test_every_refused_manifold_fit_is_named():
    kind = kinds()["manifold"]
    with pytest.raises(ol.errors.ConfigError, match=r"every unit of work .* refused \(4 of 4\).*raise n_neighbors"):
        kind.outcome(kind.refused_example())


def test_resume_is_refused_where_a_kind_cannot_resume(made):
    for key, kind in kinds().items():
        first, _ = made(key)
        status, out, _ = _cli("resume", first)  # complete: nothing to do, for every kind
        assert status == 0 and "run directory" in out
        if not kind.supports("resume"):
            with pytest.raises(ol.errors.ConfigError, match=rf"resume is not supported for \[{key}\] runs"):
                kind.resume(first)
            status, _, err = _cli("run", first / "config.toml", "--out", first.parent / "ck", "--quiet",
                                  "--checkpoint-every", 5)
            assert status == 2 and "resume is not supported" in err


REGRET = {"run": {"name": "seam", "rounds": 30, "replicates": 2, "checkpoints": 5},
          "environments": [{"name": "spiked-covariance", "d": 3}], "learners": [{"name": "meg"}]}
STREAM = {"run": {"name": "seam-arrivals", "rounds": 40, "replicates": 2, "checkpoints": 4},
          "environments": [{"name": "spiked-stream", "d": 5, "k": 1}], "learners": [{"name": "oja", "qr": "block"}]}


@pytest.mark.parametrize("base, extra", [
    (REGRET, {"delay": {"kind": "fixed", "d": 5}}),
    (REGRET, {"run": {**REGRET["run"], "comparator": "truth"}}),
    (STREAM, {"arrivals": {"rate": 2.0, "service": 0.1, "overhead": 1.0}}),
], ids=["delay", "comparator", "arrivals"])
def test_a_regret_sweep_cell_keeps_its_delay_comparator_and_arrivals(base, extra, tmp_path):
    kind = kinds()["regret"]
    config = {**base, **extra}
    status, _, err = _cli("sweep", _toml(tmp_path / "s.toml", {**config, "sweep": {"seed": [4]}}), "--out",
                          tmp_path / "s", "--quiet")
    assert status == 0, err
    cell = next((tmp_path / "s" / "cells").iterdir())
    for key, table in extra.items():
        assert ol.load_run(cell).meta["config"][key].items() >= table.items()  # the cell's config.toml shows it
    assert _cli("run", cell / "config.toml", "--out", tmp_path / "plain", "--quiet")[0] == 0
    _same_run(kind, cell, tmp_path / "plain")                                   # ... and the cell ran it
    without = {**base, "run": {**base["run"], "seed": 4}}
    assert _cli("run", _toml(tmp_path / "w.toml", without), "--out", tmp_path / "without", "--quiet")[0] == 0
    a = timeless(kind, pd.read_parquet(cell / "metrics.parquet"))
    b = timeless(kind, pd.read_parquet(tmp_path / "without" / "metrics.parquet"))
    assert not (a.shape == b.shape and a.equals(b))                              # it took effect


def test_a_swept_delay_takes_effect_in_each_cell():
    res = ol.sweep({**REGRET, "delay": {"kind": "fixed", "d": 0}}, {"delay.d": [0, 6]})
    final = res.final().groupby("delay.d")["value"].mean()
    assert final[0] != final[6]
    plain = ol.simulate(ol.make_environment("spiked-covariance", d=3), {"meg": ol.make_learner("meg")}, T=30,
                        replicates=2, checkpoints=5, delay={"kind": "fixed", "d": 6})
    assert final[6] == plain.final().mean()


def test_a_kind_registered_as_a_bare_function_runs_and_refuses_what_it_does_not_declare(monkeypatch):
    from onlinelab.experiment import kinds as K
    monkeypatch.setattr(K, "_KINDS", dict(K._KINDS))
    kind = K.register_run_kind("bare", "onlinelab.experiment.kinds.game:run_outcome")  # runs a [game] table's config
    assert K.kind_of({"bare": {}}) is kind and [f for f in ("sweep", "compare", "resume") if kind.supports(f)] == []
    with pytest.raises(ol.errors.ConfigError, match=r"sweep is not supported for \[bare\] runs: .*register a RunKind"):
        ol.sweep({"bare": {}}, {"seed": [0, 1]})
    out = kind.outcome({"game": {"recovery": "gd", "n": 2}}, rounds=8, replicates=1)  # its function runs the config
    assert out.result.meta["kind"] == "bare" and out.resolved["run"]["rounds"] == 8
