"""Which learner can play which environment, decided from what both declare, before round 1.

A learner declares (class attributes, see `onlinelab.Learner`):

* ``plays`` — the decision set it plays: ``"any"`` (takes the environment's domain: the OCO
  family), ``"spectral"`` (any spectral domain: matrix losses), ``"vector"`` (any vector
  domain: vector losses) or one domain kind such as ``"spectraplex"`` or ``"euclidean"``;
* ``feedback`` — ``"full"``, ``"bandit"`` or ``"first_order"`` (a gradient at the play);
* ``loss_sign`` — the sign its losses must have: ``False`` for negative semi-definite losses
  (streaming PCA's ``L = −xxᵀ``: these learners maximise captured variance and would climb a
  positive loss), ``True`` for positive semi-definite ones, ``None`` for any sign; an
  environment that declares the opposite sign is refused (one that declares none is not);
* ``loss_needs`` — oracles it calls on a loss: ``"linear"`` (prescient closed forms) and
  ``"leader"`` (the argmin of summed losses, follow-the-leader);
* ``prescient`` — it sees the round's loss before playing, so it cannot face an adaptive environment.

An environment declares ``domain`` (default ``"spectraplex"``: spectral domains emit matrix
losses, vector domains vector losses), ``psd`` (the sign of its losses), ``adaptive``,
``feedback_kinds`` (default: full and bandit, plus first_order on vector domains) and
``loss_offers`` (default ``{"linear", "leader"}``; environments with non-linear losses list less).

`check_pairing` raises `onlinelab.errors.DomainError` naming both sides and the
registered learners that would fit; `onlinelab.simulate` calls it for every pair.
See the guide to writing environments and learners in ``docs/``.

>>> import onlinelab as ol
>>> mismatch(ol.make_learner("meg"), ol.make_environment("experts-stochastic"))
'plays the spectraplex (matrix losses) but environment {env} emits vector losses on the simplex'
>>> mismatch(ol.make_learner("ftrl"), ol.make_environment("experts-stochastic")) is None
True
"""
from __future__ import annotations

from onlinelab.errors import DomainError

SPECTRAL_KINDS = ("spectraplex", "fantope", "capped-density")
FAMILY_WORDS = {"any": "any domain", "spectral": "spectral domains (matrix losses)",
                "vector": "vector domains (vector losses)"}
SIGN_WORDS = {True: "positive semi-definite losses (psd = True)", False: "negative semi-definite losses (psd = False)",
              None: "losses of no declared sign (psd = None)"}


def env_domain(env) -> str:
    """The environment's declared domain string (``"spectraplex"`` when it declares none)."""
    return getattr(env, "domain", None) or "spectraplex"


def _kind(domain: str) -> str:
    return domain.split(":")[0]


def is_spectral(domain: str) -> bool:
    """Whether ``domain`` is a set of matrices (so the environment emits matrix losses)."""
    return _kind(domain) in SPECTRAL_KINDS


def _loss_kind(domain: str) -> str:
    return "matrix" if is_spectral(domain) else "vector"


def env_feedback_kinds(env) -> tuple:
    """The feedback kinds the environment's losses support (first-order needs a gradient: vector losses)."""
    kinds = getattr(env, "feedback_kinds", None)
    if kinds is not None:
        return tuple(kinds)
    return ("full", "bandit") if is_spectral(env_domain(env)) else ("full", "bandit", "first_order")


def env_offers(env) -> frozenset:
    """The loss oracles the environment's losses offer ("linear", "leader")."""
    offers = getattr(env, "loss_offers", None)
    return frozenset(("linear", "leader") if offers is None else offers)


def _plays_words(plays: str) -> str:
    if plays in FAMILY_WORDS:
        return FAMILY_WORDS[plays]
    if plays == "euclidean":
        return "unconstrained vectors in ℝⁿ (vector losses)"
    return f"the {plays} ({_loss_kind(plays)} losses)"


def _fits_domain(plays: str, domain: str) -> bool:
    if plays == "any":
        return True
    if plays == "spectral":
        return is_spectral(domain)
    if plays == "vector":
        return not is_spectral(domain)
    return _kind(domain) == plays


DECLARATIONS = ("plays", "feedback", "loss_sign", "loss_needs", "prescient")


def declarer(learner):
    """What to read a learner's declarations from: the object, or for a class whose declarations are properties
    (they depend on hyper-parameters, e.g. log-det OMD's feedback on its sampler) an instance with its defaults."""
    if isinstance(learner, type) and any(isinstance(getattr(learner, k, None), property) for k in DECLARATIONS):
        try:
            return learner()
        except Exception:  # noqa: BLE001  (a class without defaults: its class attributes are all there is)
            return learner
    return learner


def mismatch(learner, env) -> str | None:
    """Why ``learner`` cannot play ``env`` (a phrase with ``{env}`` for the environment's label), or None."""
    learner = declarer(learner)
    plays = getattr(learner, "plays", "any")
    domain = env_domain(env)
    if not _fits_domain(plays, domain):
        where = f"on {domain!r}" if ":" in domain else f"on the {domain}"
        return f"plays {_plays_words(plays)} but environment {{env}} emits {_loss_kind(domain)} losses {where}"
    feedback = getattr(learner, "feedback", "full")
    if feedback not in env_feedback_kinds(env):
        return (f"asks for {feedback} feedback but environment {{env}} supports only "
                f"{', '.join(env_feedback_kinds(env))} feedback")
    sign = getattr(learner, "loss_sign", None)
    if sign is not None and getattr(env, "psd", None) is (not sign):  # undeclared (None) passes: checked per round
        climb = " (it maximises captured variance, so it would climb these losses)" if sign is False else ""
        declared = SIGN_WORDS[getattr(env, "psd", None)]
        return f"needs {SIGN_WORDS[sign]} but environment {{env}} declares {declared}{climb}"
    missing = sorted(set(getattr(learner, "loss_needs", ())) - env_offers(env))
    if missing:
        return (f"needs the {' and '.join(missing)} oracle of its losses but environment {{env}} emits losses "
                f"without it (loss_offers = {sorted(env_offers(env))})")
    if getattr(learner, "prescient", False) and getattr(env, "adaptive", False):
        return "is prescient (it sees the loss before playing) but environment {env} is adaptive"
    return None


def learners_that_fit(env) -> list[str]:
    """Registered learners whose declarations fit ``env``."""
    from onlinelab.core.registry import learner_class, learner_names
    return [n for n in learner_names() if mismatch(learner_class(n), env) is None]


def check_pairing(label: str, learner, env_label: str, env) -> None:
    """Raise `DomainError` if ``learner`` cannot play ``env``, naming both and what would fit.

    Parameters
    ----------
    label : str
        The learner's label in the run.
    learner : onlinelab.Learner
        The learner.
    env_label : str
        The environment's label in the run.
    env : onlinelab.Environment
        The environment.
    """
    why = mismatch(learner, env)
    if why is None:
        return
    fit = learners_that_fit(env)
    raise DomainError(f"learner {label!r} " + why.format(env=repr(env_label))
                      + (f"; learners that fit: {', '.join(fit)}" if fit else "; no registered learner fits it"))


def check_declarations(env, env_label: str) -> None:
    """Raise `DomainError` if ``env`` declares a ``loss_bound`` or ``psd`` the checks cannot use.

    A NaN bound would switch the per-round norm check off (every comparison with NaN is false),
    and a complex one has no order; ``float("inf")`` is how to declare no bound.

    Parameters
    ----------
    env : onlinelab.Environment
        The environment.
    env_label : str
        Its label in the run.
    """
    import math
    import numbers
    bound = getattr(env, "loss_bound", 1.0)
    if isinstance(bound, bool) or not isinstance(bound, numbers.Real):  # complex, strings, None
        raise DomainError(f"environment {env_label!r} declares loss_bound = {bound!r} ({type(bound).__name__}); "
                          "declare a positive real number, or float('inf') for no bound")
    if math.isnan(bound) or bound <= 0:
        raise DomainError(f"environment {env_label!r} declares loss_bound = {bound!r}, which would turn the "
                          "per-round norm check off; declare a positive number, or float('inf') for no bound")
    if getattr(env, "psd", None) not in (True, False, None):
        raise DomainError(f"environment {env_label!r} declares psd = {env.psd!r}; declare True (losses ⪰ 0), "
                          "False (losses ⪯ 0) or None (no sign)")
    domain = getattr(env, "domain", None)
    if domain is not None and not isinstance(domain, str):   # a domain object set in __init__, say
        raise DomainError(f"environment {env_label!r} declares domain = {domain!r}; declare its spec string, domain = "
                          f"{getattr(domain, 'spec', 'simplex')!r}, and build the object its losses take from it: "
                          "make_domain(self.domain, self.d)")


def _declares_none(env) -> bool:
    """Whether ``env`` declares no domain: it sets ``domain = None``, or only the base class (the last class of its
    MRO that names one; no import of `onlinelab.core.base`, which imports this module) gives it its default."""
    owners = [c for c in type(env).__mro__ if "domain" in vars(c)]
    return getattr(env, "domain", None) is None or ("domain" not in vars(env) and len(owners) <= 1)


def check_declared_domain(env, loss, declared, where: str) -> None:
    """Refuse a loss that lives on another decision set than the one ``env`` declares (the simulator asks on round 1).

    The learners play on the declared set and the comparator minimises over the loss's, so a mismatch would
    give a wrong curve or a numpy error deep in a learner: a vector loss from an environment that declares a
    spectral domain (the default ``"spectraplex"`` when it declares none), a matrix loss under a vector
    domain, or a vector loss on another vector set (docs/guide/experts.md); `onlinelab.simulate` calls it.

    Parameters
    ----------
    env : Environment
        The environment that emitted ``loss``.
    loss : object
        Its first loss.
    declared : Domain or SpectralDomain
        The set its ``domain`` spec names (`onlinelab.geometry.specs.make_domain`).
    where : str
        Where the loss came from, for the message.

    >>> import numpy as np, onlinelab as ol
    >>> from onlinelab.geometry.specs import make_domain
    >>> check_declared_domain(ol.Environment(d=2), ol.DenseLoss(np.eye(2)[None]), make_domain("spectraplex", 2), "")
    """
    kind, spec = getattr(loss, "kind", None), getattr(declared, "spec", declared)   # a loss of no kind: not checked
    vector = kind == "vector"
    dom, name = getattr(loss, "domain", None), type(loss).__name__
    if declared.spectral and vector:
        told = ("declares no domain, so it is taken to be 'spectraplex'" if _declares_none(env)
                else f"declares domain = {spec!r}")
        raise DomainError(f"{where}: emitted a {name} (a vector loss on {dom!r}) but {told}, where learners play "
                          f"matrices; declare domain = {getattr(dom, 'spec', 'simplex')!r} on the class")
    if not declared.spectral and kind == "matrix":
        raise DomainError(f"{where}: emitted a {name} (a matrix loss) but declares domain = {spec!r}, a vector set; "
                          f"emit onlinelab.losses.vector.LinearLoss(G, make_domain({spec!r}, d)) (or QuadraticLoss), "
                          "or declare a spectral domain ('spectraplex', 'fantope:m', 'capped-density:m')")
    if vector and getattr(dom, "n", declared.n) != declared.n:
        raise DomainError(f"{where}: emitted a loss on {dom!r}, of dimension {dom.n}, but the environment has "
                          f"d = {declared.n}; build the loss's domain as make_domain(self.domain, self.d)")
    if vector and dom is not None and not declared.same_set(dom):
        raise DomainError(f"{where}: emitted a loss on {dom!r} but declares domain = {spec!r}; the learners play on "
                          "the declared set and regret would be measured over the loss's: build the loss's domain "
                          "from the declaration, make_domain(self.domain, self.d), or declare "
                          f"domain = {getattr(dom, 'spec', spec)!r}")


def check_pairings(learners: dict, envs: list, label_of) -> None:
    """`check_pairing` for every (learner, environment) of a run; ``learners`` maps label → learner.

    Parameters
    ----------
    learners : dict
        Label → `onlinelab.Learner`.
    envs : list
        The `onlinelab.Environment` objects of the run.
    label_of : callable
        Gives an environment's label.
    """
    for env in envs:
        check_declarations(env, label_of(env))
        for label, learner in learners.items():
            check_pairing(label, learner, label_of(env), env)
