"""Nothing runs on load (issue 20): hostile run directories and checkpoints never execute anything.

Every hostile file here tries to leave a marker file: a plugin file named by ``config.toml`` and ``meta.json``
(with its correct sha256, so only the user's consent stands in its way) writes it when imported, and a crafted
``checkpoint.npz`` names ``os.system``, ``subprocess.call``, ``eval`` … through onlinelab modules that import
them (the decoder used to check only the module, then follow attributes), under current and legacy module
paths, with a shell command or Python code that would create the marker.  Hypothesis draws the directories;
``load_run``, ``onlinelab report``, ``compare`` and ``resume`` (and the decoder itself) read them, and the marker
never appears.  What they raise is an onlinelab error, never a crash.
"""
from __future__ import annotations

import hashlib
import io
import json
import pathlib
import shutil
import tempfile

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from onlinelab.cli import main
from onlinelab.errors import OnlinelabError, StorageError
from onlinelab.experiment import durable as D
from onlinelab.experiment.default import run_experiment
from onlinelab.experiment.runner import compare_dirs, load_report, resume_dir
from onlinelab.runs import _fingerprint as F
from onlinelab.runs.checkpoint import load_state
from onlinelab.runs.load import load_run
from onlinelab.runs.tomlio import read_toml

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
CONFIG = """
[run]
name = "hostile"
seed = 0
rounds = 6
replicates = 1
checkpoints = 2
{plugins}
[[environments]]
name = "spiked-covariance"
d = 2

[[learners]]
name = "meg"
label = "meg"
"""
EVIL = 'import pathlib\npathlib.Path({marker!r}).write_text("plugin ran")\n'
# modules that import os, subprocess or numpy, under current and pre-0.2 (legacy) paths, and the attributes
# that reach a callable through them
MODULES = ["onlinelab.runs.checkpoint", "onlinelab.checkpoint", "onlinelab.runs.storage", "onlinelab.storage",
           "onlinelab.core.rng", "onlinelab.rng", "os", "posix", "subprocess", "builtins", "numpy", "shutil"]
ATTRIBUTES = ["os.system", "system", "subprocess.call", "call", "subprocess.Popen", "Popen", "os.popen", "eval",
              "exec", "__builtins__.eval", "shutil.rmtree", "np.lib.npyio.load", "BatchRNG.from_seed.__globals__"]
TAGS = ["__object__", "__namedtuple__", "__function__", "__generator__"]


def payloads(marker: pathlib.Path) -> list:
    return [f"touch {marker}", ["touch", str(marker)], f"open({str(marker)!r}, 'w').write('code ran')"]


def npz(document) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, __state__=np.frombuffer(json.dumps(document).encode("utf8"), dtype=np.uint8))
    return buf.getvalue()


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """A finished tiny run: its metrics.parquet and meta.json are what hostile directories start from."""
    tmp = tmp_path_factory.mktemp("real")
    (tmp / "config.toml").write_text(CONFIG.format(plugins=""))
    _, path = run_experiment(read_toml(tmp / "config.toml"), out=tmp / "run", checkpoint_seconds=None)
    return path


@st.composite
def crafted_node(draw, marker: pathlib.Path):
    name = draw(st.one_of(st.builds("{}:{}".format, st.sampled_from(MODULES), st.sampled_from(ATTRIBUTES)),
                          st.text(max_size=40)))
    payload = draw(st.sampled_from(payloads(marker)))
    node = {"__id__": 0, draw(st.sampled_from(TAGS)): name, "fields": [payload], "attrs": [["x", payload]],
            "state": {"seed": payload}}
    return draw(st.sampled_from([node, {"__id__": 1, "__list__": [node]},
                                 {"__id__": 1, "__dict__": [["env", "spiked-covariance"], ["loop", node]]}]))


@st.composite
def hostile_dir(draw, root: pathlib.Path, real_run: pathlib.Path):
    """A run directory drawn from hostile parts; returns its path."""
    marker = root / "MARKER"
    run = root / "run"
    run.mkdir()
    evil = root / "evil.py"
    evil.write_text(EVIL.format(marker=str(marker)))
    named = draw(st.sampled_from([str(evil), "evil.py", "../evil.py"]))
    plugins = f"plugins = [{named!r}]\n".replace("'", '"') if draw(st.booleans()) else ""
    (run / "config.toml").write_text(CONFIG.format(plugins=plugins))
    meta = json.loads((real_run / "meta.json").read_text())
    meta["status"] = draw(st.sampled_from(["running", "failed: RunInterrupted: SIGTERM stopped the run", "complete"]))
    kind = draw(st.sampled_from([None, "regret", "evil-kind", "onlinelab.runs.storage:subprocess.call"]))
    if kind is None:
        meta.pop("kind", None)
    else:
        meta["kind"] = kind
    sha = hashlib.sha256(evil.read_bytes()).hexdigest()
    if draw(st.booleans()):
        meta["plugins"] = [{"given": named, "path": str(evil), "sha256": draw(st.sampled_from([sha, "0" * 64])),
                            "copy": "plugins/evil.py"}]
        (run / "plugins").mkdir()
        shutil.copy(evil, run / "plugins" / "evil.py")
    (run / "meta.json").write_text(json.dumps(meta))
    if meta["status"] == "complete" or draw(st.booleans()):
        shutil.copy(real_run / "metrics.parquet", run / "metrics.parquet")
    shape = draw(st.sampled_from(["none", "crafted", "crafted-with-fingerprint", "junk"]))
    if shape == "junk":
        (run / "checkpoint.npz").write_bytes(draw(st.binary(max_size=200)))
    elif shape != "none":
        header = {"fingerprint": F.fingerprint(read_toml(run / "config.toml"))} if shape.endswith("print") else {}
        (run / "checkpoint.npz").write_bytes(npz({"format": 1, "header": header,
                                                  "state": draw(crafted_node(marker))}))
    return run


def read_every_way(run: pathlib.Path, other: pathlib.Path, plot: pathlib.Path) -> list[BaseException]:
    """load_run, report, compare, resume (CLI route and Python) and the decoder on ``run``; what each raised."""
    calls = [lambda: load_run(run), lambda: load_report(run), lambda: compare_dirs([run, other], plot=plot),
             lambda: resume_dir(run), lambda: D.resume_run(run)]
    if (run / "checkpoint.npz").is_file():
        calls.append(lambda: load_state(run / "checkpoint.npz"))
    raised = []
    for call in calls:
        try:
            call()
        except Exception as exc:  # noqa: BLE001 — collected and checked below
            raised.append(exc)
    return raised


@SETTINGS
@given(data=st.data())
def test_hostile_run_directories_never_execute_anything(real, data):
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        run = data.draw(hostile_dir(root, real))
        raised = read_every_way(run, real, root / "compare.png")
        assert not (root / "MARKER").exists(), "reading a hostile run directory executed its code"
        crashes = [exc for exc in raised if not isinstance(exc, OnlinelabError)]
        assert not crashes, f"not an onlinelab error: {crashes[0]!r}"


@SETTINGS
@given(data=st.data())
def test_crafted_checkpoints_are_refused_by_name(data):
    with tempfile.TemporaryDirectory() as tmp:
        marker = pathlib.Path(tmp) / "MARKER"
        node = data.draw(crafted_node(marker))
        with pytest.raises(StorageError) as err:
            load_state(io.BytesIO(npz({"format": 1, "state": node})))
        assert not marker.exists()
        assert "not on the checkpoint allowlist" in str(err.value) or "damaged" in str(err.value)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["__id__", "__ref__", "__list__", "__dict__", "__tuple__", "__set__",
                                         "__deque__", "maxlen", "__array__", "__objarray__", "shape", "__float__",
                                         "__npscalar__", "__seedseq__", "frozen", "fields", "attrs", *TAGS]),
                        inner, max_size=4), max_leaves=20)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(state=JSON)
def test_any_state_document_loads_or_is_a_storage_error(state):
    try:
        load_state(io.BytesIO(npz({"format": 1, "state": state})))
    except StorageError:
        pass


def test_the_issue_s_attack_is_refused_and_names_the_entry(tmp_path):
    marker = tmp_path / "MARKER"
    for name in ("onlinelab.runs.checkpoint:os.system", "onlinelab.checkpoint:os.system",
                 "onlinelab.core.base:os.system"):
        doc = {"format": 1, "state": {"__id__": 0, "__namedtuple__": name, "fields": [f"touch {marker}"]}}
        with pytest.raises(StorageError, match=rf"names '{name}' as a named tuple, which is not on the checkpoint "
                                               "allowlist"):
            load_state(io.BytesIO(npz(doc)))
    assert not marker.exists()


def test_an_allowed_name_of_the_wrong_kind_is_refused():
    ok = "onlinelab.core.rng:BatchRNG"
    for tag, what in (("__function__", "function"), ("__namedtuple__", "named tuple"), ("__generator__",
                                                                                        "bit generator")):
        with pytest.raises(StorageError, match=rf"'{ok}' as a {what}, which is not on the checkpoint allowlist"):
            load_state(io.BytesIO(npz({"format": 1, "state": {"__id__": 0, tag: ok, "fields": []}})))


def test_a_run_made_with_plugins_is_not_resumed_without_consent(real, tmp_path, capsys):
    """The CLI's refusal names both ways to opt in, and neither report nor compare nor resume runs the file."""
    marker = tmp_path / "MARKER"
    evil = tmp_path / "evil.py"
    evil.write_text(EVIL.format(marker=str(marker)))
    run = tmp_path / "run"
    shutil.copytree(real, run)
    meta = json.loads((run / "meta.json").read_text())
    meta.update(status="running", plugins=[{"given": "evil.py", "path": str(evil), "copy": "plugins/evil.py",
                                            "sha256": hashlib.sha256(evil.read_bytes()).hexdigest()}])
    (run / "meta.json").write_text(json.dumps(meta))
    (run / "metrics.parquet").unlink()
    assert main(["resume", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"was made with the plugin file(s) {str(evil)!r}" in err
    assert f"onlinelab resume {run} --trust" in err and f"onlinelab --plugins {evil} resume {run}" in err
    assert main(["report", str(real)]) == 0 and main(["compare", str(real), str(real), "--plot",
                                                      str(tmp_path / "c.png")]) == 0
    assert not marker.exists()


def test_with_consent_a_run_made_with_plugins_resumes(real, tmp_path, capsys):
    """``--plugins`` naming the recorded file (the sha256 still checked) is consent, and so is ``--trust``."""
    plain = tmp_path / "plain.py"
    plain.write_text("X = 1\n")  # registers nothing: the run's learners are built-ins
    for i, argv in enumerate((lambda run: ["--plugins", str(plain), "resume", str(run), "--quiet"],
                              lambda run: ["resume", str(run), "--quiet", "--trust"])):
        run = tmp_path / f"run{i}"
        shutil.copytree(real, run)
        meta = json.loads((run / "meta.json").read_text())
        meta.update(status="running", plugins=[{"given": "plain.py", "path": str(plain), "copy": "plugins/plain.py",
                                                "sha256": hashlib.sha256(plain.read_bytes()).hexdigest()}])
        (run / "meta.json").write_text(json.dumps(meta))
        (run / "metrics.parquet").unlink()
        code = main(argv(run))
        assert code == 0, capsys.readouterr().err
        assert load_run(run).meta["status"] == "complete"
