"""User learners and environments from a Python file: ``--plugins FILE.py`` and ``[run] plugins = [...]``.

A plugin file is ordinary Python that subclasses :class:`onlinelab.Environment` or
:class:`onlinelab.Learner` and registers the class (``@onlinelab.register_environment("name")``);
loading it makes the name usable in configs and on the command line.  Packages can instead
expose their modules through the entry-point groups ``onlinelab.environments`` /
``onlinelab.learners`` (loaded with the built-ins), and a file dropped into the checkout's
``environments/`` folder is found in an editable install.  A file is loaded once per process,
under a module name derived from its absolute path, so its classes pickle.

>>> import pathlib, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     _ = (pathlib.Path(tmp) / "mine.py").write_text("X = 1")
...     load_plugin_file("mine.py", base=tmp).X
1
"""
from __future__ import annotations

import hashlib
import importlib.util
import pathlib
import sys

from onlinelab.errors import ConfigError, ConfigTypeError


def _module_name(path: pathlib.Path) -> str:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"onlinelab_plugin_{stem}_{digest}"


def load_plugin_file(path, base=None):
    """Import the Python file ``path`` (relative to ``base`` when not absolute) and return its module.

    Parameters
    ----------
    path : str or path-like
        The plugin file (``.py``).
    base : str or path-like or None, default None
        The folder a relative ``path`` is resolved against (a config file's folder); None: the working directory.
    """
    if not isinstance(path, (str, pathlib.PurePath)):
        raise ConfigTypeError(f"a plugin must be the path of a .py file, got {path!r} ({type(path).__name__}); "
                              'write plugins = ["my_envs.py"]')
    given = pathlib.Path(path)
    full = (given if given.is_absolute() else pathlib.Path(base or ".") / given).resolve()
    where = f" (resolved against {str(base)!r})" if base is not None and not given.is_absolute() else ""
    if full.suffix != ".py":
        raise ConfigError(f"plugin {str(path)!r} is not a .py file; pass a Python file that registers learners "
                          "or environments")
    if not full.is_file():
        raise ConfigError(f"plugin file {str(path)!r} does not exist{where}; check the path")
    name = _module_name(full)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(f"plugin file {str(path)!r} failed to load: {type(exc).__name__}: {exc}; "
                          "run it with python to see where (or add --debug)") from exc
    return module


def load_plugins(paths, base=None) -> list:
    """Load every plugin file in ``paths`` (a list, or one path); returns the modules.

    Parameters
    ----------
    paths : list of str, str or None
        Plugin files; None loads nothing.
    base : str or path-like or None, default None
        The folder relative paths are resolved against.
    """
    if paths is None:
        return []
    if isinstance(paths, (str, pathlib.PurePath)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)):
        raise ConfigTypeError(f"plugins must be a list of .py paths, got {paths!r} ({type(paths).__name__}); "
                              'write plugins = ["my_envs.py"]')
    return [load_plugin_file(p, base=base) for p in paths]
