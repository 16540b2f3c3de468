"""Bad input in config tables (issue 20, item 5): one table per surface — ``[manifold]``, ``[embedding]``,
``[bregman]``, ``[game]``, ``[delay]``, ``[arrivals]``, ``[run]`` — each row a config that is refused at parse
time (before a run directory is claimed) with an onlinelab.errors exception naming the field, the value and the
fix; and the command line's exit status 2 for what a run refuses as a whole."""
import pytest

from onlinelab import cli
from onlinelab.core import sizes
from onlinelab.errors import ConfigError, ConfigTypeError, UnknownNameError
from onlinelab.experiment.kinds import kind_of
from onlinelab.runs.tomlio import dump_toml


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


def _parse(data):
    return kind_of(data).parse(data)


def _manifold(**table):
    return {"run": {"name": "m"}, "manifold": {"dataset": "helix", "m": 60, "methods": ["le"], **table}}


MANIFOLD = [
    ("m = 10⁶", _manifold(m=10 ** 6), ConfigError,
     r"^manifold\.m = 1000000 gives arrays of 1000000 × 1000000 entries, about 32 TB of memory, more than this "
     r"machine's 64 GB; lower manifold\.m$"),
    ("m = 1", _manifold(m=1), ConfigError, r"manifold\.m must be >= 2, got 1"),
    ("draws = 0", _manifold(draws=0), ConfigError, r"manifold\.draws must be >= 1, got 0"),
    ("a grid value as a string", _manifold(n_neighbors=["8"]), ConfigTypeError,
     r"manifold\.n_neighbors must hold numbers, got '8' \(str\) for le; write e\.g\. n_neighbors = \[2, 3\]"),
    ("an unknown method", _manifold(methods=["ltsa"]), UnknownNameError, r"manifold\.methods must be one of .*'ltsa'"),
    ("an unknown dataset", _manifold(dataset="swiss"), UnknownNameError, r"dataset must be one of .*'swiss'"),
    ("an unknown key", _manifold(mm=3), UnknownNameError, r"unknown key 'mm' in \[manifold\]"),
    ("more digits than there are", _manifold(dataset="digits", m=5000), ConfigError,
     r"digits has 1797 points, asked for manifold\.m = 5000; use manifold\.m <= 1797"),
]


def _embedding(rounds=20, **table):
    return {"run": {"rounds": rounds}, "embedding": {"data": "gaussian", "points": 8, "d": 4, "n_components": 2,
                                                     **table}}


EMBEDDING = [
    ("10⁶ points", _embedding(points=10 ** 6), ConfigError,
     r"^this run needs about 41 TB of memory \(embedding\.points = 1000000, so 5e\+11 pairs, in dimension 4, "
     r"run\.rounds = 20\), more than this machine's 64 GB; embed fewer points \(lower embedding\.points\)"),
    ("points as a string", _embedding(points="8"), ConfigTypeError, r"embedding\.points must be an integer, got '8'"),
    ("an unknown data source", _embedding(data="mnist"), UnknownNameError, r"embedding\.data must be one of"),
    ("replicates", {**_embedding(), "run": {"replicates": 2}}, ConfigError,
     r"run\.replicates = 2: the embedding game is deterministic; vary the subset with \[run\] seed"),
    ("baselines not a list", _embedding(baselines="pca"), ConfigError, r"embedding\.baselines must be a list"),
    ("a missing file", {"embedding": {"data": "file", "file": "/nonexistent.npy"}}, ConfigError,
     r"embedding\.file must name an existing \.npy or \.csv file"),
]


def _bregman(problem="robust-pca", **table):
    return {"run": {"rounds": 20}, "bregman": {"problem": problem, **table}}


BREGMAN = [
    ("accelerated = \"false\"", _bregman("lasso", accelerated="false"), ConfigTypeError,
     r"^bregman\.accelerated must be true or false, got 'false' \(str\) \(a string: 'false' would read as true\); "
     r"write bregman\.accelerated = false \(a boolean, no quotes\)$"),
    ("accelerated = 1", _bregman("svm-dual", accelerated=1), ConfigTypeError, r"bregman\.accelerated must be true"),
    ("a rank larger than the matrix", _bregman(n=10, s=8, rank=50), ConfigError,
     r"^bregman\.rank = 50 is larger than the matrix: an n × s = 10 × 8 matrix has rank at most 8; pick "
     r"bregman\.rank <= 8"),
    ("completion: rank larger", _bregman("completion", n=6, s=9, rank=7), ConfigError,
     r"bregman\.rank = 7 is larger than the matrix: an n × s = 6 × 9 matrix has rank at most 6"),
    ("n × s too large", _bregman("completion", n=10 ** 5, s=10 ** 5), ConfigError,
     r"^run\.replicates × bregman\.n × bregman\.s gives arrays of 1 × 100000 × 100000 entries, about 960 GB of "
     r"memory, more than this machine's 64 GB; lower bregman\.n, bregman\.s or run\.replicates$"),
    ("a fraction above 1", _bregman("completion", fraction=2), ConfigError,
     r"bregman\.fraction must lie in \[0, 1\], got 2\.0"),
    ("an unknown t_rule", _bregman(t_rule="fast"), UnknownNameError, r"t_rule must be one of 'recursive', 'linear'"),
    ("an unknown problem", _bregman("robust-pcaa"), UnknownNameError, r"did you mean 'robust-pca'"),
    ("batch = 0", _bregman("online-completion", batch=0), ConfigError, r"bregman\.batch must be >= 1, got 0"),
]


def _game(**table):
    return {"run": {"rounds": 10}, "game": {"function": "squared-distance", "n": 3, "x_player": {"name": "omd"},
                                            "y_player": {"name": "ftl"}, **table}}


GAME = [
    ("center of the wrong length", _game(center=[1, 2]), ConfigError,
     r"^game\.center has 2 entries \(shape \(2,\)\) but game\.n = 3; give one number per coordinate, or leave "
     r"center out for the origin$"),
    ("center a string", _game(center="origin"), ConfigTypeError,
     r"game\.center must be a list of 3 numbers \(one per coordinate, game\.n = 3\), got 'origin'"),
    ("center not finite", _game(center=[0, 0, float("nan")]), ConfigError, r"game\.center must be finite"),
    ("n = 10¹²", {"run": {"rounds": 10}, "game": {"recovery": "gd", "n": 10 ** 12}}, ConfigError,
     r"^this run needs about 896 TB of memory \(game\.n = 1000000000000, run\.replicates = 8, run\.rounds = 10\), "
     r"more than this machine's 64 GB; lower game\.n, run\.replicates or run\.rounds$"),
    ("a missing player", {"game": {"function": "squared-distance", "x_player": {"name": "omd"}}}, ConfigError,
     r"\[game\.y_player\] is missing or has no name"),
    ("an unknown function", _game(function="huber"), UnknownNameError, r"game\.function must be one of"),
    ("a callback_timeout", {**_game(), "run": {"callback_timeout": 5}}, UnknownNameError,
     r"unknown key 'callback_timeout'"),
]


def _regret(**tables):
    return {"run": {"rounds": 10, "replicates": 2}, "environments": [{"name": "experts-stochastic", "d": 4}],
            "learners": [{"name": "omd"}], **tables}


def _stream(**tables):
    return {"run": {"rounds": 10}, "environments": [{"name": "spiked-stream", "d": 6, "k": 1}],
            "learners": [{"name": "oja"}], **tables}


DELAY_ARRIVALS_RUN = [
    ("a Poisson mean too large for numpy", _regret(delay={"kind": "random", "distribution": "poisson",
                                                           "mean": 1e300}),
     ConfigError, r"delay\.mean must be ≤ 1e\+15 rounds, got 1e\+300"),
    ("a negative delay", _regret(delay={"kind": "fixed", "d": -2}), ConfigError, r"delay\.d must be ≥ 0"),
    ("an unknown delay kind", _regret(delay={"kind": "fixd"}), UnknownNameError, r"did you mean 'fixed'"),
    ("a delay that is not a table", _regret(delay=3), ConfigTypeError, r"delay must be a table \(\[delay\]\)"),
    ("an unknown adaptive rule", _regret(delay={"kind": "adaptive", "rule": "spiteful"}), UnknownNameError,
     r"delay\.rule must be one of 'confident'"),
    ("arrival rate 0", _stream(arrivals={"rate": 0}), ConfigError, r"arrivals\.rate must be > 0, got 0\.0"),
    ("arrival rate × rounds", {**_stream(arrivals={"rate": 1e9}), "run": {"rounds": 10 ** 6}}, ConfigError,
     r"^this run would take about .* years \(arrivals\.rate × run\.rounds = 1e\+09 × 1e\+06 = 1e\+15 arrivals, "
     r"run\.replicates = 8, d = 6, 1 learner\); lower arrivals\.rate or run\.rounds"),
    ("an unknown take", _stream(arrivals={"rate": 1.0, "take": "all"}), UnknownNameError,
     r"arrivals\.take must be one of 'auto', 'queue', 'one', got 'all'"),
    ("delay and arrivals", _stream(arrivals={"rate": 1.0}, delay={"kind": "fixed", "d": 1}), ConfigError,
     r"a config can hold \[delay\] or \[arrivals\], not both"),
    ("callback_timeout as a string", {**_regret(), "run": {"callback_timeout": "1 minute"}}, ConfigTypeError,
     r"run\.callback_timeout must be a number, got '1 minute' \(str\)"),
    ("callback_timeout negative", {**_regret(), "run": {"callback_timeout": -1}}, ConfigError,
     r"run\.callback_timeout must be a number of seconds > 0, got -1"),
    ("a billion replicates", {**_regret(), "run": {"replicates": 10 ** 9}}, ConfigError,
     r"^this run needs about .* of memory \(run\.replicates = 1000000000, d = 4, 1 learner\)"),
]

TABLES = {"manifold": MANIFOLD, "embedding": EMBEDDING, "bregman": BREGMAN, "game": GAME,
          "delay-arrivals-run": DELAY_ARRIVALS_RUN}
ROWS = [(surface, *row) for surface, rows in TABLES.items() for row in rows]


@pytest.mark.parametrize("data,exc,message", [row[2:] for row in ROWS], ids=[f"{r[0]}: {r[1]}" for r in ROWS])
def test_a_bad_table_is_refused_at_parse_time(data, exc, message):
    with pytest.raises(exc, match=message):
        _parse(data)


def _cli(capsys, tmp_path, data):
    path = tmp_path / "cfg.toml"
    path.write_text(dump_toml(data))
    code = cli.main(["run", str(path), "--out", str(tmp_path / "run")])
    return code, capsys.readouterr().err


def test_a_manifold_run_whose_every_fit_is_refused_exits_2_and_writes_nothing(capsys, tmp_path):
    code, err = _cli(capsys, tmp_path, _manifold(draws=2, methods=["le", "isomap"], n_neighbors=[1]))
    assert code == 2 and not (tmp_path / "run").exists()
    assert err.startswith("error: every unit of work of this [manifold] run was refused (4 of 4), so nothing was "
                          "written: le k=2 t=1 on helix m=60, draw 0: ")


@pytest.mark.parametrize("data,field", [(_bregman("lasso", accelerated="false"), "bregman.accelerated"),
                                        ({"game": {"function": "squared-distance", "n": 3, "center": [1, 2],
                                                   "x_player": "omd", "y_player": "ftl"}}, "game.center"),
                                        (_manifold(m=10 ** 7), "manifold.m")])
def test_the_command_line_exits_2_naming_the_field(capsys, tmp_path, data, field):
    code, err = _cli(capsys, tmp_path, data)
    assert code == 2 and err.startswith(f"error: {field} ") and not (tmp_path / "run").exists()
