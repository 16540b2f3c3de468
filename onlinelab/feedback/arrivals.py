"""Asynchronous arrivals for streaming learners: a Poisson stream, modelled service times, a queue (theory §8).

``simulate(env, learners, T=..., arrivals=Arrivals(...))`` replaces the rounds of the simulator's
loop by three kinds of simpy processes on the same loop, and T becomes simulated time:

* the **arrival process**: the environment emits one round (``block`` samples) at the jumps of a
  Poisson process of ``rate`` ν — the same arrival times for every replicate and every learner;
* one **server** per learner: when its queue is not empty it takes the whole queue (a block
  learner — ``take="queue"``, or "auto" for Oja with ``qr="block"``) or one arrival (``take="one"``),
  is busy for ``overhead + service · n`` (n samples; s₀ per call, s per sample), and only then
  updates: the new state exists from the end of the service on;
* the **checkpoints**, at simulated times.

Load ρ = ν·b·s (b samples per arrival).  A per-sample learner pays s₀ on every call, so it keeps up iff
ν(s₀ + b s) < 1 (with s₀ = 0 its arrivals then wait ρ/(2(1 − ρ)) calls on average, 4.5 at ρ = 0.9); a block
learner pays s₀ once per block and keeps up iff ρ < 1, whatever s₀: its blocks settle near ν b s₀/(1 − ρ)
samples and its queue, refilling from empty during each service, averages 0.54–0.58 of that.  Otherwise
the queue grows without bound unless arrivals are dropped (``max_queue``).  Each arriving round is charged
at the subspace in force when it arrives, so
``regret`` includes the price of staleness.  Metrics against simulated time: the environment's
accuracy metrics (``sin2_theta``, ``explained_variance``, …), ``queue_length`` (samples waiting),
``staleness`` (mean age of the samples at the update that used them), ``samples_processed``,
``dropped`` and ``utilisation`` (busy time / time).

Any oblivious environment and learner may be served one arrival per call.  Serving several as one
block needs the loss type to say how: a *per-sample* loss has ``n_samples`` (what service time
counts; a loss without it is one sample) and a classmethod ``joined(losses)``, the sample-weighted
mean ``Σ_i (b_i/N) L_i`` — the stream's samples as one mini-batch.  The streams' losses have both
(`onlinelab.FactoredLoss` and its sample and projection losses, `onlinelab.losses.data.DataLoss`,
the least-squares stream's loss); for any other a server that takes whole queues is a
`onlinelab.errors.ConfigError` at the first arrival, which says to use ``take="one"``.  The
server hands the learner the feedback its kind asks for (`onlinelab.core.slot.feedback_for`): the
block's loss, or for a first-order learner such as ``sgd`` its gradient at the play.

>>> import onlinelab as ol
>>> env = ol.make_environment("spiked-stream", d=6, k=1)
>>> res = ol.simulate(env, [ol.make_learner("oja", qr="block")], T=200, replicates=2,
...                   arrivals=Arrivals(rate=2.0, service=0.1, overhead=1.0))
>>> bool(res.final("queue_length").max() < 20), bool(res.final("sin2_theta").max() < 0.2)
(True, True)
"""
from __future__ import annotations

from onlinelab.core import validation as v
from onlinelab.core.base import _Params, label_of
from onlinelab.core.protocol import Feedback
from onlinelab.core.rng import BatchRNG
from onlinelab.core.slot import feedback_for
from onlinelab.core.watchdog import call
from onlinelab.errors import ConfigError, ConfigTypeError

TAKES = ("auto", "queue", "one")


def _per_learner(field: str, value):
    if isinstance(value, dict):
        return {str(k): _nonneg(f"{field}[{k!r}]", x) for k, x in value.items()}
    return _nonneg(field, value)


def _nonneg(field, value) -> float:
    value = v.real(field, value)
    if value < 0:
        raise ConfigError(f"{field} must be ≥ 0 (a modelled time), got {value!r}; e.g. {field} = 0.5")
    return value


class Arrivals(_Params):
    """Poisson arrivals of rate ``rate``; service ``overhead + service·n`` per call of n samples.

    Parameters
    ----------
    rate : float
        ν, arrivals (environment rounds) per unit of simulated time.
    service : float or dict
        s, modelled time per sample; a dict {learner label: s} gives each learner its own.
    overhead : float or dict
        s₀, modelled time per call (update); a dict as for ``service``.
    take : str
        "queue" (the whole queue as one block), "one" (one arrival per call) or "auto"
        ("queue" for learners that update on blocks — Oja with qr="block" — "one" otherwise).
    max_queue : int or None
        Queue capacity in arrivals; an arrival finding it full drops the oldest waiting one.
    """

    def __init__(self, rate: float = 1.0, service=0.5, overhead=0.0, take: str = "auto", max_queue=None):
        self.rate = v.positive_float("arrivals.rate", rate)
        self.service = _per_learner("arrivals.service", service)
        self.overhead = _per_learner("arrivals.overhead", overhead)
        self.take = v.choice("arrivals.take", take, TAKES)
        self.max_queue = None if max_queue is None else v.integer("arrivals.max_queue", max_queue, minimum=1)

    def _for(self, field: str, label: str) -> float:
        val = getattr(self, field)
        if not isinstance(val, dict):
            return val
        if label not in val:
            raise ConfigError(f"arrivals.{field} gives no value for learner {label!r}; "
                              f"add {label!r} to it (it has {sorted(val)})")
        return val[label]

    def takes_queue(self, learner) -> bool:
        if self.take != "auto":
            return self.take == "queue"
        return getattr(learner, "qr", None) == "block"

    def attach(self, sim, slots, ckpts, validate, trackers, seed: int, env_label: str, T: int,
               durable=None) -> None:
        """The simulator's hook: start the arrival process, one server per learner and the checkpoints on ``sim``
        (where a durable run also answers SIGINT/SIGTERM, `onlinelab.experiment.durable.Durable.poll`)."""
        if slots[0].env.adaptive:
            raise ConfigError(f"arrivals need an oblivious environment; {env_label!r} is adaptive")
        gaps = BatchRNG.from_seed(seed, "environment", f"arrivals/{env_label}", 1).gens[0]
        servers = [_Server(self, slot, sim, T) for slot in slots]
        sim.process(self._arrive(sim, slots[0].env, trackers[0], servers, validate, gaps, T))
        for server in servers:
            sim.process(server.run())
        sim.process(_checkpoints(sim, ckpts, trackers, servers, durable, env_label))

    def _arrive(self, sim, env, tracker, servers, validate, gaps, T):
        k, what = 0, f"emit of environment {label_of(env)!r}"  # onlinelab.core.watchdog names it
        while True:
            gap = gaps.exponential(1.0 / self.rate)
            if sim.now + gap > T:
                return
            yield sim.timeout(gap)
            k += 1
            loss = call(what, k, env.emit, k, None)  # under the run's callback_timeout
            validate(loss, k)
            if k == 1:
                for server in servers:
                    server.check_joinable(loss)
            tracker.add(loss)
            for server in servers:
                server.receive(loss)


class _Server:
    """One learner's queue and service loop."""

    def __init__(self, arrivals, slot, sim, T):
        self.slot, self.sim, self.T = slot, sim, T
        self.s = arrivals._for("service", slot.label)
        self.s0 = arrivals._for("overhead", slot.label)
        self.take, self.whole = arrivals.take, arrivals.takes_queue(slot.learner)
        self.max_queue = arrivals.max_queue
        self.queue: list = []
        self.wakeup = None
        self.busy = self.processed = self.dropped = 0.0
        self.age_sum = 0.0

    def receive(self, loss):
        slot = self.slot
        play = slot.learner.act(slot.state, slot.rng)   # the subspace in force when the samples arrive
        value = loss.mixed_value(play.mixed)
        slot.recorder.add(value, value)
        if self.max_queue is not None and len(self.queue) >= self.max_queue:
            self.queue.pop(0)
            self.dropped += 1
        self.queue.append((self.sim.now, loss))
        if self.wakeup is not None and not self.wakeup.triggered:
            self.wakeup.succeed()

    def check_joinable(self, loss) -> None:
        """A server that takes whole queues needs a loss type that joins (see the module docstring)."""
        if self.whole and not callable(getattr(type(loss), "joined", None)):
            slot = self.slot
            raise ConfigError(
                f"arrivals.take = {self.take!r} makes learner {slot.label!r} take the whole queue as one block, "
                f"but environment {slot.env_label!r} emits {type(loss).__name__}, which cannot be joined into one "
                "block (it has no joined(losses) method; onlinelab.FactoredLoss, DataLoss and the least-squares "
                "stream's loss have one); "
                "use take = 'one' (one arrival per update), or a stream such as 'spiked-stream', "
                "'least-squares-stream' or 'logistic-data'")

    def queued_samples(self) -> int:
        return sum(samples_in(loss) for _, loss in self.queue)

    def run(self):
        slot = self.slot
        while True:
            if not self.queue:
                self.wakeup = self.sim.event()
                yield self.wakeup
            batch = self.queue if self.whole else self.queue[:1]
            self.queue = [] if self.whole else self.queue[1:]
            n = sum(samples_in(loss) for _, loss in batch)
            duration = self.s0 + self.s * n
            if self.sim.now + duration > self.T:   # would finish after the horizon: the run ends first
                return
            play = slot.learner.act(slot.state, slot.rng)
            yield self.sim.timeout(duration)
            block = batch[0][1] if len(batch) == 1 else type(batch[0][1]).joined([loss for _, loss in batch])
            slot.deliver(play, Feedback("full", loss=block) if slot.kind == "full"
                         else feedback_for(slot.kind, block, play)[0])
            self.busy += duration
            self.processed += n
            self.age_sum += sum((self.sim.now - t) * samples_in(loss) for t, loss in batch)

    def metrics(self) -> dict:
        now = max(self.sim.now, 1e-300)
        return {"queue_length": float(self.queued_samples()), "samples_processed": self.processed,
                "dropped": self.dropped, "utilisation": self.busy / now,
                "staleness": self.age_sum / self.processed if self.processed else float("nan")}


def samples_in(loss) -> int:
    """The samples a queued loss carries (its ``n_samples``; one for a loss type that does not say)."""
    return int(getattr(loss, "n_samples", 1))


def _checkpoints(sim, ckpts, trackers, servers, durable=None, env_label=""):
    for c in ckpts:
        yield sim.timeout(float(c) - sim.now)
        for tr in trackers:
            tr.snapshot()
        for server in servers:
            slot = server.slot
            extra = dict(slot.learner.diagnostics(slot.state))
            extra.update(slot.env.checkpoint_metrics(slot.learner, slot.state))
            extra.update(server.metrics())
            slot.recorder.checkpoint(int(c), slot.tracker, slot.runtime, extra)
        if durable is not None:
            durable.poll(int(c), env_label)


def make_arrivals(spec) -> Arrivals:
    """An `Arrivals` from an instance or a dict (the ``[arrivals]`` table of a config).

    Parameters
    ----------
    spec : Arrivals or dict
        What ``simulate(arrivals=...)`` accepts.
    """
    if isinstance(spec, Arrivals):
        return spec
    if isinstance(spec, dict):
        v.known_keys("the arrivals table", spec, Arrivals.param_names())
        return Arrivals(**spec)
    raise ConfigTypeError(f"arrivals must be an onlinelab.feedback.arrivals.Arrivals or a dict such as "
                          f"{{'rate': 2.0, 'service': 0.4}}, got {spec!r} ({type(spec).__name__})")
