"""Which Result class a saved run is read back as: one entry per run kind, filled by the kinds themselves.

A run directory's ``meta.json`` says its kind (``"regret"``, ``"game"``, ``"manifold"``, …); a family's result
class registers under that key with `register_result_class` when its module is imported, so that
`onlinelab.load_run` rebuilds a saved run of every kind without this layer importing the families.

>>> result_class({"kind": "regret"}) is None
True
"""
from __future__ import annotations

from onlinelab.core.registry import load_builtins
from onlinelab.errors import StorageError

_RESULT_CLASSES: dict[str, type] = {}


def register_result_class(key: str, cls: type) -> type:
    """Read saved runs of kind ``key`` back as ``cls(metrics, meta)``; returns ``cls`` (usable as a decorator)."""
    _RESULT_CLASSES[key] = cls
    return cls


def result_class(meta: dict) -> type:
    """The result class of a saved run: its kind's class, None for a regret run (read as `onlinelab.Result`).

    The kind is ``meta["kind"]``; a run saved without one is recognised by its config's table.

    Parameters
    ----------
    meta : dict
        The run's metadata (``meta.json``, with ``config`` when the run has a config.toml).
    """
    load_builtins()
    key = meta.get("kind")
    if key is None and isinstance(meta.get("config"), dict):
        found = [k for k in _RESULT_CLASSES if k in meta["config"]]
        key = found[0] if len(found) == 1 else None
    if key is None or key == "regret":
        return None
    if key not in _RESULT_CLASSES:
        raise StorageError(f"this run is of kind {key!r}, which no loaded code registers (known: "
                           f"{', '.join(sorted(_RESULT_CLASSES))}); load the plugin that registers it "
                           "(--plugins FILE.py)")
    return _RESULT_CLASSES[key]
