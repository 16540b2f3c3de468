"""Follow-the-leader learners: FTL, FTL+ (be-the-leader), BESTRESP+, optimistic FTL (theory §2, §3.2).

See docs/theory/02-online-pca.md and docs/theory/03-oco-fenchel.md.

They sum the weighted losses' *terms* and play their leader (argmin over the domain):
for linear losses on the simplex / spectraplex that is a vertex / a bottom eigenvector
(the LMO); for quadratics an exact solve; for the y-player of the Fenchel game the
gradient of f at a weighted average (`onlinelab.losses.fenchel`).

* ``ftl``            z_t = argmin Σ_{s<t} α_s ℓ_s (z_1 = z_init, default the domain's centre);
                     no sublinear bound for linear losses (≈ T/2 on ``ftl-alternating``); for
                     λ_t-strongly convex losses regret ≤ Σ‖g_t‖²/(2λ_{1:t}) (``ftl-strongly-convex``).
* ``ftl+``           z_t = argmin Σ_{s≤t} α_s ℓ_s, prescient; regret ≤ 0.
* ``bestresp+``      z_t = argmin α_t ℓ_t, prescient; regret ≤ 0.
* ``optimistic-ftl`` z_t = argmin Σ_{s<t} α_s ℓ_s + α_t m_t with the hint m_t = ℓ_{t−1}.

>>> import onlinelab as ol
>>> res = ol.simulate("ftl-alternating", [FTL(), FTLPlus()], T=1000, seed=0)
>>> res.final("regret").round(2).tolist()   # FTL: ¼ + 999 − 499.5 (centre start); FTL+: −499.5
[499.75, -499.5]
"""
from __future__ import annotations

from onlinelab.bounds.oco import ftl_strongly_convex_bound, prescient_bound
from onlinelab.core.docs import shared_params
from onlinelab.core.protocol import Play
from onlinelab.core.registry import register_learner
from onlinelab.geometry.specs import make_domain
from onlinelab.learners.oco_base import OCO_PARAMS, OCOLearner, OCOState, leader_terms


class _Leader(OCOLearner):
    """Shared state handling: accumulate α_t·terms(ℓ_t); subclasses choose what to minimise."""

    loss_needs = frozenset({"leader"})

    def __init__(self, z_init=None, weights="constant", domain=None):
        self.z_init = None if z_init is None else list(z_init)
        self._setup(weights, domain)

    def init(self, ctx, rng) -> OCOState:
        dom = self.resolve_domain(ctx)
        return OCOState(self.start_point(ctx, dom, self.z_init), None, None, 0, 0.0, dom)

    def _leader(self, terms, state):
        return state.z if terms is None else terms.argmin(state.dom)

    def update(self, state: OCOState, play: Play, feedback, rng) -> OCOState:
        terms = leader_terms(feedback.loss, self.name)
        acc = terms.scaled(self.alpha(state.t + 1))
        acc = acc if state.acc is None else state.acc.plus(acc)
        return OCOState(play.mixed, acc, terms, state.t + 1, 0.0, state.dom)


@register_learner("ftl")
@shared_params(OCO_PARAMS)
class FTL(_Leader):
    """Follow the leader: argmin of the weighted past losses (no worst-case bound for linear losses).

    Parameters
    ----------
    {params: z_init, weights, domain}
    """

    def act(self, state, rng) -> Play:
        return Play(self._leader(state.acc, state) if state.t else state.z)

    def bounds(self, ctx) -> list:
        """Σ‖g_t‖²/(2λ_{1:t}) on vector domains when the losses report curvature (linear losses: +inf)."""
        if make_domain(self.domain or ctx.domain, ctx.d).spectral:
            return []
        return [ftl_strongly_convex_bound(self.bounds_assumptions())]


@register_learner("ftl+")
@shared_params(OCO_PARAMS)
class FTLPlus(_Leader):
    """Be the leader (prescient): argmin of the weighted losses up to and including this round; regret ≤ 0.

    Parameters
    ----------
    {params: z_init, weights, domain}
    """

    prescient = True

    def act(self, state, rng, loss=None) -> Play:
        now = leader_terms(loss, self.name).scaled(self.alpha(state.t + 1))
        return Play(self._leader(now if state.acc is None else state.acc.plus(now), state))

    def bounds(self, ctx) -> list:
        return [prescient_bound("ftl+", 0.0, 0.0, self.bounds_assumptions(), "theory §2/§3.2 be-the-leader [std]")]


@register_learner("bestresp+")
@shared_params(OCO_PARAMS)
class BestResponsePlus(_Leader):
    """Best response (prescient): argmin α_t ℓ_t of this round alone; regret ≤ 0.

    Parameters
    ----------
    {params: z_init, weights, domain}
    """

    prescient = True

    def act(self, state, rng, loss=None) -> Play:
        return Play(self._leader(leader_terms(loss, self.name), state))

    def bounds(self, ctx) -> list:
        return [prescient_bound("bestresp+", 0.0, 0.0, self.bounds_assumptions(), "theory §3.2 BESTRESP+ [std]")]


@register_learner("optimistic-ftl")
@shared_params(OCO_PARAMS)
class OptimisticFTL(_Leader):
    """Optimistic FTL: the past losses plus the hint α_t ℓ_{t−1} (Nesterov's y-player, theory §3.5).

    Parameters
    ----------
    {params: z_init, weights, domain}
    """

    def act(self, state, rng) -> Play:
        if state.acc is None:
            return Play(state.z)
        hint = state.prev.scaled(self.alpha(state.t + 1))
        return Play(self._leader(state.acc.plus(hint), state))
