"""The ``[game]`` config table: describe a Fenchel game in TOML and run it (``onlinelab run game.toml``).

Two forms (theory §3.3–3.5, docs/theory/03-oco-fenchel.md).  A *recovery* by name, with that factory's parameters::

    [run]
    name = "gd-averaging"
    rounds = 1000
    [game]
    recovery = "gd"          # gd | smooth | frank-wolfe | nesterov
    n = 3

Or an explicit game: a function on a domain and two registered learners::

    [game]
    function = "squared-distance"   # squared-distance | norm-distance
    domain = "simplex"
    n = 20
    weights = "linear"
    order = "y-first"
    [game.x_player]
    name = "bestresp+"
    [game.y_player]
    name = "ftl"

Unknown keys are errors with "did you mean"; ``"auto"`` stands for None as elsewhere.

>>> res, cfg = run_game_config({"game": {"recovery": "gd", "n": 2}}, seed=0, rounds=16, replicates=1)
>>> cfg["game"]["recovery"], res.meta["game"]["breaches"]
('gd', [])
"""
from __future__ import annotations

import inspect

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.registry import make_learner
from onlinelab.errors import ConfigError, ConfigTypeError
from onlinelab.experiment.config import AUTO, RUN_KEYS, run_table
from onlinelab.games.game import play_game
from onlinelab.games.recoveries import RECOVERIES, make_recovery, play_recovery
from onlinelab.geometry.specs import make_domain
from onlinelab.losses.fenchel import NormDistance, SquaredDistance

FUNCTIONS = {"squared-distance": SquaredDistance, "norm-distance": NormDistance}
EXPLICIT_KEYS = ("function", "domain", "n", "center", "scale", "weights", "order", "x_player", "y_player")


def _auto(params: dict) -> dict:
    return {k: (None if val == AUTO else val) for k, val in params.items()}


def _player(game: dict, role: str):
    table = game.get(role)
    if not isinstance(table, dict) or "name" not in table:
        raise ConfigError(f"[game.{role}] is missing or has no name; add e.g. [game.{role}] name = \"omd\"")
    params = _auto({k: val for k, val in table.items() if k != "name"})
    return make_learner(table["name"], **params)


def _unflatten(game: dict) -> dict:
    """Accept the resolved form written by :func:`_flat` (``x_player = "omd"``, ``x_player_gamma = 0.1``)."""
    game = dict(game)
    for role in ("x_player", "y_player"):
        if isinstance(game.get(role), str):
            table = {"name": game.pop(role)}
            for key in [k for k in game if k.startswith(role + "_")]:
                table[key[len(role) + 1:]] = game.pop(key)
            game[role] = table
    return game


def _explicit(game: dict, T: int, R: int, seed: int, checkpoints):
    game = _unflatten(game)
    v.known_keys("[game]", game, EXPLICIT_KEYS)
    kind = v.choice("game.function", game.get("function"), tuple(FUNCTIONS))
    n = v.integer("game.n", game.get("n", 10), minimum=1)
    dom = make_domain(game.get("domain", "ball:1"), n)
    center = game.get("center")
    center = np.zeros(n) if center is None else np.asarray(center, dtype=float)
    f = FUNCTIONS[kind](dom, center, v.positive_float("game.scale", game.get("scale", 1.0)))
    return play_game(f, _player(game, "x_player"), _player(game, "y_player"), T=T, replicates=R, seed=seed,
                     weights=game.get("weights", "constant"), order=game.get("order", "x-first"),
                     checkpoints=checkpoints)


def run_game_config(data: dict, *, seed=None, rounds=None, replicates=None):
    """Validate ``data`` (a parsed TOML with a ``[game]`` table), play the game; return ``(result, resolved)``."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
        raise ConfigTypeError("a game config needs a [game] table; see onlinelab.experiment.kinds.game for the two forms")
    v.known_keys("the config's top level", data, ("run", "game"))
    game_keys = {k: val for k, val in RUN_KEYS.items() if k != "comparator"}  # a game has no comparator choice
    run = run_table(data, game_keys, seed=seed, rounds=rounds, replicates=replicates)
    T = v.integer("run.rounds", run["rounds"], minimum=1)
    R = v.integer("run.replicates", run["replicates"], minimum=1)
    seed = v.integer("run.seed", run["seed"], minimum=0)
    game = dict(data["game"])
    if "recovery" in game:
        name = game.pop("recovery")
        factory = RECOVERIES.get(name)
        allowed = [p for p in inspect.signature(factory).parameters if p != "T"] if factory else []
        v.known_keys(f"[game] (recovery {name!r})", game, allowed)
        result = play_recovery(make_recovery(name, T=T, **_auto(game)), T=T, replicates=R, seed=seed,
                               checkpoints=run["checkpoints"])
        game = {"recovery": name, **game}
    else:
        result = _explicit(game, T, R, seed, run["checkpoints"])
    resolved = {"run": {**run, "seed": seed, "rounds": T, "replicates": R}, "game": _flat(game)}
    return result, resolved


def _flat(game: dict) -> dict:
    """``dump_toml`` writes two levels: player tables become ``x_player = "name"`` plus ``x_player.<k>`` keys."""
    out = {}
    for key, val in game.items():
        if isinstance(val, dict):
            for k, x in val.items():
                out[f"{key}_{k}" if k != "name" else key] = x
        else:
            out[key] = val
    return out


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False):
    """The ``[game]`` run kind (:mod:`onlinelab.experiment.kinds`): play, and say what to print."""
    from onlinelab.experiment.kinds import RunOutcome
    result, resolved = run_game_config(data, seed=seed, rounds=rounds, replicates=replicates)
    return RunOutcome(result, resolved, result.summary_text(), result.exit_status())
