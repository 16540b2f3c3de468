"""The black-box reduction of Joulani et al. (2013) for delayed feedback: τ + 1 copies of any learner (theory §8).

Round t is served by copy j = (t − 1) mod (τ + 1), and its feedback goes back to copy j.  When
every delay is at most τ, copy j has its feedback before its next turn, so each copy plays the
ordinary undelayed protocol on its own subsequence of rounds, and the total regret is at most the
sum of the copies' regrets: (τ + 1)·R_base(T/(τ + 1)) for a base bound concave in T [paper].

Bounds: every base bound of the form c₀ + b·t + a·Σ stat, with no dependence on the comparator
(FTRL/OMD's pointwise bounds, Exp3's expected-regret bound ln K/η + ηKt/2), becomes
c₀·(τ + 1) + b·t + a·Σ stat — the sum of the copies' bounds, exactly, since the copies' rounds and
statistics add up to the run's — with the assumption "every d_t ≤ τ" (checked against the run's
delays).  A bound that reads the comparator (Exp3 of Auer et al.'s G_max) is not carried over: the
copies' comparators do not add up to the run's.  Each copy is
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
    """c₀ if ``bound.curve`` is c₀ + b·t + a·(statistics), with no other dependence on t and none on the
    comparator (then the copies' bounds add up to the curve plus τ·c₀); None otherwise.

    Checked on a few points: affine in t (equal steps give equal differences), affine in the statistics
    (all set to one value a), no t·a cross term, and unchanged when only the comparator moves.
    """
    def at(t, a, c=0.0):
        one, ts = np.full((1, 1), float(a)), np.array([float(t)])
        return float(np.asarray(bound.curve(LossStats(ts, np.full((1, 1), float(c)), spec_sq=one, fro_sq=one,
                                                      energy=one)), dtype=float).ravel()[0])
    try:
        f = {(t, a): at(t, a) for t in (10, 1000, 1990) for a in (0.0, 1.0, 2.0)}
        moved = at(1000, 1.0, c=7.0)
    except (AttributeError, KeyError, TypeError, ValueError, IndexError):
        return None
    close = lambda x, y: bool(np.isclose(x, y, rtol=1e-12, atol=1e-12))  # noqa: E731
    affine = (close(f[1990, 0.0] - f[1000, 0.0], f[1000, 0.0] - f[10, 0.0])
              and close(f[10, 2.0] - f[10, 1.0], f[10, 1.0] - f[10, 0.0])
              and close(f[1000, 1.0] - f[1000, 0.0], f[10, 1.0] - f[10, 0.0])
              and close(moved, f[1000, 1.0]))
    if not affine or not all(np.isfinite(v) for v in f.values()):
        return None
    return f[10, 0.0] - 10 * (f[1000, 0.0] - f[10, 0.0]) / 990


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
            c0 = constant_part(b)
            if c0 is None:
                continue
            extra = self.tau * c0
            out.append(Bound(f"delay-copies({b.name})", f"{b.ref}; Joulani et al. reduction, theory §8",
                             f"sum over {self.tau + 1} copies of: {b.formula}", dict(b.assumptions),
                             lambda s, b=b, extra=extra: b.curve(s) + extra, pointwise=b.pointwise))
        return out
