"""Names → learner and environment classes, with "did you mean" for unknown names.

Built-ins register themselves when ``onlinelab.learners`` and ``environments`` are
imported (lazily, on the first lookup).  Every module file in the ``environments``
package is imported, so a user's adversary dropped there as a file is found by name;
packages elsewhere can expose theirs through the entry-point groups
``onlinelab.environments`` / ``onlinelab.learners``.

>>> import onlinelab as ol
>>> type(ol.make_learner("meg")).__name__
'MEG'
"""
from __future__ import annotations

import inspect
from importlib import metadata

from onlinelab.errors import ConfigError, UnknownNameError, did_you_mean

_LEARNERS: dict[str, type] = {}
_ENVIRONMENTS: dict[str, type] = {}
_loaded = False
_builtin_loader = None


def set_builtin_loader(load) -> None:
    """Install ``load()``, called once before the first lookup, to import and so register the built-ins.

    The package face (``onlinelab/__init__.py``) installs it, so that this layer never imports the layers
    above it (docs/architecture.md).
    """
    global _builtin_loader
    _builtin_loader = load


def _register(table: dict, kind: str, name: str, cls: type) -> type:
    if not isinstance(name, str) or not name:
        raise ConfigError(f"a {kind} name must be a non-empty string, got {name!r}")
    old = table.get(name)
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
        raise ConfigError(f"{kind} name {name!r} is already taken by {old.__module__}.{old.__qualname__}; "
                          "pick another name")
    cls.name = name
    table[name] = cls
    return cls


def register_learner(name: str):
    """Class decorator: make a `onlinelab.Learner` subclass reachable as ``name``.

    Parameters
    ----------
    name : str
        Registry name (non-empty); re-registering the same class under its name is allowed.
    """
    return lambda cls: _register(_LEARNERS, "learner", name, cls)


def register_environment(name: str):
    """Class decorator: make an `onlinelab.Environment` subclass reachable as ``name``.

    Parameters
    ----------
    name : str
        Registry name (non-empty); re-registering the same class under its name is allowed.
    """
    return lambda cls: _register(_ENVIRONMENTS, "environment", name, cls)


def load_builtins() -> None:
    """Register the built-in learners, environments and run kinds, and those of entry points (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    if _builtin_loader is not None:
        _builtin_loader()
    for group in ("onlinelab.learners", "onlinelab.environments"):
        for ep in metadata.entry_points(group=group):
            ep.load()


def learner_names() -> list[str]:
    """Sorted names of every registered learner (built-ins and entry points included)."""
    load_builtins()
    return sorted(_LEARNERS)


def environment_names() -> list[str]:
    """Sorted names of every registered environment (built-ins and entry points included)."""
    load_builtins()
    return sorted(_ENVIRONMENTS)


def _lookup(table: dict, kind: str, name: str) -> type:
    load_builtins()
    if name not in table:
        raise UnknownNameError(f"unknown {kind} {name!r}{did_you_mean(name, table)}; "
                               "`onlinelab list` prints the registered names")
    return table[name]


def learner_class(name: str) -> type:
    """The class registered as learner ``name`` (an error suggests the closest names).

    Parameters
    ----------
    name : str
        A registered learner name.
    """
    return _lookup(_LEARNERS, "learner", name)


def environment_class(name: str) -> type:
    """The class registered as environment ``name`` (an error suggests the closest names).

    Parameters
    ----------
    name : str
        A registered environment name.
    """
    return _lookup(_ENVIRONMENTS, "environment", name)


def _construct(cls: type, kind: str, name: str, params: dict):
    allowed = cls.param_names()
    for key in params:
        if key not in allowed:
            raise UnknownNameError(f"{kind} {name!r} has no parameter {key!r}{did_you_mean(key, allowed)}")
    return cls(**params)


def make_learner(name: str, **params):
    """Build the registered learner ``name`` with hyper-parameters ``params``.

    Parameters
    ----------
    name : str
        A registered learner name (``onlinelab list`` prints them).
    **params
        Hyper-parameters of the learner's ``__init__``; an unknown one is an error that suggests the
        closest valid name.
    """
    return _construct(learner_class(name), "learner", name, params)


def make_environment(name: str, **params):
    """Build the registered environment ``name`` with parameters ``params``.

    Parameters
    ----------
    name : str
        A registered environment name (``onlinelab list`` prints them).
    **params
        Parameters of the environment's ``__init__``; an unknown one is an error that suggests the
        closest valid name.
    """
    return _construct(environment_class(name), "environment", name, params)


def describe(cls: type) -> str:
    """First line of a class docstring, for ``onlinelab list``.

    Parameters
    ----------
    cls : type
        A learner or environment class.
    """
    doc = inspect.getdoc(cls) or ""
    return doc.splitlines()[0] if doc else ""
