"""Checkpoint files without pickle: a state graph as JSON structure plus an ``.npz`` of its arrays.

A run's whole state — learner states (NamedTuples or dataclasses of arrays), environments,
random generators and their block buffers, loss trackers and recorders — is walked once:
arrays go to the ``.npz`` file, everything else to a JSON document stored beside them in the
same file, so one ``os.replace`` makes a checkpoint appear whole or not at all.  Objects
are rebuilt by class name, looked up in an explicit allowlist (`onlinelab.runs._allowlist`:
onlinelab's loop-state classes, registered learners and environments, the classes a plugin's module
defines or hands to `register_checkpoint_class`, numpy's bit generators).  A name that is not
on it is refused, whatever module it claims: decoding never imports a module or follows an attribute
that the file names, so loading a checkpoint never runs code a file chose (which unpickling would).
Beside the state, a checkpoint carries a small *header* (`read_header`), which a durable run uses
for the fingerprint that binds the checkpoint to its run (`onlinelab.runs._fingerprint`).

Shared references survive the round trip (a memo keyed by ``id``): a learner's
`onlinelab.core.rng.BatchRNG` and the buffers that draw from its generators still share
one generator after loading, which is what makes a resumed run bit-identical.

>>> import io, numpy as np
>>> from onlinelab.core.rng import BatchRNG
>>> rng = BatchRNG.from_seed(0, "learner", "meg", replicates=2)
>>> _ = rng.random(3)
>>> buf = io.BytesIO(); save_state(buf, {"rng": rng, "t": 7})
>>> back = load_state(io.BytesIO(buf.getvalue()))
>>> back["t"], bool(np.array_equal(back["rng"].random(600), rng.random(600)))
(7, True)
"""
from __future__ import annotations

import collections
import io
import json
import os
import pathlib
import types

import numpy as np

from onlinelab.errors import StorageError
from onlinelab.runs._allowlist import BIT_GENERATORS, allowed, qualified, register_checkpoint_class
from onlinelab.runs.legacy import renamed

FORMAT = 1
_STATE_KEY = "__state__"
_SCALARS = (bool, int, float, str, type(None))


class _Encoder:
    def __init__(self):
        self.allowed = allowed()
        self.arrays: dict[str, np.ndarray] = {}
        self.memo: dict[int, int] = {}
        self.keep: list = []  # keep every memoised object alive, so that no id() is reused mid-walk

    def _remember(self, obj) -> int:
        n = len(self.memo)
        self.memo[id(obj)] = n
        self.keep.append(obj)
        return n

    def encode(self, obj, where: str):
        if isinstance(obj, _SCALARS):
            if isinstance(obj, float) and not np.isfinite(obj):
                return {"__float__": repr(obj)}
            return obj
        if id(obj) in self.memo:
            return {"__ref__": self.memo[id(obj)]}
        if isinstance(obj, np.generic):
            return {"__npscalar__": self._array(np.asarray(obj), where)}
        n = self._remember(obj)
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                return {"__id__": n, "__objarray__": [self.encode(x, f"{where}[{i}]") for i, x in
                                                      enumerate(obj.ravel())], "shape": list(obj.shape)}
            return {"__id__": n, "__array__": self._array(obj, where), "ro": not obj.flags.writeable}
        if isinstance(obj, np.random.Generator):
            return {"__id__": n, "__generator__": qualified(type(obj.bit_generator)),
                    "state": obj.bit_generator.state}
        if isinstance(obj, np.random.SeedSequence):
            return {"__id__": n, "__seedseq__": [obj.entropy, list(obj.spawn_key), obj.pool_size,
                                                 obj.n_children_spawned]}
        if isinstance(obj, collections.deque):
            return {"__id__": n, "__deque__": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(obj)],
                    "maxlen": obj.maxlen}
        if isinstance(obj, list):
            return {"__id__": n, "__list__": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(obj)]}
        if isinstance(obj, dict) and type(obj) is dict:
            return {"__id__": n, "__dict__": [[self.encode(k, f"{where} key"), self.encode(x, f"{where}[{k!r}]")]
                                              for k, x in obj.items()]}
        if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return {"__id__": n, "__tuple__": [self.encode(x, f"{where}[{i}]") for i, x in enumerate(obj)]}
        if isinstance(obj, (set, frozenset)):
            return {"__id__": n, "__set__": [self.encode(x, f"{where} item") for x in obj],
                    "frozen": isinstance(obj, frozenset)}
        if isinstance(obj, types.FunctionType) and "<" not in obj.__qualname__:
            return {"__id__": n, "__function__": self._allowed(obj, where, "function")}
        cls = type(obj)
        if cls.__module__ == "builtins" or isinstance(obj, (types.FunctionType, types.MethodType, io.IOBase)):
            raise StorageError(f"cannot checkpoint {where} ({cls.__name__} {obj!r:.60}): only arrays, numbers, "
                               "strings, containers, module-level functions and objects of allowed classes can be "
                               "saved without pickle; store plain data in the state instead (e.g. a module-level "
                               "function rather than a lambda)")
        name = self._allowed(cls, where, "class")
        if hasattr(obj, "_fields"):  # NamedTuple
            return {"__id__": n, "__namedtuple__": name,
                    "fields": [self.encode(getattr(obj, f), f"{where}.{f}") for f in obj._fields]}
        return {"__id__": n, "__object__": name,
                "attrs": [[k, self.encode(x, f"{where}.{k}")] for k, x in _attributes(obj).items()]}

    def _allowed(self, obj, where: str, what: str) -> str:
        """The checkpoint name of ``obj``, refused (before anything is written) when no decoder would accept it."""
        name = qualified(obj)
        if self.allowed.get(name) is not obj:
            raise StorageError(f"cannot checkpoint {where}: its {what} {obj.__qualname__} from module "
                               f"{obj.__module__!r} is not on the checkpoint allowlist, which holds onlinelab's "
                               "loop-state classes, registered learners and environments and what their plugin "
                               "modules define; call onlinelab.runs.checkpoint."
                               f"register_checkpoint_class({obj.__qualname__}) in your plugin, or keep the state in "
                               "arrays and plain containers")
        return name

    def _array(self, arr: np.ndarray, where: str) -> str:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.ascontiguousarray(arr)
        return key


def _attributes(obj) -> dict:
    """An object's saved attributes: its ``__dict__`` and slots, less the names in its class's ``_transient``
    (links the resuming code rebuilds, such as a delayed-feedback channel's link to the simpy loop)."""
    out = dict(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out[name] = getattr(obj, name)
    for name in getattr(type(obj), "_transient", ()):
        out.pop(name, None)
    return out


class _Decoder:
    def __init__(self, arrays, where: str):
        self.arrays, self.where, self.memo = arrays, where, {}
        self.allowed = allowed()

    def lookup(self, name, what: str):
        """The allowed class or function ``name`` names (after the legacy renames), checked to be a ``what``.

        Only a table lookup: nothing named by the file is imported and no attribute of anything is followed.
        """
        if not isinstance(name, str):
            raise StorageError(f"{self.where} is damaged: a {what} is named by {name!r:.80}, not a string")
        table = BIT_GENERATORS if what == "bit generator" else self.allowed
        obj = table.get(renamed(name))
        fits = {"function": lambda o: isinstance(o, types.FunctionType),
                "named tuple": lambda o: isinstance(o, type) and issubclass(o, tuple) and hasattr(o, "_fields"),
                "class": lambda o: isinstance(o, type) and not issubclass(o, tuple),
                "bit generator": lambda o: True}[what]
        if obj is None or not fits(obj):
            raise StorageError(f"{self.where} names {name!r:.120} as a {what}, which is not on the checkpoint "
                               "allowlist (onlinelab's loop-state classes, registered learners and environments, "
                               "what loaded plugins define or register); it was refused, not run. A checkpoint of "
                               "your own plugin's run needs the plugin loaded first (onlinelab resume --trust, or "
                               "--plugins FILE.py)")
        return obj

    def array(self, key):
        if key not in self.arrays:
            raise StorageError(f"{self.where} lacks the array {key!r} its state refers to; the checkpoint is damaged")
        return self.arrays[key]

    def decode(self, node):
        if isinstance(node, _SCALARS):
            return node
        if isinstance(node, list):
            raise StorageError(f"{self.where} is damaged: unexpected bare list in the state")
        if "__ref__" in node:
            return self.memo[node["__ref__"]]
        if "__float__" in node:
            return float(node["__float__"])
        if "__npscalar__" in node:
            return self.array(node["__npscalar__"])[()]
        n = node.get("__id__")
        out = self._build(node)
        if n is not None and n not in self.memo:
            self.memo[n] = out
        return out

    def _shell(self, node, obj):
        self.memo[node["__id__"]] = obj
        return obj

    def _build(self, node):
        if "__array__" in node:
            arr = np.array(self.array(node["__array__"]))
            arr.flags.writeable = not node.get("ro", False)
            return arr
        if "__objarray__" in node:
            return np.array([self.decode(x) for x in node["__objarray__"]] or [], dtype=object).reshape(node["shape"])
        if "__generator__" in node:
            bitgen = self.lookup(node["__generator__"], "bit generator")()
            bitgen.state = node["state"]
            return np.random.Generator(bitgen)
        if "__seedseq__" in node:
            entropy, key, pool, spawned = node["__seedseq__"]
            return np.random.SeedSequence(entropy, spawn_key=tuple(key), pool_size=pool, n_children_spawned=spawned)
        if "__deque__" in node:
            out = self._shell(node, collections.deque(maxlen=node["maxlen"]))
            out.extend(self.decode(x) for x in node["__deque__"])
            return out
        if "__list__" in node:
            out = self._shell(node, [])
            out.extend(self.decode(x) for x in node["__list__"])
            return out
        if "__dict__" in node:
            out = self._shell(node, {})
            for k, x in node["__dict__"]:
                out[self.decode(k)] = self.decode(x)
            return out
        if "__tuple__" in node:
            return tuple(self.decode(x) for x in node["__tuple__"])
        if "__set__" in node:
            items = [self.decode(x) for x in node["__set__"]]
            return frozenset(items) if node["frozen"] else set(items)
        if "__function__" in node:
            return self.lookup(node["__function__"], "function")
        if "__namedtuple__" in node:
            return self.lookup(node["__namedtuple__"], "named tuple")(*[self.decode(x) for x in node["fields"]])
        if "__object__" in node:
            cls = self.lookup(node["__object__"], "class")
            obj = self._shell(node, cls.__new__(cls))
            for k, x in node["attrs"]:
                object.__setattr__(obj, k, self.decode(x))
            return obj
        raise StorageError(f"{self.where} is damaged: unknown entry with keys {sorted(node)[:4]}")


def save_state(target, state, header: dict | None = None) -> None:
    """Write ``state`` (a graph of arrays, containers and allowed objects) to ``target`` (a path or a binary
    file) as one ``.npz``; a path is written to a temporary file and renamed, so it is never half written.

    Parameters
    ----------
    target : str, pathlib.Path or binary file
        Where to write.
    state : object
        What to write.
    header : dict or None, default None
        Plain JSON data stored beside the state and read back, without decoding the state, by
        `read_header` (a durable run keeps its fingerprint there).
    """
    enc = _Encoder()
    doc = json.dumps({"format": FORMAT, "header": header or {}, "state": enc.encode(state, "state")})
    arrays = {**enc.arrays, _STATE_KEY: np.frombuffer(doc.encode("utf8"), dtype=np.uint8)}
    if not isinstance(target, (str, os.PathLike)):
        np.savez(target, **arrays)
        return
    path = pathlib.Path(target)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _document(source) -> tuple[dict, dict, str]:
    """The arrays, the checked state document and the name (for messages) of a checkpoint file."""
    where = repr(str(source)) if isinstance(source, (str, os.PathLike)) else "the checkpoint"
    try:
        with np.load(source, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except Exception as exc:  # zipfile, OSError, ValueError: all mean a damaged or foreign file
        raise StorageError(f"{where} is not a readable checkpoint ({type(exc).__name__}: {exc}); it is truncated "
                           "or damaged") from exc
    if _STATE_KEY not in arrays:
        raise StorageError(f"{where} lacks its state document; it is not an onlinelab checkpoint")
    try:
        doc = json.loads(arrays.pop(_STATE_KEY).tobytes().decode("utf8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise StorageError(f"{where} holds a damaged state document ({type(exc).__name__}: {exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or "state" not in doc:
        raise StorageError(f"{where} has checkpoint format {doc.get('format') if isinstance(doc, dict) else '?'}, "
                           f"expected {FORMAT}; it was written by another version of onlinelab")
    if not isinstance(doc.get("header", {}), dict):
        raise StorageError(f"{where} has a damaged header ({doc['header']!r:.80}); it is not an onlinelab checkpoint")
    return arrays, doc, where


def read_header(source) -> dict:
    """The header `save_state` stored (``{}`` for a checkpoint written without one), state left undecoded.

    Parameters
    ----------
    source : str, pathlib.Path or binary file
        The checkpoint file.
    """
    return _document(source)[1].get("header", {})


def load_state(source):
    """Read the state `save_state` wrote; a damaged file, or one naming a class or function that is not on
    the allowlist, is a `StorageError` naming it.

    Parameters
    ----------
    source : str, pathlib.Path or binary file
        The checkpoint file.
    """
    arrays, doc, where = _document(source)
    try:
        return _Decoder(arrays, where).decode(doc["state"])
    except (AttributeError, KeyError, TypeError, ValueError, IndexError, OverflowError, RecursionError) as exc:
        raise StorageError(f"{where} is damaged: {type(exc).__name__}: {str(exc):.200}") from exc


__all__ = ["load_state", "read_header", "register_checkpoint_class", "save_state"]
