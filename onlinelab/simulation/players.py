"""Players in a fixed move order on one simpy clock: the round loop every two-player game shares (theory §3.3).

A prescient second mover (FTL+, OMD+, best response) waits on its opponent's play event; the
Fenchel games (`onlinelab.games`) and the dual embedding game (`onlinelab.embedding`) both
play their rounds through `run_rounds`.
"""
from __future__ import annotations

import time

import simpy

from onlinelab.core.protocol import Feedback
from onlinelab.core.rng import BatchRNG


class Player:
    def __init__(self, role, learner, ctx, seed):
        self.role, self.learner = role, learner
        self.rng = BatchRNG.from_seed(seed, "game", f"{role}:{learner.name}", ctx.replicates)
        self.state = learner.init(ctx, self.rng)
        self.prescient = bool(getattr(learner, "prescient", False))


def run_rounds(players: dict, order: tuple, T: int, loss_for, on_plays, after_updates=None) -> dict:
    """The two-player round loop every game shares, on one simpy clock (theory §3.3).

    Round t: the first mover acts and succeeds its play event; a prescient second mover waits on
    that event and acts seeing ``loss_for(role, opponent_play)``, any other acts blind.  Each player
    then updates on its loss from the opponent's play.  A referee waits for both plays and calls
    ``on_plays(t, {role: Play})``, then, once both updates are done, ``after_updates(t)``.

    Parameters
    ----------
    players : dict
        Role → an object with ``learner``, ``state``, ``rng`` and ``prescient`` (the state is replaced
        in place after each update).
    order : tuple of str
        ``(first, second)``: the two roles in move order.
    T : int
        Number of rounds.
    loss_for : callable
        ``loss_for(role, opponent_play)`` → the loss object that role is charged this round.
    on_plays : callable
        ``on_plays(t, plays)`` with ``plays`` the role → Play map of round t.
    after_updates : callable or None, default None
        ``after_updates(t)``, called after both players updated on round t.

    Returns
    -------
    dict
        Role → seconds spent in ``act`` and ``update``.
    """
    first, second = order
    sim = simpy.Environment()
    plays = {p: [sim.event() for _ in range(T + 1)] for p in order}
    runtime = {p: 0.0 for p in order}

    def player(sim, role):
        me, other = players[role], (second if role == first else first)
        for t in range(1, T + 1):
            if role == second and me.prescient:
                yield plays[other][t]                                   # wait on the opponent's play event
                t0 = time.perf_counter()
                play = me.learner.act(me.state, me.rng, loss=loss_for(role, plays[other][t].value))
            else:
                t0 = time.perf_counter()
                play = me.learner.act(me.state, me.rng)
            runtime[role] += time.perf_counter() - t0
            plays[role][t].succeed(play)
            opp = yield plays[other][t]
            t0 = time.perf_counter()
            me.state = me.learner.update(me.state, play, Feedback("full", loss=loss_for(role, opp)), me.rng)
            runtime[role] += time.perf_counter() - t0
            yield sim.timeout(1)

    def referee(sim):
        for t in range(1, T + 1):
            got = yield plays[first][t] & plays[second][t]
            on_plays(t, {role: got[plays[role][t]] for role in order})
            yield sim.timeout(0.5)                                      # after both updates of round t
            if after_updates is not None:
                after_updates(t)
            for role in order:                  # round t is over: let its plays go (memory O(1) in T, not O(T))
                plays[role][t] = None
            yield sim.timeout(0.5)

    sim.process(player(sim, first))
    sim.process(player(sim, second))
    sim.process(referee(sim))
    sim.run()
    return runtime
