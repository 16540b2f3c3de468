"""Conformance checkers for user code: ``check_environment`` and ``check_learner`` (``onlinelab check``).

Each runs a short simulation and a set of contract checks, and raises
`onlinelab.errors.CheckError` naming the first one that fails and how to fix it.
What is checked:

* parameters: ``get_params()`` lists every ``__init__`` argument, ``clone()`` rebuilds an
  equal object, and a fresh instance pickles (runs on other processes need that);
* a run of ``T`` rounds through `onlinelab.simulate`, which validates every loss
  (shape, symmetry, finite values, the declared norm bound and sign) at the round it appears;
* determinism: the same seed gives identical metrics, bit for bit;
* environments: an adaptive one sees read-only views of the learner's mixed strategy and
  past actions (a write fails the run) and never the current action;
* learners: ``update`` must not modify the state it was given (explicit state), the
  feedback kind must be one the simulator knows, and a ``play_block`` (against an oblivious
  environment that emits blocks) must give the run that ``act``/``update`` give round by round,
  bit for bit — reported only when at least one block was played whole;
* declarations: a ``loss_bound`` that is a positive real number (NaN would switch the norm check
  off; ``float("inf")`` declares no bound) and ``psd`` in True/False/None;
* randomness only from the generators the simulator passes: numpy's global RNG (``np.random.*``
  functions) and the ``random`` module are seeded before a run and must be untouched after it.

>>> check_environment("switching", T=10)
['declarations', 'parameters', 'pickle', 'no global RNG', 'run', 'deterministic', 'seed changes the losses']
"""
from __future__ import annotations

import copy
import pickle

import numpy as np

from onlinelab.core.base import Environment, Learner
from onlinelab.core.compat import env_domain, mismatch
from onlinelab.core.protocol import Context, HistoryView, frozen_mixed
from onlinelab.core.registry import make_environment, make_learner
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import CheckError, ConfigError, OnlinelabError

# a learner that can play each kind of domain, for checking an environment on its own
REFERENCE_LEARNERS = {"spectraplex": "meg", "simplex": "ftrl", "euclidean": "sgd"}
# the partner tried after a learner's own reference_environment (small and quick), before the others by name
FALLBACK_ENVIRONMENT = "spiked-covariance"


def _fresh(obj, maker):
    return maker(obj) if isinstance(obj, str) else obj


def _check_params(obj) -> None:
    kind = type(obj).__name__
    try:
        params = obj.get_params()
        twin = obj.clone()
    except Exception as exc:
        raise CheckError(f"{kind}: parameters: {exc}; store every __init__ argument as an attribute of the same "
                         "name and accept it back as a keyword") from exc
    if repr(twin.get_params()) != repr(params):
        raise CheckError(f"{kind}: clone() gave parameters {twin.get_params()!r}, expected {params!r}; "
                         "__init__ must store its arguments unchanged (or normalised idempotently)")
    try:
        pickle.loads(pickle.dumps(twin))
    except Exception as exc:
        raise CheckError(f"{kind}: does not pickle ({exc}); keep lambdas and open resources out of the object") from exc


def _metrics(env, learner, T, R, seed, checkpoints=None):
    from onlinelab.simulation.simulator import simulate
    try:
        res = simulate(env, {"checked": learner}, T=T, replicates=R, seed=seed, checkpoints=checkpoints)
    except OnlinelabError as exc:
        raise CheckError(f"{type(env).__name__} with {type(learner).__name__}: a {T}-round run failed: {exc}") from exc
    m = res.metrics
    return m[m.metric != "runtime_s"].reset_index(drop=True)


def _global_states():
    import random
    return np.random.get_state(), random.getstate()


def _check_global_rng(subject, env, learner, T, R, seed, hint) -> None:
    """Seed the global generators, run, and require them untouched: randomness comes only from the passed rngs."""
    import random
    saved = _global_states()
    try:
        np.random.seed(20240607)
        random.seed(20240607)
        before = _global_states()
        _metrics(env.clone(), learner.clone(), T, R, seed)
        after = _global_states()
    finally:
        np.random.set_state(saved[0])
        random.setstate(saved[1])
    used = []
    if not (before[0][2] == after[0][2] and np.array_equal(before[0][1], after[0][1])):
        used.append("numpy's global RNG (np.random.* functions)")
    if before[1] != after[1]:
        used.append("the random module")
    if used:
        raise CheckError(f"{type(subject).__name__}: the run drew from {' and '.join(used)}; {hint} — the global "
                         "generators make runs irreproducible and replicates dependent")


def _snapshot(obj):
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if hasattr(obj, "__dict__") or hasattr(obj, "_asdict") or isinstance(obj, (tuple, list, dict)):
        return copy.deepcopy(obj)
    return obj


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "__dict__") and hasattr(b, "__dict__"):
        return _same(vars(a), vars(b))
    return a == b


def _reference_learner(env) -> Learner:
    """The environment's ``reference_learner`` attribute, else a learner for its ``domain``."""
    name = getattr(env, "reference_learner", None) or REFERENCE_LEARNERS.get(getattr(env, "domain", "spectraplex"))
    if name is None:
        raise ConfigError(f"no reference learner for domain {getattr(env, 'domain', None)!r}; pass learner=... "
                          "(or set the environment class attribute reference_learner = '<registered name>')")
    return make_learner(name)


def partner_environment(learner) -> Environment:
    """An environment ``learner`` can play, for checking it on its own: its ``reference_environment`` if that fits,
    else ``spiked-covariance`` if that fits, else the first registered environment (in name order, built with its
    defaults) whose declarations fit it.

    Fitting is `onlinelab.core.compat.mismatch`: decision set, feedback kind, loss sign, loss oracles and
    prescience (see the guide to writing learners in ``docs/guide/``).  Raises `onlinelab.errors.CheckError`
    naming ``--with ENV`` when none fits.

    Parameters
    ----------
    learner : Learner
        The learner to find a partner for.

    Examples
    --------
    >>> partner_environment(make_learner("exp3")).domain
    'simplex'
    """
    reference = getattr(learner, "reference_environment", None)
    tried = []
    for name, env in _default_environments(first=reference):
        if mismatch(learner, env) is None:
            return env
        tried.append(f"{name} ({env_domain(env)})")
    plays = getattr(learner, "plays", "any")
    raise CheckError(f"{type(learner).__name__} (plays {plays!r}, feedback {learner.feedback!r}): no registered "
                     f"environment with default parameters fits it; pass one with --with ENV (check_learner(..., "
                     f"env=...)). Tried: {', '.join(tried) or 'none'}")


def _default_environments(first=None):
    """(name, instance with defaults) of every registered environment, ``first`` and a small spectral one first (d = 8,
    quick to check), then by name; ones that cannot be built with their defaults are skipped."""
    from onlinelab.core.registry import environment_names
    for name in dict.fromkeys([n for n in (first, FALLBACK_ENVIRONMENT) if n] + environment_names()):
        try:
            yield name, make_environment(name)
        except Exception:  # noqa: BLE001  (no usable defaults, or data that cannot load: not a partner)
            continue


def _check_partner(learner, env, label) -> None:
    """Refuse a partner ``learner`` cannot play, before any run, naming environments that fit and ``--with``."""
    why = mismatch(learner, env)
    if why is None:
        return
    fit = [name for name, e in _default_environments() if mismatch(learner, e) is None]
    fix = (f"pick a fitting partner with --with ENV, e.g. {', '.join(fit[:6])}" if fit
           else "no registered environment fits it: pass your own with --with ENV")
    raise CheckError(f"{type(learner).__name__} {why.format(env=repr(label))}; {fix}")


def _shared_checks(subject, env, learner, T, R, seed, hint):
    """Parameters and pickling of ``subject``, a run, and the same run again: identical metrics."""
    _check_params(subject)
    _check_global_rng(subject, env, learner, T, R, seed, hint.split(" and keep")[0])
    first = _metrics(env.clone(), learner.clone(), T, R, seed)
    if not first.equals(_metrics(env.clone(), learner.clone(), T, R, seed)):
        raise CheckError(f"{type(subject).__name__}: the same seed gave different metrics; {hint}")
    return first


def check_environment(env, learner=None, *, T: int = 30, replicates: int = 2, seed: int = 0) -> list[str]:
    """Run the conformance checks on ``env`` (an instance or a registered name); returns the checks passed.

    Parameters
    ----------
    env : Environment or str
        The environment to check: an instance or a registered name.
    learner : Learner, str or None, default None
        The learner to play it with; ``None`` picks a reference learner for the environment's domain.
    T : int, default 30
        Rounds of the test runs.
    replicates : int, default 2
        Replicates of the test runs.
    seed : int, default 0
        Seed of the test runs (another seed is used to check that the seed matters).
    """
    env = _fresh(env, make_environment)
    if not isinstance(env, Environment):
        raise CheckError(f"{env!r} is not an onlinelab.Environment; subclass onlinelab.Environment")
    from onlinelab.core.compat import check_declarations
    try:
        check_declarations(env, type(env).__name__)
    except OnlinelabError as exc:
        raise CheckError(str(exc)) from exc
    learner = _fresh(learner, make_learner) if learner is not None else _reference_learner(env)
    fix = "draw randomness only from self.rng (set by reset) and keep no state across runs outside reset()"
    first = _shared_checks(env, env, learner, T, replicates, seed, fix)
    passed = ["declarations", "parameters", "pickle", "no global RNG", "run", "deterministic"]
    other = _metrics(env.clone(), learner.clone(), T, replicates, seed + 1)
    comp = lambda m: m[m.metric == "comparator_loss"].value.to_numpy()  # noqa: E731
    differs = not np.array_equal(comp(first), comp(other))
    passed.append("seed changes the losses" if differs else "losses do not depend on the seed")
    return passed


def check_learner(learner, env=None, *, T: int = 30, replicates: int = 2, seed: int = 0) -> list[str]:
    """Run the conformance checks on ``learner`` (an instance or a registered name) against ``env``.

    Parameters
    ----------
    learner : Learner or str
        The learner to check: an instance or a registered name.
    env : Environment, str or None, default None
        The environment to play it against; ``None`` picks one that fits (`partner_environment`).
    T : int, default 30
        Rounds of the test runs.
    replicates : int, default 2
        Replicates of the test runs.
    seed : int, default 0
        Seed of the test runs.
    """
    learner = _fresh(learner, make_learner)
    if not isinstance(learner, Learner):
        raise CheckError(f"{learner!r} is not an onlinelab.Learner; subclass onlinelab.Learner")
    label = env if isinstance(env, str) else type(env).__name__
    env = partner_environment(learner) if env is None else _fresh(env, make_environment)
    _check_partner(learner, env, label)
    if learner.feedback not in ("full", "bandit", "first_order"):
        raise CheckError(f"{type(learner).__name__}.feedback = {learner.feedback!r}; use 'full', 'bandit' or "
                         "'first_order'")
    _shared_checks(learner, env, learner, T, replicates, seed, "draw randomness only from the rng passed to act/update")
    passed = ["feedback kind", "parameters", "pickle", "no global RNG", "run", "deterministic"]
    _check_state_untouched(learner.clone(), env.clone(), T, replicates, seed)
    passed.append("update leaves its input state untouched")
    if _check_blocks(learner, env, T, replicates, seed):
        passed.append("play_block equals act/update")
    return passed


def _check_blocks(learner, env, T, R, seed) -> bool:
    """A learner with ``play_block`` facing an oblivious environment: the run in blocks must equal, bit for bit,
    the same run with ``play_block`` switched off (every round through act/update).  The runs have one checkpoint,
    so the blocks are as long as the environment allows.  False when no block was played whole (no ``play_block``,
    an adaptive environment, one that emits no blocks, or a learner that declined every block)."""
    if getattr(learner, "play_block", None) is None or env.adaptive:
        return False
    whole, played = learner.clone(), []
    inner = whole.play_block

    def counted(*args):
        out = inner(*args)
        played.append(out is not None)
        return out
    whole.play_block = counted
    blocked = _metrics(env.clone(), whole, T, R, seed, checkpoints=[T])
    if not any(played):
        return False
    plain = learner.clone()
    plain.play_block = None          # the slot then plays every block round by round
    if not blocked.equals(_metrics(env.clone(), plain, T, R, seed, checkpoints=[T])):
        raise CheckError(f"{type(learner).__name__}.play_block: a run in blocks differs from the same run round by "
                         "round; play_block must return exactly the plays, realised losses and state of n calls of "
                         "act and update and take the same draws from rng, bit for bit (or return None to decline "
                         "a block)")
    return True


def _check_state_untouched(learner, env, T, R, seed) -> None:
    from onlinelab.core.slot import feedback_for
    ctx = Context(d=env.d, T=T, replicates=R, loss_bound=env.loss_bound, psd=env.psd, adaptive=env.adaptive,
                  domain=getattr(env, "domain", "spectraplex"))
    rng = BatchRNG.from_seed(seed, "learner", "check", R)
    env.reset(BatchRNG.from_seed(seed, "environment", "check", R), T)
    state, actions, losses = learner.init(ctx, rng), [], []
    for t in range(1, min(T, 10) + 1):
        if getattr(learner, "prescient", False):  # a "+" learner sees the round's loss first (oblivious only)
            loss = env.emit(t, None)
            play = learner.act(state, rng, loss=loss)
        else:
            play = learner.act(state, rng)
            loss = env.emit(t, HistoryView(t, frozen_mixed(play.mixed), actions, losses) if env.adaptive else None)
        fb, _, _ = feedback_for(learner.feedback, loss, play)
        before = _snapshot(state)
        new = learner.update(state, play, fb, rng)
        if not _same(before, state):
            raise CheckError(f"{type(learner).__name__}.update modified its input state in round {t}; return a new "
                             "state (copy arrays before writing into them)")
        state = new
