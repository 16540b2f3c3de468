"""The fingerprint that binds a checkpoint to its run, and the check ``onlinelab resume`` makes with it.

A durable run's checkpoint (and each finished environment it keeps in ``parts/``) carries the fingerprint of
the run that wrote it: the sha256 of a canonical JSON form of the resolved config (``config.toml`` as read
back), the seed, the horizon T, the replicates, the learners (labels and parameters), the environments
(names and parameters) and the onlinelab version, together with those fields themselves.  Resume recomputes
the fingerprint from the run directory's ``config.toml`` and refuses any state whose fingerprint differs,
naming the first field that differs (``seed: checkpoint 1, run 0``): a checkpoint copied in from another run,
one with other learners, or a config edited between the kill and the resume would otherwise give numbers that
belong to neither run (docs/guide/sweeps-and-durability.md, "What resume checks").

Checkpoints written before fingerprints existed carry none; resume checks what they do record (the learner
labels of their slots) and warns that their seed and parameters could not be checked.

>>> cfg = {"run": {"seed": 0, "rounds": 50, "replicates": 2}, "learners": [{"name": "meg", "label": "meg"}],
...        "environments": [{"name": "spiked-covariance", "d": 3}]}
>>> mine = fingerprint(cfg)
>>> other = fingerprint({**cfg, "run": {**cfg["run"], "seed": 1}})
>>> difference(other["fields"], mine["fields"])
'seed: checkpoint 1, run 0'
>>> len(mine["sha256"]), difference(mine["fields"], mine["fields"]) is None
(64, True)
"""
from __future__ import annotations

import hashlib
import json
import math
import pathlib
import warnings

from onlinelab._version import __version__
from onlinelab.errors import StorageError

FIELDS = ("version", "seed", "T", "replicates", "learners", "environments", "config")
_ABSENT = object()


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)


def _labels(tables, key: str) -> list:
    return [t.get(key, t.get("name")) if isinstance(t, dict) else t for t in tables]


def fingerprint(config: dict) -> dict:
    """``{"sha256", "fields"}`` of the run whose resolved config (``config.toml`` as read back) is ``config``.

    Parameters
    ----------
    config : dict
        The resolved config.
    """
    run = config.get("run") if isinstance(config.get("run"), dict) else {}
    learners = config.get("learners") if isinstance(config.get("learners"), list) else []
    environments = config.get("environments") if isinstance(config.get("environments"), list) else []
    fields = {"version": __version__, "seed": run.get("seed"), "T": run.get("rounds"),
              "replicates": run.get("replicates"), "learners": learners, "environments": environments,
              "config": config}
    return {"sha256": hashlib.sha256(_canonical(fields).encode("ascii")).hexdigest(), "fields": fields}


def _show(value) -> str:
    return "absent" if value is _ABSENT else f"{value!r:.120}"


def _first(a, b, path: str):
    """``(path, a's value, b's value)`` where ``a`` and ``b`` first differ, None when they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            found = _first(a.get(key, _ABSENT), b.get(key, _ABSENT), f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    same = a is b or (a is not _ABSENT and b is not _ABSENT and _canonical(a) == _canonical(b))
    if same or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)):
        return None
    return path, a, b


def difference(saved: dict, current: dict) -> str | None:
    """The first field in which the fingerprint fields ``saved`` (the checkpoint's) and ``current`` (the run's)
    differ, as ``"seed: checkpoint 1, run 0"``; None when they agree.

    Parameters
    ----------
    saved, current : dict
        The ``fields`` of two fingerprints.
    """
    for name in FIELDS:
        a, b = saved.get(name, _ABSENT), current.get(name, _ABSENT)
        if name in ("learners", "environments") and isinstance(a, list) and isinstance(b, list):
            key = "label" if name == "learners" else "name"
            if _labels(a, key) != _labels(b, key):
                return f"{name}: checkpoint {_labels(a, key)!r}, run {_labels(b, key)!r}"
            tags = [f"{name}[{label!r}]" for label in _labels(a, key)]
            for tag, x, y in zip(tags, a, b, strict=True):
                found = _first(x, y, tag)
                if found is not None:
                    return f"{found[0]}: checkpoint {_show(found[1])}, run {_show(found[2])}"
            continue
        found = _first(a, b, name)
        if found is not None:
            return f"{found[0]}: checkpoint {_show(found[1])}, run {_show(found[2])}"
    return None


def _refuse(where: str, why: str, run_dir: pathlib.Path):
    fix = ("resume it with the onlinelab version that wrote it" if why.startswith("version:") else
           f"put back the run's own config.toml and checkpoint, or start afresh with `onlinelab run "
           f"{run_dir / 'config.toml'} --out NEW_DIR`")
    raise StorageError(f"{where} belongs to another run than {str(run_dir)!r} ({why}); resume refuses to continue a "
                       f"run from foreign state: {fix}")


def _check(saved, current: dict, where: str, run_dir: pathlib.Path) -> bool:
    """Check one fingerprint record (``saved``, None for state written before fingerprints); True when checked."""
    if saved is None:
        return False
    if not (isinstance(saved, dict) and isinstance(saved.get("sha256"), str) and isinstance(saved.get("fields"), dict)):
        raise StorageError(f"{where} has a damaged fingerprint ({saved!r:.80}); it was not written by onlinelab")
    if saved["sha256"] == current["sha256"]:
        return True
    why = difference(saved["fields"], current["fields"])
    if why is None:
        raise StorageError(f"{where}'s fingerprint does not match the fields it records; the checkpoint is damaged")
    _refuse(where, why, run_dir)


def bind(run_dir, config: dict, checkpoint: str = "checkpoint.npz", parts: str = "parts") -> dict:
    """Refuse the saved state of ``run_dir`` (its checkpoint and finished parts) unless it was written by the run
    whose resolved config is ``config``; return that run's fingerprint, for the checkpoints still to come.

    A checkpoint or part without a fingerprint (written before they existed) is checked for its learner labels
    only, with a warning.

    Parameters
    ----------
    run_dir : str or path-like
        The run directory.
    config : dict
        Its ``config.toml``, as read back.
    checkpoint, parts : str
        The names of the checkpoint file and of the folder of finished environments in it.
    """
    from onlinelab.runs.checkpoint import load_state, read_header
    from onlinelab.runs.storage import read_json
    run_dir = pathlib.Path(run_dir)
    current = fingerprint(config)
    labels = _labels(current["fields"]["learners"], "label")
    unchecked = []
    for part in sorted((run_dir / parts).glob("*.json")) if (run_dir / parts).is_dir() else []:
        doc = read_json(part)
        if not _check(doc.get("fingerprint"), current, repr(str(part)), run_dir):
            found = list(doc.get("meta", {}).get("learners", {})) if isinstance(doc.get("meta"), dict) else []
            if found != labels:
                _refuse(repr(str(part)), f"learners: checkpoint {found!r}, run {labels!r}", run_dir)
            unchecked.append(part.name)
    path = run_dir / checkpoint
    if path.is_file() and not _check(read_header(path).get("fingerprint"), current, repr(str(path)), run_dir):
        state = load_state(path)
        loop = state.get("loop") if isinstance(state, dict) else None
        slots = loop.get("slots") if isinstance(loop, dict) else None
        found = [getattr(s, "label", None) for s in slots] if isinstance(slots, list) else []
        if found != labels:
            _refuse(repr(str(path)), f"learners: checkpoint {found!r}, run {labels!r}", run_dir)
        unchecked.append(checkpoint)
    if unchecked:
        warnings.warn(f"{', '.join(unchecked)} in {str(run_dir)!r} predate run fingerprints: resume checked their "
                      "learner labels only, not their seed or parameters", UserWarning, stacklevel=2)
    return current
