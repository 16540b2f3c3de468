"""The two extension points: `Learner` and `Environment`.

A learner is hyper-parameters on the object (``__init__`` takes only keyword
hyper-parameters and stores each under its own name) plus an explicit batched state
passed in and out of `Learner.act` / `Learner.update`.  An environment
emits one loss per round for all replicates; an adaptive one reads the
`onlinelab.core.protocol.HistoryView`, an oblivious one ignores it.

Subclass, then register with `onlinelab.register_learner` /
`onlinelab.register_environment` to make the class reachable by name from
configs and the CLI.

>>> import numpy as np, onlinelab as ol
>>> class Fixed(ol.Environment):
...     psd = True
...     def emit(self, t, history):
...         return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / 2, (self.replicates, self.d, self.d)))
>>> Fixed(d=3).get_params()
{'d': 3}
"""
from __future__ import annotations

import copy
import functools
import inspect
from typing import Any, ClassVar

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, DomainError, LossError


@functools.lru_cache(maxsize=1024)
def _init_params(init) -> tuple[str, ...]:
    """The parameter names of an ``__init__`` (read once per function: simulate asks a few dozen times a call)."""
    return tuple(p.name for p in inspect.signature(init).parameters.values()
                 if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


class _Params:
    """Introspect ``__init__`` to list, read and clone hyper-parameters (the scikit-learn convention)."""

    @classmethod
    def param_names(cls) -> list[str]:
        return list(_init_params(cls.__init__))

    @classmethod
    def param_defaults(cls) -> dict[str, Any]:
        sig = inspect.signature(cls.__init__)
        return {p.name: p.default for p in sig.parameters.values()
                if p.name != "self" and p.default is not inspect.Parameter.empty}

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The hyper-parameters, name → value (scikit-learn's ``get_params``).

        Parameters
        ----------
        deep : bool, default True
            Also list the parameters of hyper-parameters that have ``get_params`` themselves, as
            ``"outer__inner"`` (scikit-learn's convention for nested estimators).
        """
        missing = [n for n in self.param_names() if not hasattr(self, n)]
        if missing:
            raise ConfigError(f"{type(self).__name__}.__init__ must store each hyper-parameter as an attribute of "
                              f"the same name; missing: {', '.join(missing)}")
        out = {n: getattr(self, n) for n in self.param_names()}
        if deep:
            for name, val in list(out.items()):
                if hasattr(val, "get_params") and not isinstance(val, type):
                    out.update({f"{name}__{k}": x for k, x in val.get_params(deep=True).items()})
        return out

    def set_params(self, **params):
        """Change hyper-parameters in place and return self (scikit-learn's ``set_params``).

        The object is rebuilt through ``__init__`` with the new values, so every check and every derived
        attribute is the constructor's; ``"outer__inner"`` sets a nested hyper-parameter.

        Parameters
        ----------
        **params
            Hyper-parameter name → new value.

        Examples
        --------
        >>> import onlinelab as ol
        >>> ol.make_learner("meg").set_params(eta=0.5).eta
        0.5
        """
        from onlinelab.errors import did_you_mean
        current = self.get_params(deep=False)
        nested: dict[str, dict] = {}
        for key, val in params.items():
            outer, _, inner = key.partition("__")
            if outer not in current:
                raise ConfigError(f"{type(self).__name__} has no hyper-parameter {outer!r}"
                                  f"{did_you_mean(outer, current)}; its hyper-parameters: {', '.join(current)}")
            if inner:
                nested.setdefault(outer, {})[inner] = val
            else:
                current[outer] = val
        for outer, sub in nested.items():
            if not hasattr(current[outer], "set_params"):
                raise ConfigError(f"{type(self).__name__}.{outer} = {current[outer]!r} has no hyper-parameters to "
                                  f"set; set {outer} itself")
            current[outer] = copy.deepcopy(current[outer]).set_params(**sub)
        fresh = type(self)(**current)
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        return self

    def clone(self):
        """A new object with the same hyper-parameters and no state (``sklearn.base.clone`` calls this)."""
        return type(self)(**copy.deepcopy(self.get_params(deep=False)))

    def __sklearn_clone__(self):
        return self.clone()

    def __repr__(self) -> str:
        try:
            args = ", ".join(f"{k}={val!r}" for k, val in self.get_params().items())
        except ConfigError:
            args = "..."
        return f"{type(self).__name__}({args})"


class Learner(_Params):
    """Base class of learners.

    Class attributes: ``name`` (registry name, set by the decorator) and ``feedback``
    ("full", "bandit" or "first_order") — the simulator gives the learner exactly that.
    What it can play is declared by ``plays`` (``"any"``: the environment's domain;
    ``"spectral"``, ``"vector"`` or one domain kind such as ``"spectraplex"``), ``loss_sign``
    (``False``: needs negative semi-definite losses; ``True``: positive; ``None``: any),
    ``loss_needs`` (``{"linear", "leader"}`` oracles) and ``prescient``; a mismatch with the
    environment is a `onlinelab.errors.DomainError` before round 1 (`onlinelab.core.compat`).
    """

    name: ClassVar[str] = ""
    feedback: ClassVar[str] = "full"
    plays: ClassVar[str] = "any"
    loss_sign: ClassVar[bool | None] = None
    loss_needs: ClassVar[frozenset] = frozenset()
    prescient: ClassVar[bool] = False

    def init(self, ctx, rng) -> Any:
        """Return the initial batched state for ``ctx.replicates`` replicates.

        Parameters
        ----------
        ctx : Context
            What is fixed for the run: ``d``, ``T``, ``replicates`` and the environment's declarations.
        rng : BatchRNG
            The learner's random streams, one per replicate; draws have shape ``(R, *shape)``.
        """
        raise NotImplementedError

    def act(self, state, rng):
        """Return a `onlinelab.core.protocol.Play` for all replicates.

        Parameters
        ----------
        state : object
            The current batched state (as returned by `init` or `update`).
        rng : BatchRNG
            The learner's random streams.
        """
        raise NotImplementedError

    def update(self, state, play, feedback, rng) -> Any:
        """Return the next state given this round's play and feedback.

        Parameters
        ----------
        state : object
            The state the play was made from; it must not be modified.
        play : Play
            This round's play, as returned by `act` (including its private ``info``).
        feedback : Feedback
            What the learner is told: the loss (full), the scalar loss of its action (bandit) or a
            gradient (first order), according to `feedback`.
        rng : BatchRNG
            The learner's random streams.
        """
        raise NotImplementedError

    def resolved_params(self, ctx) -> dict[str, Any]:
        """Hyper-parameters with every automatic default (None) replaced by its value for ``ctx``.

        Parameters
        ----------
        ctx : Context
            The run's context.
        """
        return self.get_params()

    def bounds(self, ctx) -> list:
        """The `onlinelab.bounds.Bound` objects that apply to this learner in ``ctx``.

        Parameters
        ----------
        ctx : Context
            The run's context; assumptions of each bound are evaluated against it.
        """
        return []

    def diagnostics(self, state) -> dict[str, np.ndarray]:
        """Extra per-replicate metrics (name → (R,) array) logged at checkpoints.

        Parameters
        ----------
        state : object
            The current state.
        """
        return {}


def _checked_emit(emit):
    """Wrap an environment's ``emit`` so that returning something other than a loss is a clear LossError."""
    if getattr(emit, "_checked", False):
        return emit

    @functools.wraps(emit)
    def checked(self, t, history):
        loss = emit(self, t, history)
        if not callable(getattr(loss, "validate", None)):
            from onlinelab.core.base import label_of
            got = "None (a missing return?)" if loss is None else f"a {type(loss).__name__}"
            raise LossError(f"environment {label_of(self)!r}, round {t}: emit returned {got}; return a loss object "
                            "such as onlinelab.FactoredLoss(samples) or onlinelab.DenseLoss(matrices) "
                            "(shape (R, d, d))")
        return loss

    checked._checked = True
    return checked


class Environment(_Params):
    """Base class of environments (loss generators).

    Class attributes: ``domain`` (the decision set as a spec string: ``"spectraplex"``, the default,
    for matrix losses; ``"simplex"``, ``"ball:1"``, ``"box:-1:1"``, ``"euclidean"`` for vector losses, which
    take the matching domain object; round 1's loss must live on it), ``adaptive`` (reads the history; one
    instance per learner), ``psd`` (True: every loss ⪰ 0; False: every loss ⪯ 0; None: no sign),
    ``loss_bound`` (declared bound on ‖L_t‖₂, checked every round) and ``history_window``
    (how many past rounds an adaptive environment's history keeps: 1000 by default, so memory
    stays flat in T; ``0`` keeps none, ``None`` keeps every round and grows with T —
    docs/guide/writing-environments.md).
    After `reset`, ``self.rng`` is a `onlinelab.core.rng.BatchRNG`, ``self.T`` the
    horizon and ``self.replicates`` the number of replicates R.

    Parameters
    ----------
    d : int, default 8
        Dimension of the losses (≥ 2). Subclasses add their own parameters and call
        ``super().__init__(d=d)``.
    """

    name: ClassVar[str] = ""
    domain: ClassVar[str] = "spectraplex"
    adaptive: ClassVar[bool] = False
    psd: ClassVar[bool | None] = None
    loss_bound: ClassVar[float] = 1.0
    fro_sq_mean: ClassVar[float] = 1.0
    history_window: ClassVar[int | None] = 1000
    block_rounds: ClassVar[int] = 64

    def __init__(self, d: int = 8):
        from onlinelab.core.compat import env_domain, is_spectral
        from onlinelab.core.sizes import check_dimension  # d = 10⁶ is a clear error, not a MemoryError
        self.d = check_dimension(v.integer("d", d, minimum=2), spectral=is_spectral(str(env_domain(self))),
                                 where=f"environment {self.name or type(self).__name__!r}")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "emit" in cls.__dict__:
            cls.emit = _checked_emit(cls.__dict__["emit"])
        declared = cls.__dict__.get("domain")
        if not isinstance(declared, str) and hasattr(declared, "kind"):   # a domain object, where a spec is due
            raise DomainError(f"{cls.__name__} declares domain = {declared!r}, a domain object; declare its spec "
                              f"string, domain = {getattr(declared, 'spec', 'simplex')!r} (the losses it emits take "
                              "the object: make_domain(self.domain, self.d) from onlinelab.geometry.specs)")

    def reset(self, rng, T: int) -> None:
        """Prepare for a run of T rounds; subclasses that precompute call ``super().reset(rng, T)`` first.

        Parameters
        ----------
        rng : BatchRNG
            The environment's random streams, one per replicate; kept as ``self.rng``.
        T : int
            The horizon of the run.
        """
        self.rng, self.T, self.replicates = rng, T, rng.replicates

    def emit(self, t: int, history):
        """Return this round's loss (e.g. `onlinelab.losses.matrix.FactoredLoss`) for all replicates.

        Parameters
        ----------
        t : int
            The round, 1 ≤ t ≤ T (rounds count from 1).
        history : HistoryView or None
            Read-only history for adaptive environments (``None`` for oblivious ones).
        """
        raise NotImplementedError

    def emit_block(self, t: int, n: int):
        """Rounds t … t + n − 1 at once, as a `onlinelab.core.blocks.LossBlock`, or None to emit round by round.

        Only oblivious environments are asked (at most ``block_rounds`` rounds, blocks cut at checkpoints).
        The block must hold exactly the losses n calls of `emit` would return, drawing the same
        random numbers in the same order; the simulator then validates, sums and compares once per
        block while learners still play round by round (docs/guide/writing-environments.md).

        Parameters
        ----------
        t : int
            The first round of the block.
        n : int
            How many rounds.
        """
        return None

    def population_play(self):
        """The play that is optimal for the population the round just emitted was drawn from, or None.

        Used by ``simulate(..., comparator="truth")``: regret is then measured against this play,
        round by round, instead of the best fixed play in hindsight.  The default, None, means the
        environment knows no population truth (adversarial sequences have none).
        """
        return None

    def checkpoint_metrics(self, learner, state) -> dict[str, np.ndarray]:
        """Extra per-replicate metrics that need the environment's ground truth (default: none).

        Parameters
        ----------
        learner : Learner
            The learner being scored.
        state : object
            Its current state.
        """
        return {}

    def expected_losses(self, t: int, n: int):
        """The expected loss vectors of rounds t … t + n − 1, shape (n, d) or (n, R, d), or None (the default).

        An environment whose losses are random draws around known means (stochastic arms) returns
        them; every learner facing it then gets the per-arm metrics of `onlinelab.core.arm_metrics`
        (pseudo-regret against each round's best mean, expected pulls per arm, fraction of optimal pulls).

        Parameters
        ----------
        t : int
            The first round.
        n : int
            How many rounds.
        """
        return None

    def instance_bounds(self, ctx, learner) -> list:
        """Bounds that need this environment's instance — lower bounds, gap-dependent upper bounds — for ``learner``,
        added to the learner's own `Learner.bounds` (default: none).

        Parameters
        ----------
        ctx : Context
            The run's context.
        learner : Learner
            The learner being scored.
        """
        return []


def label_of(obj) -> str:
    """``name`` plus the hyper-parameters that differ from their defaults: ``logdet-omd(sampler='sparse')``.

    Parameters
    ----------
    obj : Learner or Environment
        The object to label.
    """
    defaults = obj.param_defaults()
    diff = [f"{k}={val!r}" for k, val in obj.get_params().items() if k not in defaults or defaults[k] != val]
    name = obj.name or type(obj).__name__
    return f"{name}({', '.join(diff)})" if diff else name
