"""The ``[game]`` run kind: describe a Fenchel game in TOML and run it (``onlinelab run game.toml``).

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

Unknown keys are errors with "did you mean"; ``"auto"`` stands for None as elsewhere.  The resolved config
(``config.toml``) writes every default out: the recovery factory's parameters, or the function's, the
domain's and both players' (flattened to ``x_player = "omd"``, ``x_player_eta = …``, which parses back).
A game is a pure function of its config, so sweeps (``[sweep.game] n = [2, 4]``) and compare (the
suboptimality curves overlaid) are supported; it finishes in one go, so there is nothing to resume.

>>> res, cfg = run_game_config({"game": {"recovery": "gd", "n": 2}}, seed=0, rounds=16, replicates=1)
>>> cfg["game"]["recovery"], cfg["game"]["radius"], res.meta["game"]["breaches"]
('gd', 1.0, [])
"""
from __future__ import annotations

import inspect
from types import SimpleNamespace

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.compat import mismatch
from onlinelab.core.registry import learner_class, learner_names, make_learner
from onlinelab.errors import ConfigError, ConfigTypeError, DomainError
from onlinelab.experiment.config import AUTO, RUN_KEYS, run_table
from onlinelab.experiment.kinds.protocol import RunKind, RunOutcome
from onlinelab.games.game import play_game
from onlinelab.games.recoveries import RECOVERIES, listing, make_recovery, play_recovery
from onlinelab.geometry.specs import make_domain
from onlinelab.losses.fenchel import NormDistance, SquaredDistance

FUNCTIONS = {"squared-distance": SquaredDistance, "norm-distance": NormDistance}
EXPLICIT_KEYS = ("function", "domain", "n", "center", "scale", "weights", "order", "x_player", "y_player")
EXPLICIT_DEFAULTS = {"domain": "ball:1", "n": 10, "center": None, "scale": 1.0, "weights": "constant",
                     "order": "x-first"}
ROLES = ("x_player", "y_player")
NO_RESUME = ("a game is written only once it has finished, so there is nothing to resume; run its config.toml "
             "again with `onlinelab run DIR/config.toml`")


def _auto(params: dict) -> dict:
    return {k: (None if val == AUTO else val) for k, val in params.items()}


def _player(game: dict, role: str):
    table = game.get(role)
    if not isinstance(table, dict) or "name" not in table:
        raise ConfigError(f"[game.{role}] is missing or has no name; add e.g. [game.{role}] name = \"omd\"")
    params = _auto({k: val for k, val in table.items() if k != "name"})
    return make_learner(table["name"], **params)


def _unflatten(game: dict) -> dict:
    """Accept the resolved form written by `_flat` (``x_player = "omd"``, ``x_player_gamma = 0.1``)."""
    game = dict(game)
    for role in ROLES:
        if isinstance(game.get(role), str):
            table = {"name": game.pop(role)}
            for key in [k for k in game if k.startswith(role + "_")]:
                table[key[len(role) + 1:]] = game.pop(key)
            game[role] = table
    return game


def _flat(game: dict) -> dict:
    """``dump_toml`` writes two levels: player tables become ``x_player = "name"`` plus ``x_player_<k>`` keys."""
    out = {}
    for key, val in game.items():
        if isinstance(val, dict):
            for k, x in val.items():
                out[f"{key}_{k}" if k != "name" else key] = x
        else:
            out[key] = val
    return out


def _recovery_table(game: dict, T: int) -> dict:
    """``[game]`` of a recovery with every parameter of its factory written out (checked by building it)."""
    name = game.pop("recovery")
    factory = RECOVERIES.get(name)
    params = {p.name: p.default for p in inspect.signature(factory).parameters.values()
              if p.name != "T" and p.default is not inspect.Parameter.empty} if factory else {}
    v.known_keys(f"[game] (recovery {name!r})", game, params)
    table = {**params, **_auto(game)}
    make_recovery(name, T=T, **table)   # unknown recovery, bad values: refused before the run
    return {"recovery": name, **table}


def _check_side(role: str, learner, domain: str) -> None:
    """Refuse a player whose declared decision set (``plays``) is not its side of the game: the x-player plays
    on the function's domain, the y-player on ℝⁿ (theory §3.3)."""
    side = SimpleNamespace(domain=domain, psd=None, adaptive=False, feedback_kinds=("full", "bandit", "first_order"),
                           loss_offers=("linear", "leader"))
    why = mismatch(learner, side)
    if why is not None:
        fit = [n for n in learner_names() if mismatch(learner_class(n), side) is None]
        side_words = f"the {role[0]}-player's side of the game"
        raise DomainError(f"[game.{role}] {learner.name!r} " + why.replace("environment {env}", side_words)
                          + f"; players that fit: {', '.join(fit)}")


def _explicit_table(game: dict) -> dict:
    """``[game]`` of an explicit game with the defaults and both players' parameters written out."""
    game = _unflatten(game)
    v.known_keys("[game]", game, EXPLICIT_KEYS)
    table = {**EXPLICIT_DEFAULTS, **_auto({k: val for k, val in game.items() if k not in ROLES})}
    table["function"] = v.choice("game.function", table.get("function"), tuple(FUNCTIONS))
    f = _function(table)
    for role, domain in zip(ROLES, (f.domain.spec, "euclidean"), strict=True):
        lrn = _player(game, role)
        _check_side(role, lrn, domain)
        table[role] = {"name": game[role]["name"], **lrn.get_params()}
    return table


def _center(value, n: int) -> np.ndarray:
    """``[game] center``: None (the origin) or n finite numbers."""
    if value is None:
        return np.zeros(n)
    if not isinstance(value, (list, tuple, np.ndarray)) or not all(v._is_real(x) for x in np.ravel(value)):
        raise ConfigTypeError(f"game.center must be a list of {n} numbers (one per coordinate, game.n = {n}), got "
                              f"{value!r}; e.g. center = {[0.0] * min(n, 3)}{' …' if n > 3 else ''}")
    center = np.asarray(value, dtype=float)
    if center.shape != (n,):
        raise ConfigError(f"game.center has {center.size} entries (shape {center.shape}) but game.n = {n}; give one "
                          f"number per coordinate, or leave center out for the origin")
    if not np.all(np.isfinite(center)):
        raise ConfigError(f"game.center must be finite, got {value!r}; pass ordinary numbers")
    return center


def _check_size(n: int, domain: str, T: int, R: int) -> None:
    """The game's memory and time, as a regret run of two players on n coordinates (`onlinelab.core.sizes`)."""
    from onlinelab.core.compat import is_spectral
    from onlinelab.core.sizes import check_estimate, regret_estimate
    est = regret_estimate([(n, is_spectral(str(domain)))], n_learners=2, T=T, R=R)
    check_estimate(est, sizes=f"game.n = {n}, run.replicates = {R}, run.rounds = {T}",
                   fix="lower game.n, run.replicates or run.rounds")


def _function(table: dict):
    n = v.integer("game.n", table["n"], minimum=1)
    dom = make_domain(table["domain"], n)
    center = _center(table["center"], n)
    return FUNCTIONS[table["function"]](dom, center, v.positive_float("game.scale", table["scale"]))


def parse_game(data: dict, *, seed=None, rounds=None, replicates=None) -> dict:
    """Validate ``data`` (a parsed TOML with a ``[game]`` table); return the resolved config (every default out).

    Parameters
    ----------
    data : dict
        The parsed config.
    seed, rounds, replicates : int or None, default None
        Command-line overrides of ``[run]``.
    """
    if not isinstance(data, dict) or not isinstance(data.get("game"), dict):
        raise ConfigTypeError("a game config needs a [game] table; see onlinelab.experiment.kinds.game for the two "
                              "forms")
    v.known_keys("the config's top level", data, ("run", "game"))
    game_keys = {k: val for k, val in RUN_KEYS.items() if k not in ("comparator", "callback_timeout")}  # not a game's
    run = run_table(data, game_keys, seed=seed, rounds=rounds, replicates=replicates)
    T = v.integer("run.rounds", run["rounds"], minimum=1)
    R = v.integer("run.replicates", run["replicates"], minimum=1)
    seed = v.integer("run.seed", run["seed"], minimum=0)
    game = dict(data["game"])
    if isinstance(game.get("n"), int) and not isinstance(game["n"], bool):   # before a vector of n is built
        _check_size(game["n"], game.get("domain") or "ball:1", T, R)
    table = _recovery_table(game, T) if "recovery" in game else _explicit_table(game)
    return {"run": {**run, "seed": seed, "rounds": T, "replicates": R}, "game": _flat(table)}


def play_resolved(resolved: dict):
    """Play the game of a resolved config (`parse_game`'s output, or a run directory's config.toml)."""
    run, game = resolved["run"], _unflatten(resolved["game"])
    T, R, seed = run["rounds"], run["replicates"], run["seed"]
    if "recovery" in game:
        params = _auto({k: val for k, val in game.items() if k != "recovery"})
        return play_recovery(make_recovery(game["recovery"], T=T, **params), T=T, replicates=R, seed=seed,
                             checkpoints=run["checkpoints"])
    table = _auto(game)
    return play_game(_function(table), _player(game, "x_player"), _player(game, "y_player"), T=T, replicates=R,
                     seed=seed, weights=table["weights"], order=table["order"], checkpoints=run["checkpoints"])


def run_game_config(data: dict, *, seed=None, rounds=None, replicates=None):
    """Validate ``data`` (a parsed TOML with a ``[game]`` table), play the game; return ``(result, resolved)``."""
    resolved = parse_game(data, seed=seed, rounds=rounds, replicates=replicates)
    return play_resolved(resolved), resolved


class GameKind(RunKind):
    """``[game]``: a Fenchel game (a recovery by name, or a function and two players) and its rate curves."""

    key = table = "game"
    title = "games"
    result = "onlinelab.runs.game_result:GameResult"
    refusals = {"resume": NO_RESUME}

    def parse(self, data, *, seed=None, rounds=None, replicates=None) -> dict:
        return parse_game(data, seed=seed, rounds=rounds, replicates=replicates)

    def run(self, spec: dict, *, progress: bool = False) -> RunOutcome:
        result = play_resolved(spec)
        return RunOutcome(result, self.resolve(spec), result.summary_text(), result.exit_status())

    def headline(self, result) -> str:
        return "suboptimality"

    def listing(self):
        return listing()

    def example(self) -> dict:
        return {"run": {"name": "tiny-game", "rounds": 40, "replicates": 2, "checkpoints": 6, "seed": 1},
                "game": {"recovery": "gd", "n": 3}}

    def refused_example(self) -> dict:
        return {"run": {"name": "refused-game", "rounds": 10},
                "game": {"function": "squared-distance", "domain": "simplex", "n": 3, "x_player": "meg",
                         "y_player": "ftl"}}


KIND = GameKind()


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False) -> RunOutcome:
    """The ``[game]`` kind's parse and run in one call (the form ``register_run_kind(key, target)`` takes)."""
    return KIND.outcome(data, seed=seed, rounds=rounds, replicates=replicates, progress=progress)
