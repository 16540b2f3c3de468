"""The black-box reduction of Joulani et al. (2013) for delayed feedback: τ + 1 copies of any learner (theory §8).

Round t is served by copy j = (t − 1) mod (τ + 1), and its feedback goes back to copy j.  When
every delay is at most τ, copy j has its feedback before its next turn, so each copy plays the
ordinary undelayed protocol on its own subsequence of rounds, and the total regret is at most the
sum of the copies' regrets: (τ + 1)·R_base(T/(τ + 1)) for a base bound concave in T [paper].

Bounds: every pointwise base bound that is affine in the loss statistics with a constant part c₀
(the FTRL/OMD form c₀ + a·Σ stat) becomes c₀·(τ + 1) + a·Σ stat — the sum of the copies' bounds,
exactly — with the assumption "every d_t ≤ τ" (checked against the run's delays).  Each copy is
told the horizon ⌈T/(τ + 1)⌉ it plays, so a tuned base step (η ∝ 1/√T) suits its own rounds, as
the reduction's (τ + 1)·R_base(T/(τ + 1)) assumes.

The round counter lives in the state; ``act`` advances it (a mutable one-element array), because
the protocol gives ``act`` no round number and the copy must be chosen when playing.

>>> import onlinelab as ol
>>> lrn = DelayCopies(base="omd", tau=3)
>>> res = ol.simulate("quadratic-ball", [lrn], T=200, replicates=2, delay=3)
>>> bool(res.bounds().set_index("bound").loc["delay-copies(omd-regret)", "holds"])
True
"""
from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from .. import validation as v
from ..base import Learner
from ..bounds import Bound, LossStats
from ..errors import ConfigError
from ..protocol import Play
from ..registry import learner_class, register_learner


class CopiesState(NamedTuple):
    copies: tuple          # one base state per copy
    clock: np.ndarray      # [rounds played so far]; act advances it


def constant_part(bound: Bound) -> float | None:
    """c₀ if ``bound.curve`` is c₀ + a·(statistics) with no dependence on t; None otherwise."""
    t = np.array([10, 1000])

    def at(a):
        one = np.full((1, 2), float(a))
        return np.asarray(bound.curve(LossStats(t, one, spec_sq=one, fro_sq=one, energy=one)), dtype=float)
    try:
        c0, c1, c2 = at(0.0), at(1.0), at(2.0)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    flat = np.broadcast_to(c0, (1, 2))
    if np.allclose(c2 - c1, c1 - c0, rtol=1e-12, atol=1e-12) and np.allclose(flat[0, 0], flat[0, 1], rtol=1e-12):
        return float(flat[0, 0])
    return None


@register_learner("delay-copies")
class DelayCopies(Learner):
    """τ + 1 independent copies of ``base``; round t is played and updated by copy (t − 1) mod (τ + 1).

    Parameters
    ----------
    base : str
        Registered name of the base learner.
    base_params : dict or None
        Its hyper-parameters.
    tau : int
        The largest delay the reduction is built for (≥ 0).
    """

    def __init__(self, base: str = "omd", base_params: dict | None = None, tau: int = 1):
        if not isinstance(base, str):
            raise ConfigError(f"base must be a registered learner name such as 'omd', got {base!r}")
        if base_params is not None and not isinstance(base_params, dict):
            raise ConfigError(f"base_params must be a table of the base learner's hyper-parameters, got {base_params!r}")
        self.base, self.base_params = base, base_params
        self.tau = v.integer("tau", tau, minimum=0)
        self._base = learner_class(base)(**(base_params or {}))

    @property
    def feedback(self) -> str:  # type: ignore[override]
        return self._base.feedback

    @property
    def reference_environment(self) -> str:
        return getattr(self._base, "reference_environment", "spiked-covariance")

    @property
    def max_delay_tolerated(self) -> int:
        return self.tau

    def copy_context(self, ctx):
        """What each copy is told: every other field of ``ctx``, and the horizon ⌈T/(τ + 1)⌉ — the most rounds
        one copy plays — so that a base that tunes its step for its horizon tunes it for the rounds it sees."""
        return dataclasses.replace(ctx, T=-(-ctx.T // (self.tau + 1)))

    def init(self, ctx, rng) -> CopiesState:
        ctx = self.copy_context(ctx)
        return CopiesState(tuple(self._base.init(ctx, rng) for _ in range(self.tau + 1)), np.zeros(1, dtype=int))

    def act(self, state: CopiesState, rng) -> Play:
        j = int(state.clock[0]) % (self.tau + 1)
        state.clock[0] += 1
        play = self._base.act(state.copies[j], rng)
        return Play(play.mixed, play.action, {"copy": j, "inner": play})

    def update(self, state: CopiesState, play: Play, feedback, rng) -> CopiesState:
        j = play.info["copy"]
        copies = list(state.copies)
        copies[j] = self._base.update(copies[j], play.info["inner"], feedback, rng)
        return CopiesState(tuple(copies), state.clock)

    def resolved_params(self, ctx) -> dict:
        return {**self.get_params(), "base_resolved": self._base.resolved_params(self.copy_context(ctx))}

    def bounds(self, ctx) -> list:
        out = []
        for b in self._base.bounds(self.copy_context(ctx)):
            c0 = constant_part(b) if b.pointwise else None
            if c0 is None:
                continue
            extra = self.tau * c0
            out.append(Bound(f"delay-copies({b.name})", f"{b.ref}; Joulani et al. reduction, theory §8",
                             f"sum over {self.tau + 1} copies of: {b.formula}", dict(b.assumptions),
                             lambda s, b=b, extra=extra: b.curve(s) + extra, pointwise=True))
        return out
