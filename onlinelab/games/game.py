"""The Fenchel game on the simpy loop: two no-regret players whose averaged play minimises f
(theory §3.3–3.5, docs/theory/03-oco-fenchel.md).

``play_game(f, x_player, y_player, T=...)``: round t, the x-player plays x_t ∈ K, the y-player
y_t; the x-player's loss is α_t⟨·, y_t⟩ (linear), the y-player's α_t(f*(·) − ⟨x_t, ·⟩).  Each
player is a simpy process; the first mover (``order``) succeeds its play event, and a
prescient second mover (FTL+, BESTRESP+, OMD+, FTRL+) *waits on that event* and sees its
loss before playing.  A referee process waits for both plays and keeps the weighted sums.

At each checkpoint, per replicate: ``suboptimality`` f(x̄_t) − f⋆ (f⋆ from the function's
exact solver), ``gap`` sup_y g(x̄, y) − inf_K g(x, ȳ) = f(x̄) + f*(ȳ) − min_K⟨x, ȳ⟩,
``x_avg_regret`` / ``y_avg_regret`` (average α-REG of each player against its best fixed
response), ``regret`` = their sum, and the recovery's rate curves as ``bound:*`` rows.  The averaged
iterates themselves are ``result.x_avg[t]`` ((R, n) per checkpoint t; the final one also in
``meta["game"]["x_avg"]``).
The chain suboptimality ≤ gap ≤ x_avg_regret + y_avg_regret (theory §3.3 Theorem) is checked
at every checkpoint; a breach is listed in ``meta["game"]["breaches"]`` and raised as a
`onlinelab.errors.BoundViolationWarning`.
The round loop itself, `run_rounds`, is shared with the other games (the dual embedding
game of `onlinelab.embedding.game`).

>>> import onlinelab as ol
>>> from onlinelab.games.recoveries import gd_averaging
>>> res = play_game(*gd_averaging(n=3, T=100)[:3], T=100)
>>> bool(res.final("suboptimality").iloc[0] <= res.final("gap").iloc[0])
True
"""
from __future__ import annotations

import time
import warnings

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import Context
from onlinelab.core.schedule import _checkpoints
from onlinelab.errors import BoundViolationWarning, ConfigError
from onlinelab.losses.fenchel import ConjugateLoss, ConvexFunction
from onlinelab.losses.vector import LinearLoss
from onlinelab.runs.game_result import GameResult, game_frame
from onlinelab.simulation.players import Player, run_rounds

CHAIN_TOL = 1e-9


def _with_weights(player: Learner, weights, who: str) -> Learner:
    if not isinstance(player, Learner):
        raise ConfigError(f"{who} must be an onlinelab.Learner, got {player!r}; build one with make_learner(name)")
    params = player.get_params()
    if "weights" not in params:
        if weights != "constant":
            raise ConfigError(f"{who} {player.name!r} has no weights parameter, so it cannot play α_t = {weights!r}")
        return player.clone()
    return type(player)(**{**params, "weights": weights})


def play_game(f: ConvexFunction, x_player: Learner, y_player: Learner, *, T: int, replicates: int = 1,
              seed: int = 0, weights="constant", order: str = "x-first", checkpoints=None, bounds=(),
              label: str | None = None) -> GameResult:
    """Run the Fenchel game for ``T`` rounds; see the module docstring.  ``bounds``: rate curves (Bound list).

    Parameters
    ----------
    f : onlinelab.losses.fenchel.ConvexFunction
        The objective, with its domain K, conjugate and exact minimum.
    x_player, y_player : Learner
        The two no-regret players (OCO learners); only the second mover may be prescient.
    T : int
        Number of rounds.
    replicates : int, default 1
        Independent repetitions (they differ only for randomised players).
    seed : int, default 0
        Root seed of the players' random streams.
    weights : {"constant", "linear"}, float or list of float, default "constant"
        Round weights α_t of both players and of the averages x̄, ȳ.
    order : {"x-first", "y-first"}, default "x-first"
        Which player moves first.
    checkpoints : int, list of int or None, default None
        Rounds at which metrics are logged (as in `onlinelab.simulate`).
    bounds : sequence of Bound, default ()
        Rate curves to draw and check against the suboptimality.
    label : str or None, default None
        Name of the game in the result.
    """
    if not isinstance(f, ConvexFunction):
        raise ConfigError(f"f must be an onlinelab.losses.fenchel.ConvexFunction, got {f!r}")
    T = v.integer("T", T, minimum=1)
    R = v.integer("replicates", replicates, minimum=1)
    seed = v.integer("seed", seed, minimum=0)
    order = v.choice("order", order, ("x-first", "y-first"))
    from onlinelab.learners.oco_base import alpha_schedule
    alpha = alpha_schedule(weights)
    xl, yl = _with_weights(x_player, weights, "x_player"), _with_weights(y_player, weights, "y_player")
    first, second = ("x", "y") if order == "x-first" else ("y", "x")
    lead = {"x": xl, "y": yl}[first]
    if getattr(lead, "prescient", False):
        raise ConfigError(f"the first mover ({first}-player {lead.name!r}) is prescient, but "
                          f"only the second mover may see its opponent's play (theory §3.3); set order = "
                          f"'{second}-first' or pick a non-prescient {first}-player")
    ckpts = [int(c) for c in _checkpoints(T, checkpoints)]
    fstar, _ = f.minimum()
    ctx_x = Context(d=f.n, T=T, replicates=R, loss_bound=f.G, domain=f.domain.spec)
    ctx_y = Context(d=f.n, T=T, replicates=R, loss_bound=f.domain.scale if f.domain.bounded else 1.0,
                    domain="euclidean")
    players = {"x": Player("x", xl, ctx_x, seed), "y": Player("y", yl, ctx_y, seed)}
    sums = {"A": 0.0, "x": np.zeros((R, f.n)), "y": np.zeros((R, f.n)), "xy": np.zeros(R), "fy": np.zeros(R),
            "x_next": np.zeros((R, f.n))}
    rows: dict[str, list] = {}
    averages: dict[int, np.ndarray] = {}
    breaches: list[dict] = []

    def loss_for(role, other_play):
        return LinearLoss(other_play.mixed, f.domain) if role == "x" else ConjugateLoss(f, other_play.mixed)

    def on_plays(t, got):
        x, y = np.asarray(got["x"].mixed), np.asarray(got["y"].mixed)
        a = alpha(t)
        sums["A"] += a
        sums["x"] += a * x
        sums["y"] += a * y
        sums["xy"] += a * np.einsum("ri,ri->r", x, y)
        sums["fy"] += a * f.conjugate(y)

    def after_updates(t):
        z = getattr(players["x"].state, "z", None)
        if z is not None:
            sums["x_next"] += np.asarray(z)                             # x_{t+1}, for the shifted average
        if t in ckpts:
            _checkpoint(f, fstar, t, sums, rows, breaches)
            averages[t] = sums["x"] / sums["A"]

    start = time.perf_counter()
    runtime = run_rounds(players, (first, second), T, loss_for, on_plays, after_updates)
    wall = time.perf_counter() - start
    label = label or f"{xl.name} vs {yl.name}"
    meta = {"kind": "game", "T": T, "replicates": R, "seed": seed, "status": "complete", "f_star": fstar,
            "game": {"function": f.describe(), "order": order, "weights": weights, "breaches": breaches,
                     "x_player": {"name": xl.name, "params": xl.get_params()},
                     "y_player": {"name": yl.name, "params": yl.get_params()},
                     "x_avg": averages[ckpts[-1]].tolist() if ckpts[-1] in averages else None},
            "timings": {f.describe(): {"wall_s": wall, "learner_s": {label: runtime["x"] + runtime["y"]}}},
            "environments": {f.describe(): {"name": f.name, "d": f.n, "adaptive": False}},
            "learners": {label: {"name": f"{xl.name} vs {yl.name}", "params": {}}}}
    result = GameResult(game_frame(label, f.describe(), ckpts, rows, bounds), meta, bounds)
    result.x_avg = averages
    for b in breaches:
        warnings.warn(f"FENCHEL CHAIN BREACHED at t = {b['t']}: {b['which']} (replicate {b['replicate']}, "
                      f"{b['lhs']:.6g} > {b['rhs']:.6g}); theory §3.3 says this cannot happen — a bug",
                      BoundViolationWarning, stacklevel=2)
    return result


def _checkpoint(f, fstar, t, sums, rows, breaches):
    A = sums["A"]
    xbar, ybar = sums["x"] / A, sums["y"] / A
    fx = f.value(xbar)
    if f.domain.bounded:
        lin_min = np.einsum("ri,ri->r", ybar, f.domain.lmo(ybar))
    else:
        lin_min = np.where(np.linalg.norm(ybar, axis=1) == 0, 0.0, -np.inf)
    gap = fx + f.conjugate(ybar) - lin_min
    x_reg = (sums["xy"] - A * lin_min) / A
    y_reg = (sums["fy"] - sums["xy"]) / A + fx
    values = {"suboptimality": fx - fstar, "gap": gap, "x_avg_regret": x_reg, "y_avg_regret": y_reg,
              "regret": x_reg + y_reg, "suboptimality_shifted": f.value(sums["x_next"] / t) - fstar,
              "weight_sum": np.full(xbar.shape[0], A)}
    for key, val in values.items():
        rows.setdefault(key, []).append(np.asarray(val, dtype=float))
    scale = CHAIN_TOL * (1 + np.abs(fx) + np.abs(fstar) + np.abs(gap))
    for which, lhs, rhs in (("suboptimality ≤ gap", fx - fstar, gap), ("gap ≤ x_avg_regret + y_avg_regret", gap,
                                                                          x_reg + y_reg)):
        bad = np.flatnonzero(lhs > rhs + scale)
        for r in bad:
            breaches.append({"t": t, "which": which, "replicate": int(r), "lhs": float(lhs[r]), "rhs": float(rhs[r])})
