"""The black-box reduction of Joulani et al. (2013) for delayed feedback: τ + 1 copies of any learner (theory §8).

Round t is served by copy j = (t − 1) mod (τ + 1), and its feedback goes back to copy j.  When
every delay is at most τ, copy j has its feedback before its next turn, so each copy plays the
ordinary undelayed protocol on its own subsequence of rounds, and the total regret is at most the
sum of the copies' regrets: (τ + 1)·R_base(T/(τ + 1)) for a base bound concave in T [paper].

Bounds: every base bound of the form c₀ + b·t + κ·L* + a·Σ stat (L* the comparator's loss) with
κ ≥ −1 — FTRL/OMD's pointwise bounds, Exp3's ln K/η + ηKt/2, Auer et al.'s (e − 1)γ(t − L*) + K ln K/γ
when (e − 1)γ ≤ 1 — becomes c₀·(τ + 1) + b·t + κ·L* + a·Σ stat, with the assumption "every d_t ≤ τ"
(checked against the run's delays).  The copies' rounds and statistics add up to the run's and
their comparators to at most the run's (Σ_j L*_j ≤ L*), so with 1 + κ ≥ 0 the sum of the copies'
bounds is at most that (see `constant_part`).  Each copy is
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
import zlib
from typing import NamedTuple

import numpy as np

from onlinelab.bounds.base import Bound, LossStats
from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import Play
from onlinelab.core.registry import learner_class, register_learner
from onlinelab.errors import ConfigError


class CopiesState(NamedTuple):
    copies: tuple          # one base state per copy
    clock: np.ndarray      # [rounds played so far]; act advances it


class _AnyStatistic(dict):
    """Every loss statistic a curve asks for, each with its own value: Σ over the probe's terms of
    scale·w(salt, name), so two probes with different salts move the statistics in different directions."""

    def __init__(self, terms):
        super().__init__()
        self.terms = terms

    def __contains__(self, name) -> bool:
        return True

    def __missing__(self, name):
        value = sum(scale * (1 + zlib.crc32(f"{salt}:{name}".encode()) % 1000 / 100) for scale, salt in self.terms)
        return np.full((1, 1), float(value))


def _probe(t: float, comparator: float, terms) -> LossStats:
    stats = LossStats(np.array([float(t)]), np.full((1, 1), float(comparator)))
    stats.sums = _AnyStatistic(terms)
    return stats


def constant_part(bound: Bound) -> float | None:
    """c₀ when ``bound.curve`` is c₀ + b·t + κ·L* + Σ_k a_k·stat_k (L* the comparator) with κ ≥ −1, else None.

    Then the copies' bounds add up to at most the curve plus τ·c₀: their rounds and statistics add up to the
    run's, and their comparators to at most the run's, Σ_j L*_j ≤ L* (a minimum of a sum is at least the sum of
    the minima), which the factor 1 + κ ≥ 0 preserves.  Affinity is checked as additivity,
    f(x) + f(y) = f(x + y) + f(0), on two pairs of probes at different scales whose statistics each move in
    their own direction, to a tolerance relative to the values (rounding of large nearly equal numbers).
    """
    def f(*probes):
        t = sum(p[0] for p in probes)
        comparator = sum(p[1] for p in probes)
        terms = [(p[0], p[2]) for p in probes]
        with np.errstate(all="ignore"):
            return float(np.asarray(bound.curve(_probe(t, comparator, terms)), dtype=float).ravel()[0])

    pairs = [((700.0, 310.0, "x"), (2500.0, -90.0, "y")), ((1.3e5, 4.0e4, "u"), (4.1e5, 2.2e5, "v"))]
    try:
        zero = f()
        kappa = (f((0.0, 1000.0, "c")) - f((0.0, 0.0, "c"))) / 1000.0
        for x, y in pairs:
            values = (f(x), f(y), f(x, y), zero)
            if not all(np.isfinite(values)):
                return None
            scale = sum(abs(v) for v in values)
            if abs(values[0] + values[1] - values[2] - values[3]) > 1e-9 * scale + 1e-12:
                return None
    except (AttributeError, KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return None
    return zero if np.isfinite(zero) and kappa >= -1 - 1e-9 else None


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
            raise ConfigError("base_params must be a table of the base learner's hyper-parameters, "
                              f"got {base_params!r}")
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
            out.append(dataclasses.replace(b, name=f"delay-copies({b.name})",
                                           ref=f"{b.ref}; Joulani et al. reduction, theory §8",
                                           formula=f"sum over {self.tau + 1} copies of: {b.formula}",
                                           assumptions=dict(b.assumptions),
                                           curve=lambda s, b=b, extra=extra: b.curve(s) + extra))
        return out
