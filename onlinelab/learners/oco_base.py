"""What every online-convex-optimisation learner shares: domain resolution, weights α_t, loss oracles, state.

theory §3.1–3.2 (docs/theory/03-oco-fenchel.md).  A learner plays z_t in a domain K (a vector domain or a spectral one —
the same code either way, see `onlinelab.geometry.spectral`), receives weight α_t > 0 and
loss ℓ_t, and suffers α_t ℓ_t(z_t).  ``weights`` is ``"constant"`` (α_t = 1), ``"linear"``
(α_t = t), a positive number (α_t = that number) or a list of positive numbers (α_t =
weights[t−1]).  ``domain=None`` takes the environment's domain (``Context.domain``).

A *prescient* ("+") learner sees ℓ_t before it plays: the simulator and the game pass it
as ``act(state, rng, loss=...)``.  Learners only touch losses through two oracles:
``linear_term(loss, z)`` (a (sub)gradient; a matrix loss is its own gradient) and
``leader_terms(loss)`` (what follow-the-leader sums; its ``argmin`` is the leader).

>>> alpha_schedule("linear")(3)
3.0
"""
from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.docs import Param
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.specs import make_domain
from onlinelab.losses.matrix import MatrixLoss
from onlinelab.losses.vector import LinearTerms

# The parameters the OCO learners share, documented once (onlinelab.core.docs: ``{params: weights, domain}``).
OCO_PARAMS = {
    "weights": Param('{"constant", "linear"}, float or list of float',
                     "Round weights α_t > 0 (theory §3.1): 1, t, a fixed number, or one value per round."),
    "domain": Param("str or None", 'Decision set, e.g. ``"simplex"``, ``"ball:1"``, ``"spectraplex"``; ``None`` plays '
                                   "the environment's declared domain."),
    "z_init": Param("array-like or None", "First play z_1 (a point of the domain, one per replicate or broadcast); "
                                          "``None`` starts at the domain's centre."),
    "regularizer": Param('{"euclidean", "entropy", "log-barrier"} or alias',
                         'Mirror map φ (aliases ``"frobenius"``, ``"von-neumann"``, ``"log-det"`` name the spectral '
                         "versions); its range over the domain enters the bound (theory §3.2)."),
    "eta": Param("float or None", "Learning rate η > 0; ``None`` tunes it for the run, √(2β·range/(T·loss_bound²)) "
                                  "(or 1/√T when the regulariser's range is infinite)."),
    "gamma": Param("float or None", "Step size γ > 0; ``None`` tunes it for the run like FTRL's η."),
    "z0": Param("array-like or None", "Starting point z_0; ``None`` starts at the domain's centre (argmin φ), which "
                                      "the bound assumes."),
}


class OCOState(NamedTuple):
    z: Any            # current point: (R, n) array or EigenPlay
    acc: Any          # Σ α_s g_s (dual array) or Σ α_s terms (leader learners); None before round 1
    prev: Any         # last round's gradient or terms (the optimistic hint m_t = ℓ_{t−1})
    t: int            # rounds completed
    scale: float      # η or γ in force
    dom: Any          # the resolved domain (Domain or SpectralDomain)


def check_weights(weights):
    """Validate ``weights`` (see the module docstring); raise ConfigError naming the fix."""
    if isinstance(weights, str):
        return v.choice("weights", weights, ("constant", "linear"))
    if isinstance(weights, numbers.Real) and not isinstance(weights, bool):
        return v.positive_float("weights", weights)
    if isinstance(weights, (list, tuple, np.ndarray)):
        arr = np.asarray(weights, dtype=float)
        if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ConfigError(f"weights must be positive (α_t > 0, theory §3.1), got {list(np.ravel(weights))!r}; "
                              "use 'constant', 'linear' or a list of positive numbers")
        return [float(a) for a in arr]
    raise ConfigError(f"weights must be 'constant', 'linear', a positive number or a list, got {weights!r}")


class Alpha:
    """α_t as a picklable callable of the 1-based round t (a plain class, so learners pickle, theory §3.1)."""

    def __init__(self, weights):
        self.weights = check_weights(weights)

    def __call__(self, t: int) -> float:
        w = self.weights
        if w == "constant":
            return 1.0
        if w == "linear":
            return float(t)
        if isinstance(w, float):
            return w
        if t > len(w):
            raise ConfigError(f"weights lists {len(w)} values but round {t} was reached; give one per round")
        return w[t - 1]


def alpha_schedule(weights) -> Alpha:
    """α as a function of the 1-based round t."""
    return Alpha(weights)


def linear_term(loss, z, who: str):
    """The (sub)gradient of ``loss`` at ``z`` — the first-order oracle."""
    if callable(getattr(loss, "gradient", None)):
        return loss.gradient(z)
    if isinstance(loss, MatrixLoss):
        return loss.dense()
    raise DomainError(f"{who} needs a first-order oracle but the loss {type(loss).__name__} has no gradient(); "
                      "give the loss a gradient(z) method")


def leader_terms(loss, who: str):
    """What a follow-the-leader learner adds up for ``loss``; ``.argmin(domain)`` gives the leader."""
    if hasattr(loss, "terms"):
        return loss.terms()
    if isinstance(loss, MatrixLoss):
        return LinearTerms(loss.dense())
    raise DomainError(f"{who} needs a leader oracle (argmin of summed losses) but the loss {type(loss).__name__} "
                      "has no terms(); use a linearised learner (ftrl, omd) with a gradient oracle instead")


def require_linear(loss, who: str) -> None:
    if not (getattr(loss, "is_linear", False) or isinstance(loss, MatrixLoss)):
        raise DomainError(f"{who} has a closed form only for linear losses, got {type(loss).__name__}; "
                          "use the non-prescient form (ftrl / omd), which linearises the loss")


class OCOLearner(Learner):
    """Base of the OCO learners: full information, weights α_t, a domain resolved against the context."""

    feedback = "full"
    prescient = False

    def _setup(self, weights, domain):
        self.weights = check_weights(weights)
        self._alpha = alpha_schedule(self.weights)
        if domain is not None and not isinstance(domain, str):
            raise ConfigError(f"domain must be a string such as 'simplex', 'ball:1' or 'spectraplex', got {domain!r}")
        self.domain = domain

    def alpha(self, t: int) -> float:
        return 1.0 if self.weights == "constant" else self._alpha(t)   # the common case without a call

    def resolve_domain(self, ctx):
        """The learner's domain for ``ctx``; a vector/spectral mismatch with the environment is an error."""
        dom = make_domain(self.domain or ctx.domain, ctx.d)
        if self.domain is not None and ctx.domain:
            env_dom = make_domain(ctx.domain, ctx.d)
            if env_dom.spectral != dom.spectral:
                raise DomainError(f"{self.name or type(self).__name__}: domain {self.domain!r} does not fit the "
                                  f"environment's domain {ctx.domain!r} (one is spectral, the other a vector set); "
                                  "leave domain unset to use the environment's")
        return dom

    def start_point(self, ctx, dom, z_init=None):
        if z_init is None:
            return dom.start(ctx.replicates)
        if dom.spectral:
            raise DomainError("z_init is supported on vector domains only; leave it unset on spectral domains")
        z = np.tile(np.asarray(z_init, dtype=float).reshape(-1), (ctx.replicates, 1))
        dom.check_rows("z_init", z)
        if not np.all(dom.contains(z)):
            raise DomainError(f"z_init = {list(z_init)!r} is outside the {dom.describe()}; pick a point inside it")
        return z

    def bounds_assumptions(self) -> dict:
        return {"α_t ≡ 1 (simulate measures unweighted regret)": self.weights in ("constant", 1.0)}
