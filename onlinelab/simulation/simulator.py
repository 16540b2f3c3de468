"""The event loop: learners against environments, one simpy event per round for all replicates.

``simulate`` plays every learner against every environment for T rounds and R
replicates.  Per round (the protocol, docs/guide/writing-learners.md): each learner turns its state into a
play; the environment emits the loss (an oblivious one once for all learners — common
random numbers — an adaptive one per learner, seeing only the `HistoryView`);
the learner gets exactly its feedback kind; the recorders add what the round cost.
A single simpy process drives the rounds and yields one timeout per round, so the
loop's overhead does not grow with R or with the number of learners.

Seeds: one root seed; streams keyed by (role, learner label, environment label, replicate) — see `onlinelab.core.rng`.
BLAS runs single-threaded inside the loop (threadpoolctl); parallelism belongs to processes.

>>> import onlinelab as ol
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=50, replicates=2, seed=3)
>>> sorted(m for m in res.metrics.metric.unique() if not m.startswith("bound:"))
['comparator_loss', 'cumulative_loss', 'realized_regret', 'regret', 'runtime_s']
"""
from __future__ import annotations

import time

import simpy

from onlinelab.core import validation as v
from onlinelab.core.base import Environment, Learner, label_of
from onlinelab.core.blas import limit_threads
from onlinelab.core.blocks import BlockFeed, blocks_match_emit
from onlinelab.core.compat import check_declared_domain, check_pairings
from onlinelab.core.heap import keep_freed_memory
from onlinelab.core.metrics import COMPARATORS, LossTracker
from onlinelab.core.progress import Progress
from onlinelab.core.protocol import Context
from onlinelab.core.registry import make_environment, make_learner
from onlinelab.core.rng import BatchRNG
from onlinelab.core.schedule import _checkpoints, default_checkpoints  # noqa: F401  (default_checkpoints re-exported)
from onlinelab.core.sizes import check_run
from onlinelab.core.slot import Slot, feedback_for  # noqa: F401  (feedback_for: the shared feedback rule, re-exported)
from onlinelab.core.watchdog import call, time_limit
from onlinelab.errors import ConfigError, OnlinelabError, SimulationError
from onlinelab.geometry.specs import make_domain
from onlinelab.kernels import use_compiled
from onlinelab.runs.result import Result, build_result


def _learners(learners) -> dict[str, Learner]:
    if learners is None:
        raise ConfigError("learners is None; pass a learner, a registered name such as 'meg', or a list or dict of "
                          "them")
    if isinstance(learners, (Learner, str)):
        learners = [learners]
    if isinstance(learners, dict):
        items = list(learners.items())
    else:
        items = [(None, lrn) for lrn in learners]
    out: dict[str, Learner] = {}
    for label, lrn in items:
        if isinstance(lrn, str):   # a registered name, built with its defaults
            lrn = make_learner(lrn)
        if not isinstance(lrn, Learner):
            raise ConfigError(f"learners must be onlinelab.Learner instances, got {lrn!r} ({type(lrn).__name__}); "
                              "build them with onlinelab.make_learner(name, **params)")
        label = label or label_of(lrn)
        if label in out:
            raise ConfigError(f"two learners share the label {label!r}; pass a dict {{label: learner}} to name them")
        out[label] = lrn
    if not out:
        raise ConfigError("learners is empty; pass at least one learner")
    return out


def _environments(environment) -> list[Environment]:
    envs = environment if isinstance(environment, (list, tuple)) else [environment]
    out = []
    for env in envs:
        if isinstance(env, str):
            env = make_environment(env)
        if not isinstance(env, Environment):
            raise ConfigError(f"environment must be an onlinelab.Environment or a registered name, got {env!r}")
        out.append(env)
    if not out:
        raise ConfigError("environment is an empty list; pass an environment, a registered name or a list of them, "
                          "e.g. simulate('spiked-covariance', learners, T=100)")
    return out


def _run_one(env, env_label, learners, T, R, seed, ckpts, progress, durable=None, delay=None, arrivals=None,
             comparator="exact") -> Result:
    ctx = Context(d=env.d, T=T, replicates=R, loss_bound=env.loss_bound, psd=env.psd, adaptive=env.adaptive,
                  fro_sq_mean=env.fro_sq_mean, domain=getattr(env, "domain", None) or "spectraplex")

    declared = make_domain(ctx.domain, env.d)   # the set the learners play (none declared: the spectraplex)

    def validate(loss, t):
        if t == 1:   # round 1's loss lives on the declared set, or no learner updates (onlinelab.core.compat)
            check_declared_domain(env, loss, declared, f"environment {env_label!r}, round 1")
        loss.validate(f"environment {env_label!r}, round {t}", R, env.d, env.loss_bound, env.psd)

    def fresh_env():
        e = env.clone()
        e.reset(BatchRNG.from_seed(seed, "environment", env_label, R), T)
        return e

    if comparator == "truth" and type(env).population_play is Environment.population_play:
        raise ConfigError(f"comparator='truth' needs the population optimum of environment {env_label!r}, which it "
                          "does not define (population_play); use comparator='exact' (best in hindsight) or 'none'")

    def tracker(e):
        return LossTracker(R, env.d, comparator, e if comparator == "truth" else None)

    shared = None if env.adaptive else fresh_env()
    shared_tracker = None if env.adaptive else tracker(shared)
    slots = []
    for label, lrn in learners.items():
        if env.adaptive:
            own = fresh_env()
            slots.append(Slot(label, lrn, own, env_label, ctx, seed, tracker(own)))
        else:
            slots.append(Slot(label, lrn, shared, env_label, ctx, seed, shared_tracker))
    timing = {"body_s": 0.0, "env_s": 0.0, "metrics_s": 0.0}
    first, back = 1, None
    if durable is not None:  # resuming: the whole loop state comes back from a checkpoint (onlinelab.runs.checkpoint)
        back = durable.restore(env_label)
        if back is not None:
            first, slots, shared, shared_tracker, timing = (back["t"] + 1, back["slots"], back["shared"],
                                                            back["shared_tracker"], back["timing"])
    pending = back.get("pending") if back is not None else {"block": None, "pos": 0}  # onlinelab.core.blocks
    trackers = [shared_tracker] if shared_tracker is not None else [s.tracker for s in slots]
    ck = set(int(c) for c in ckpts)
    sim = simpy.Environment()
    clock = None if delay is None else delay.attach(sim, slots, seed, env_label, T)  # onlinelab.feedback.delays
    if back is None and not any(slot.bounds(ctx) for slot in slots):
        for tr in trackers:   # no bound reads the loss statistics (‖L‖², …): the trackers need not sum them
            tr.statistics = False
    blocks = shared is not None and blocks_match_emit(type(shared))
    feed = BlockFeed(shared, shared_tracker, pending, ckpts, env_label, R) if blocks else None

    def rounds(sim):
        t = first
        while t <= T:
            b0 = time.perf_counter()
            loss = block = None
            if feed is not None and clock is None:  # a fresh block is played whole (onlinelab.core.slot)
                block, loss = feed.next_block(t)
            elif feed is not None:
                loss = feed.next(t)
            elif shared is not None:
                loss = call(f"emit of environment {env_label!r}", t, shared.emit, t, None)  # onlinelab.core.watchdog
                validate(loss, t)
                shared_tracker.add(loss)
            if feed is not None and t == 1:   # the feed validated it; the declared domain is checked here
                check_declared_domain(env, loss if block is None else block.stacked, declared,
                                      f"environment {env_label!r}, round 1")
            timing["env_s"] += time.perf_counter() - b0
            for slot in slots:
                if block is None:
                    slot.step(t, loss, validate)
                else:
                    slot.step_block(t, block, validate)
            start, t = t, t if block is None else t + block.n - 1   # t: the last round played
            if clock is not None:  # the feedback events due at the end of round t fire, in arrival order
                yield clock.round_end(t)
            if t in ck:
                m0 = time.perf_counter()
                for tr in trackers:
                    tr.snapshot()
                for slot in slots:
                    slot.checkpoint(t)
                timing["metrics_s"] += time.perf_counter() - m0
            if progress is not None:
                progress.advance(t - start + 1)
            timing["body_s"] += time.perf_counter() - b0
            if durable is not None:  # a checkpoint of everything above when due; raises when asked to stop
                durable.after_round(t, env_label, lambda t=t: {"t": t, "slots": slots, "shared": shared,
                                                               "shared_tracker": shared_tracker, "timing": timing,
                                                               "pending": pending}, t - start + 1)
            yield sim.timeout(t - start + 1)   # one simpy event per round, or per block (its rounds at once)
            t += 1

    if arrivals is None:
        sim.process(rounds(sim))
    else:  # samples arrive as a process and queue for the learners (onlinelab.feedback.arrivals)
        arrivals.attach(sim, slots, ckpts, validate, trackers, seed, env_label, T, durable)
    start = time.perf_counter()
    error = None
    try:
        sim.run()
    except Exception as exc:  # keep what finished readable
        error = exc
    wall = time.perf_counter() - start
    timing.update(wall_s=wall, loop_s=max(wall - timing["body_s"], 0.0),
                  learner_s={s.label: s.runtime for s in slots})
    result = build_result(env, env_label, ctx, slots, timing, seed, failed=error)
    if error is not None:
        where = f"round {int(sim.now) + first} of {T}"
        if isinstance(error, OnlinelabError):
            error.partial = result
            raise error
        raise SimulationError(f"the run failed in {where} ({type(error).__name__}: {error}); "
                              "completed checkpoints are in the exception's .partial result", partial=result) from error
    return result


def simulate(environment, learners, *, T: int, replicates: int = 1, seed: int = 0, checkpoints=None,
             progress: bool = False, blas_threads: int = 1, durable=None, delay=None, arrivals=None,
             comparator: str = "exact", compiled: bool = True, callback_timeout: float | None = None) -> Result:
    """Play ``learners`` against ``environment`` (an Environment, a registered name, or a list of them).

    Returns a `onlinelab.Result` with one tidy row per (learner, environment,
    replicate, checkpoint, metric).  Same seed ⇒ identical metrics, bit for bit.
    On failure the raised exception carries ``.partial``, the Result of the completed checkpoints
    of every environment reached (environments 1 … k − 1 whole when environment k fails).

    Parameters
    ----------
    environment : Environment, str, or list of them
        The environment(s) to play: instances, or registered names built with their defaults.
    learners : Learner, str, list or dict
        The learners: one, a list (labelled by name and non-default hyper-parameters), or a dict
        label → learner. Each faces each environment. A string is a registered name, built with its
        defaults (``"meg"`` is ``make_learner("meg")``).
    T : int
        Number of rounds; rounds are numbered 1, …, T.
    replicates : int, default 1
        Independent repetitions R, run side by side as the leading array axis.
    seed : int, default 0
        Root seed. Every learner's and environment's random streams derive from it and from their
        labels, so the same seed gives identical metrics, bit for bit.
    checkpoints : int, list of int or None, default None
        Rounds at which metrics are recorded: ``None`` for 40 log-spaced rounds, an integer for that
        many, or explicit round numbers in [1, T]. T is always included.
    progress : bool, default False
        Show a progress bar.
    blas_threads : int, default 1
        BLAS threads during the run (one per process is the fast choice for batched small matrices).
    durable : onlinelab.experiment.durable.Durable or None, default None
        Periodic checkpoints of the whole loop state, and resume from them (``onlinelab resume``).
    delay : None, int, dict or onlinelab.feedback.delays.DelayModel
        Delayed feedback (`onlinelab.feedback.delays`): round t's feedback reaches the learner at the end of
        round t + d_t.  ``None`` is the ordinary protocol; ``0`` runs the delay machinery with no delay.
    arrivals : None, dict or onlinelab.feedback.arrivals.Arrivals
        Asynchronous arrivals for streaming learners (`onlinelab.feedback.arrivals`); T is then simulated time.
    comparator : {"exact", "truth", "none"}, default "exact"
        What regret is measured against: the best fixed play in hindsight (exact), the environment's
        population optimum played every round (``Environment.population_play``; cheaper for long
        streams), or nothing (no regret, comparator or bound metrics; the fastest). Recorded in
        ``Result.meta["comparator"]`` and the run directory's meta.json.
    compiled : bool, default True
        Let learners, environments and recorders that have a compiled block kernel (`onlinelab.kernels`)
        use it; False runs the numpy reference everywhere (the same numbers, to 1e-12, more slowly). Config key:
        ``[run] compiled``.
    callback_timeout : float or None, default None
        Seconds an environment's ``emit`` or an adaptive delay rule may run before the run stops with an error
        naming the callback and the round; a call running over 10 s logs what the loop waits on
        (`onlinelab.core.watchdog`: ``signal.setitimer``, POSIX and the main thread only). Config key:
        ``[run] callback_timeout``.

    Notes
    -----
    Before round 1 the run's memory and time are estimated as ``onlinelab run`` estimates them
    (`onlinelab.core.sizes`): a run that cannot fit is a ConfigError, a long one a PreflightWarning.
    On glibc the first call raises the C library's mmap and trim thresholds for the rest of the process, so
    that each block's arrays reuse the pages the last block freed (`onlinelab.core.heap`; the process may then
    keep up to 64 MiB of freed memory); ``ONLINELAB_KEEP_HEAP=0`` in the environment keeps the defaults.
    """
    T = v.integer("T", T, minimum=1)
    R = v.integer("replicates", replicates, minimum=1)
    seed = v.integer("seed", seed, minimum=0)
    blas_threads = v.integer("blas_threads", blas_threads, minimum=1)
    comparator = v.choice("comparator", comparator, COMPARATORS)
    if not isinstance(compiled, bool):
        raise ConfigError(f"compiled must be True or False, got {compiled!r}; pass compiled=False to run the numpy "
                          "reference path")
    lrns = _learners(learners)
    envs = _environments(environment)
    check_pairings(lrns, envs, label_of)
    ckpts = _checkpoints(T, checkpoints)
    if delay is not None:
        from onlinelab.feedback.delays import make_delay
        delay = make_delay(delay)
    if arrivals is not None:
        from onlinelab.feedback.arrivals import make_arrivals
        arrivals = make_arrivals(arrivals)
        if delay is not None:
            raise ConfigError("delay and arrivals cannot be combined; pass one of them")
    check_run(envs, n_learners=len(lrns), T=T, R=R, rate=None if arrivals is None else arrivals.rate)
    labels = [label_of(e) for e in envs]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"two environments share the label {labels!r}; give them different parameters")
    bar = Progress(total=T * len(envs)) if progress else None
    results = []
    keep_freed_memory()   # each block's arrays reuse freed pages (onlinelab.core.heap; ONLINELAB_KEEP_HEAP=0: off)
    with limit_threads(blas_threads), use_compiled(compiled), time_limit(callback_timeout):
        for env, env_label in zip(envs, labels, strict=True):
            if durable is not None and durable.finished(env_label) is not None:
                results.append(durable.finished(env_label))  # done before an interruption
                continue
            try:
                results.append(_run_one(env, env_label, lrns, T, R, seed, ckpts, bar, durable, delay, arrivals,
                                        comparator))
            except OnlinelabError as exc:  # keep the environments that finished before this one
                if results and getattr(exc, "partial", None) is not None:
                    exc.partial = Result.concat(results + [exc.partial])
                raise
            if durable is not None:
                durable.env_done(env_label, results[-1])
    if bar is not None:
        bar.close()
    return Result.concat(results)
