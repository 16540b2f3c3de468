"""Delayed feedback: round t's feedback reaches the learner at the end of round t + d_t (theory §8).

The delay machinery is a set of simpy events on the simulator's one loop (round t runs at
simulated time t − 1): after a learner plays round t, its feedback is *posted* as a
``timeout(d_t)`` event, which fires in the time step of round t + d_t and puts the feedback
in the learner's inbox.  The round body yields one zero-length event after all learners
have played; when it fires, each learner updates on its inbox (``Slot.deliver``) — several
at once when they are due together, in arrival order (ties: the earlier round first) — so
feedback due at the end of round t is used from round t + 1 on and is in the round-t checkpoint.
``delay = 0`` therefore gives the ordinary protocol, bit for bit.  Feedback due after T is never delivered, but the
loss of its round still counts.

One delay per round serves all R replicates (one event per round, not R): the delay
sequence is part of the protocol, like the loss sequence of an oblivious environment, so
random delays are common to every learner of a run and drawn from their own seeded stream.
An adaptive delay adversary instead picks d_t per learner from what it may see (the
learner's current mixed strategy and its latest delays, never the sampled action).

Delay models (`make_delay` accepts an instance, an int, or a dict as written in TOML):

* `FixedDelay` ``{kind = "fixed", d = 3}`` — d_t = d;
* `RandomDelay` ``{kind = "random", distribution = "geometric", mean = 5}`` — i.i.d.
  ``geometric`` (on 0, 1, …), ``poisson`` or ``uniform`` (on 0 … 2·mean);
* `ScheduleDelay` ``{kind = "schedule", delays = [...]}`` — an explicit sequence;
* `AdaptiveDelay` ``{kind = "adaptive", rule = "confident", max_delay = 20}`` — withholds
  feedback the more the learner commits to one arm (or pass ``rule=`` a callable ``(t, view) → int``).

Metrics logged at checkpoints: ``outstanding_feedback`` (posted, not yet delivered) and
``total_delay`` D_t = Σ_{s≤t} min(d_s, t − s), the delay that can have mattered by round t
(equal to Σ d_s when every feedback is due by t).  Bounds: see `onlinelab.bounds.delay`.

>>> import onlinelab as ol
>>> res = ol.simulate("experts-stochastic", [ol.make_learner("ftrl", regularizer="entropy")], T=50,
...                   replicates=2, seed=0, delay={"kind": "fixed", "d": 3})
>>> float(res.final("total_delay").iloc[0]), float(res.final("outstanding_feedback").iloc[0])
(144.0, 3.0)
"""
from __future__ import annotations

import numbers
from collections import deque
from collections.abc import Callable

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import _Params
from onlinelab.core.protocol import frozen_mixed
from onlinelab.core.rng import BatchRNG
from onlinelab.core.watchdog import call
from onlinelab.errors import ConfigError, ConfigTypeError

CHUNK = 1024          # random delays are drawn this many rounds at a time (RandomDelay)
MAX_MEAN = 1e15       # the largest mean delay RandomDelay accepts, in rounds
PAST = 64             # an adaptive delay adversary sees this many of the latest delays (DelayView.past)


def check_delay(value, where: str = "delay") -> int:
    """A delay must be a whole number of rounds ≥ 0; anything else is a ConfigError naming the fix."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, numbers.Real)):
        raise ConfigTypeError(f"{where} must be a whole number of rounds ≥ 0, got {value!r} "
                              f"({type(value).__name__}); e.g. {where} = 3")
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        if not (np.isfinite(value) and float(value).is_integer()):
            raise ConfigError(f"{where} must be a whole number of rounds ≥ 0, got {value!r}; delays count rounds, "
                              f"round it, e.g. {where} = {max(int(round(value)) if np.isfinite(value) else 0, 0)}")
    if value < 0:
        raise ConfigError(f"{where} must be ≥ 0 (feedback cannot arrive before its round), got {value!r}; "
                          "use 0 for the ordinary protocol")
    return int(value)


class DelayModel(_Params):
    """Base class: ``draw(t, view)`` gives d_t; ``adaptive`` models get one instance per learner."""

    kind = ""
    adaptive = False

    def reset(self, rng: np.random.Generator, T: int) -> None:
        self.rng, self.T = rng, T

    def draw(self, t: int, view) -> int:
        raise NotImplementedError

    def check_run(self, T: int, environments) -> None:
        """Refuse, before anything runs, a model that cannot serve a run of ``T`` rounds on ``environments``.

        Called for every config before its run directory is claimed (``onlinelab run``), so that a config
        the run would refuse in round 1 leaves no directory behind.

        >>> ScheduleDelay([1, 2]).check_run(3, [])
        Traceback (most recent call last):
        ...
        onlinelab.errors.ConfigError: delay.delays lists 2 delays for T = 3 rounds; give one per round
        """

    def attach(self, sim, slots, seed: int, env_label: str, T: int) -> FeedbackClock:
        """The simulator's hook: give every learner slot a delayed-feedback channel on ``sim``."""
        return FeedbackClock(self, sim, slots, seed, env_label, T)

    def describe(self) -> dict:
        return {"kind": self.kind, **self.get_params()}


class FixedDelay(DelayModel):
    """d_t = d for every round.

    Parameters
    ----------
    d : int
        The delay in rounds (≥ 0).
    """

    kind = "fixed"

    def __init__(self, d: int = 0):
        self.d = check_delay(d, "delay.d")

    def draw(self, t, view):
        return self.d


class RandomDelay(DelayModel):
    """i.i.d. delays from ``distribution`` with the given ``mean`` (geometric on 0,1,…; poisson; uniform on 0…2·mean).

    The delays are drawn from the model's stream in chunks of `CHUNK` rounds as the run reaches
    them, so memory and checkpoints stay the same size whatever T (numpy draws a chunk exactly as the
    matching slice of one draw of all T: the numbers do not depend on the chunking).

    Parameters
    ----------
    distribution : str
        "geometric", "poisson" or "uniform".
    mean : float
        Mean delay in rounds, 0 ≤ mean ≤ `MAX_MEAN` (for "uniform" a whole number).
    """

    kind = "random"
    DISTRIBUTIONS = ("geometric", "poisson", "uniform")

    def __init__(self, distribution: str = "geometric", mean: float = 1.0):
        self.distribution = v.choice("delay.distribution", distribution, self.DISTRIBUTIONS)
        self.mean = v.real("delay.mean", mean)
        if self.mean < 0:
            raise ConfigError(f"delay.mean must be ≥ 0, got {mean!r}; e.g. mean = 5")
        if self.mean > MAX_MEAN:
            raise ConfigError(f"delay.mean must be ≤ {MAX_MEAN:.0e} rounds, got {mean!r}; a mean beyond any horizon "
                              "only withholds all feedback (and numpy cannot draw such Poisson or uniform delays); "
                              "e.g. mean = 5")
        if distribution == "uniform":
            check_delay(self.mean, "delay.mean (uniform)")

    def reset(self, rng, T):
        super().reset(rng, T)
        self._chunk, self._first = np.zeros(0, dtype=np.int64), 1   # delays of rounds _first … _first+len−1

    def _draw(self, n: int) -> np.ndarray:
        m = self.mean
        if self.distribution == "geometric":   # P(d = k) = p (1−p)^k, mean (1−p)/p
            return self.rng.geometric(1.0 / (1.0 + m), size=n) - 1
        if self.distribution == "poisson":
            return self.rng.poisson(m, size=n)
        return self.rng.integers(0, 2 * int(m) + 1, size=n)

    def draw(self, t, view):
        if "_all" in self.__dict__:  # a checkpoint of an earlier version, which drew all T delays at once
            return int(self._all[t - 1])
        while t >= self._first + len(self._chunk):  # rounds come in order: the next chunk starts where this ends
            self._first += len(self._chunk)
            self._chunk = self._draw(max(min(CHUNK, self.T - self._first + 1), 1))
        return int(self._chunk[t - self._first])


class ScheduleDelay(DelayModel):
    """An explicit delay sequence: d_t = delays[t − 1] (adversarial patterns, tests).

    Parameters
    ----------
    delays : list of int
        One delay per round; a run of T rounds needs at least T of them.
    """

    kind = "schedule"

    def __init__(self, delays=()):
        self.delays = [check_delay(x, f"delay.delays[{i}]") for i, x in enumerate(list(delays))]

    def check_run(self, T, environments):
        if len(self.delays) < T:
            raise ConfigError(f"delay.delays lists {len(self.delays)} delays for T = {T} rounds; give one per round")

    def reset(self, rng, T):
        super().reset(rng, T)
        self.check_run(T, [])

    def draw(self, t, view):
        return self.delays[t - 1]


class DelayView:
    """What an adaptive delay adversary sees in round t: the learner's mixed strategy and the past delays.

    ``past`` holds the `PAST` latest delays of this learner, oldest first (a bounded window, as an
    adaptive environment's history is, so that a long run's memory does not grow with T)."""

    __slots__ = ("t", "mixed", "past")

    def __init__(self, t, mixed, past):
        self.t, self.mixed, self.past = t, mixed, past


def confident_rule(t: int, view: DelayView, max_delay: int) -> int:
    """Withhold feedback the more the learner commits: d_t = ⌊max_delay · mean_r (max_i p_i − 1/K)/(1 − 1/K)⌋."""
    p = np.asarray(view.mixed)
    if p.ndim != 2:
        raise ConfigError("the 'confident' delay rule needs a simplex learner (a mixed strategy of shape (R, K)); "
                          "pass rule= a callable (t, view) -> int for other domains")
    K = p.shape[1]
    commit = float(np.mean((p.max(axis=1) - 1.0 / K) / (1.0 - 1.0 / K)))
    return int(np.floor(max_delay * min(max(commit, 0.0), 1.0)))


RULES = {"confident": confident_rule}


class AdaptiveDelay(DelayModel):
    """Delays chosen by an adaptive adversary from the learner's mixed strategy and the past delays.

    Parameters
    ----------
    rule : str or callable
        "confident" (see `confident_rule`) or a callable ``(t, view, max_delay) -> int``.
    max_delay : int
        Cap on every delay (≥ 0).
    """

    kind = "adaptive"
    adaptive = True

    def __init__(self, rule: str | Callable = "confident", max_delay: int = 10):
        self.rule = rule if callable(rule) else v.choice("delay.rule", rule, tuple(RULES))
        self.max_delay = check_delay(max_delay, "delay.max_delay")

    def check_run(self, T, environments):
        from onlinelab.core.compat import is_spectral
        for env in environments if self.rule == "confident" else []:
            domain, name = str(getattr(env, "domain", "spectraplex")), getattr(env, "name", type(env).__name__)
            if is_spectral(domain):
                raise ConfigError(f"the 'confident' delay rule needs learners with a mixed strategy per replicate "
                                  f"(shape (R, K), e.g. on the simplex), but environment {name!r} plays the "
                                  f"{domain} (density matrices); use a fixed or random [delay], or pass "
                                  "AdaptiveDelay(rule=) a callable (t, view, max_delay) -> int from Python")

    def draw(self, t, view):
        fn = self.rule if callable(self.rule) else RULES[self.rule]
        chosen = call(f"adaptive delay rule {getattr(fn, '__name__', fn)!r}", t, fn, t, view, self.max_delay)
        return min(check_delay(chosen, f"the delay the adversary chose for round {t}"), self.max_delay)


MODELS = {cls.kind: cls for cls in (FixedDelay, RandomDelay, ScheduleDelay, AdaptiveDelay)}


def make_delay(spec) -> DelayModel:
    """A `DelayModel` from an instance, a whole number (fixed delay) or a dict ``{kind = ..., ...}``.

    Parameters
    ----------
    spec : DelayModel, int or dict
        What ``simulate(delay=...)`` and the ``[delay]`` table of a config accept.
    """
    if isinstance(spec, DelayModel):
        return spec
    if isinstance(spec, dict):
        spec = dict(spec)
        kind = spec.pop("kind", None)
        if kind is None:
            raise ConfigError("the delay table needs a kind: one of " + ", ".join(repr(k) for k in MODELS)
                              + ', e.g. {kind = "fixed", d = 3}')
        cls = MODELS[v.choice("delay.kind", kind, tuple(MODELS))]
        v.known_keys(f"the delay table of kind {kind!r}", spec, cls.param_names())
        return cls(**spec)
    if isinstance(spec, (numbers.Real, np.bool_)):
        return FixedDelay(check_delay(spec))
    raise ConfigTypeError(f"delay must be a whole number of rounds, a dict such as {{'kind': 'random', 'mean': 5}} "
                          f"or an onlinelab.feedback.delays.DelayModel, got {spec!r} ({type(spec).__name__})")


class _Channel:
    """One learner's delayed-feedback bookkeeping: outstanding count, D so far, the latest delays, and the
    feedback still in flight (``pending``, keyed by the round that posted it), so that a checkpoint holds
    everything a resumed run needs; the link to the simpy loop (``clock``) is rebuilt on resume.

    Its size does not grow with T: D_t is kept at the metric checkpoints only (``D_at``, what the bounds
    read), the delays drawn as their count, sum and maximum plus the `PAST` latest (``recent``)."""

    _transient = ("clock",)

    def __init__(self, clock, model):
        self.clock, self.model = clock, model
        self.outstanding = 0
        self.inbox: list = []
        self.D_acc = 0          # Σ_{u<t} outstanding at the end of round u
        self.D_now = 0          # D_t of the last round ended (D_acc before adding that round's outstanding)
        self.D_at: dict[int, int] = {}        # checkpoint round t → D_t (filled by metrics)
        self.recent: deque = deque(maxlen=PAST)
        self.posted, self.delay_sum, self.max_delay = 0, 0, 0
        self.pending: dict[int, tuple] = {}   # posting round s → (due round s + d_s, play, feedback)
        self.last_round = 0

    def post(self, slot, t, play, feedback):
        d = self.clock.delay_for(self, t, play)
        self.recent.append(d)
        self.posted, self.delay_sum = self.posted + 1, self.delay_sum + d
        self.max_delay = max(self.max_delay, d)
        self.outstanding += 1
        if t + d <= self.clock.T:
            self.pending[t] = (t + d, play, feedback)
            self._schedule(slot, t, d)

    def _schedule(self, slot, t, wait):
        ev = self.clock.sim.timeout(wait, value=(slot, t))
        ev.callbacks.append(self._arrive)

    def _arrive(self, event):  # due in this round's time step: applied once the round's plays are done
        slot, t = event.value
        _, play, feedback = self.pending.pop(t)
        self.inbox.append((slot, play, feedback))

    def resume(self, clock, slot):
        """Reconnect a channel restored from a checkpoint to the new loop: re-post what is still in flight.

        The resumed loop plays round ``last_round + 1`` at simulated time 0, so feedback due in round u
        fires at time u − last_round − 1; posting in (due, posting round) order keeps the arrival order."""
        self.clock = clock
        for t, (due, _, _) in sorted(self.pending.items(), key=lambda item: (item[1][0], item[0])):
            self._schedule(slot, t, due - self.last_round - 1)

    def end_round(self, t):
        for slot, play, feedback in self.inbox:
            slot.deliver(play, feedback)
        self.outstanding -= len(self.inbox)
        self.inbox.clear()
        self.D_now = self.D_acc
        self.D_acc += self.outstanding
        self.last_round = t

    def metrics(self, slot, t) -> dict:
        self.D_at[t] = self.D_now  # called at each metric checkpoint, right after round t ended
        return {"outstanding_feedback": float(self.outstanding), "total_delay": float(self.D_now)}

    def bounds(self, slot, ctx, own: list) -> list:
        from onlinelab.bounds.delay import delayed_bounds
        return delayed_bounds(slot.learner, ctx, own, self)


class FeedbackClock:
    """Posts each learner's feedback as a simpy timeout and ends every round with one zero-length event."""

    def __init__(self, model, sim, slots, seed, env_label, T):
        self.sim, self.T, self.model = sim, T, model
        self._shared = None
        self._channels = []
        fresh = [slot for slot in slots if slot.channel is None]
        if fresh and not model.adaptive:  # one delay sequence for every learner: drawn once (onlinelab.core.rng)
            model.reset(BatchRNG.from_seed(seed, "environment", f"delay/{env_label}", 1).gens[0], T)
        for slot in slots:
            if slot.channel is not None:  # restored from a checkpoint (onlinelab resume): keep its state
                slot.channel.resume(self, slot)
                self._channels.append(slot.channel)
                continue
            m = model
            if model.adaptive:  # one adversary per learner, with the learner's own stream in role "delay"
                m = model.clone()
                m.reset(BatchRNG.from_seed(seed, "delay", slot.label, 1, env=env_label).gens[0], T)
            ch = _Channel(self, m)
            slot.channel = ch
            self._channels.append(ch)
        self._round_delay: dict[int, int] = {}

    def delay_for(self, channel, t, play) -> int:
        if channel.model.adaptive:
            return channel.model.draw(t, DelayView(t, frozen_mixed(play.mixed), tuple(channel.recent)))
        if t not in self._round_delay:  # one draw per round, shared by every learner (common random numbers)
            self._round_delay = {t: check_delay(channel.model.draw(t, None), f"the delay of round {t}")}
        return self._round_delay[t]

    def round_end(self, t):
        """The event the round yields: it fires after every feedback due now, then the round's bookkeeping runs."""
        ev = self.sim.timeout(0)
        ev.callbacks.append(lambda _e: [ch.end_round(t) for ch in self._channels])
        return ev
