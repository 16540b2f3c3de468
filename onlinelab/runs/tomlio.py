"""TOML in and out of a run directory: read a file (nothing else happens) and write a two-level dict.

Reading never loads plugins or runs code; `onlinelab.experiment.config.load_toml` is the reader of
experiment configs, which also loads the plugin files a config names.

>>> print(dump_toml({"run": {"seed": 0, "name": None}}))
[run]
seed = 0
name = "auto"
<BLANKLINE>
"""
from __future__ import annotations

import pathlib

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from onlinelab.errors import ConfigError, ConfigTypeError

AUTO = "auto"


def read_toml(path) -> dict:
    """Parse the TOML file ``path``; a missing, non-UTF-8 or invalid file is a
    `onlinelab.errors.ConfigError`."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist; pass the path of a TOML file "
                          "(or run `onlinelab run` without one for the default experiment)")
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{str(path)!r} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                          f"{exc.start}); save the file as UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{str(path)!r} is not valid TOML: {exc}") from exc


def _scalar(val) -> str:
    if val is None:
        return f'"{AUTO}"'
    if isinstance(val, bool):
        return "true" if val else "false"
    if isinstance(val, (int, float)):
        return repr(val) if not isinstance(val, float) or val == val else '"nan"'
    if isinstance(val, str):
        return '"' + val.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(val, (list, tuple)):
        return "[" + ", ".join(_scalar(x) for x in val) + "]"
    if hasattr(val, "item"):
        return _scalar(val.item())
    raise ConfigTypeError(f"cannot write {val!r} ({type(val).__name__}) to TOML")


def dump_toml(data: dict) -> str:
    """Write a two-level dict (tables and arrays of tables of scalars/lists) as TOML."""
    lines = []
    for key, val in data.items():
        if isinstance(val, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {_scalar(x)}" for k, x in val.items()]
            lines.append("")
        elif isinstance(val, list) and all(isinstance(x, dict) for x in val):
            for table in val:
                lines.append(f"[[{key}]]")
                lines += [f"{k} = {_scalar(x)}" for k, x in table.items()]
                lines.append("")
        else:
            lines.insert(0, f"{key} = {_scalar(val)}")
    return "\n".join(lines)
