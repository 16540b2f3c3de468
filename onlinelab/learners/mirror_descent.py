"""FTRL, FTRL+, OMD (linearised), OMD+ and optimistic FTRL over any domain and mirror map
(theory §3.2, docs/theory/03-oco-fenchel.md).

One code path for vectors and matrices: every step is `onlinelab.geometry.mirror.mirror_solve`
(argmin −⟨θ, z⟩ + φ(z) over K) of a dual point, and spectral domains solve on eigenvalues; greedy
steps go through `onlinelab.geometry.mirror.mirror_step`, which for the Euclidean map on a vector
domain is the projection Π_K(z − γα_t g_t) itself.

* ``ftrl``   z_t = solve(−η Σ_{s<t} α_s g_s)          (lazy; entropy on the simplex = Hedge,
  on the spectraplex = MEG; Euclidean on the spectraplex = Frobenius FTRL, lazy PGD)
* ``ftrl+``  z_t = solve(−η Σ_{s≤t} α_s g_s)          (prescient, linear losses)
* ``omd``    z_{t+1} = solve(∇φ(z_t) − γ α_t g_t)     (greedy; Euclidean = projected GD,
  log-barrier on the spectraplex = full-information log-det OMD)
* ``omd+``   z_t = solve(∇φ(z_{t−1}) − γ α_t g_t)     (implicit/prescient; closed form for linear losses)
* ``optimistic-ftrl`` z_t = solve(−η (Σ_{s<t} α_s g_s + α_t g_{t−1}))

``eta``/``gamma`` = None take the worst-case tuning √(2β·range / (T·G²)) with G the
environment's ``loss_bound``.  Gradients g_s are linearisations at the played points.

>>> import onlinelab as ol
>>> res = ol.simulate("experts-stochastic", [FTRL(regularizer="entropy")], T=200, replicates=2, seed=0)
>>> bool(res.violations().empty)
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.oco import ftrl_bound, prescient_bound
from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.core.protocol import Play
from onlinelab.core.registry import register_learner
from onlinelab.errors import DomainError
from onlinelab.geometry.mirror import (
    EntropyMap,
    LogBarrierMap,
    get_mirror,
    mirror_beta,
    mirror_range,
    mirror_solve,
    mirror_step,
)
from onlinelab.kernels import compiled_active
from onlinelab.kernels import simplex as simplex_kernels
from onlinelab.learners.oco_base import OCO_PARAMS, OCOLearner, OCOState, linear_term, require_linear


class _Mirror(OCOLearner):
    """Shared: regulariser check, tuned step, dual accumulation."""

    step_name = "eta"

    def __init__(self, regularizer="euclidean", eta=None, weights="constant", domain=None):
        self._common(regularizer, weights, domain)
        self.eta = None if eta is None else v.positive_float("eta", eta)

    def _common(self, regularizer, weights, domain):
        self.regularizer = regularizer
        self._mirror = get_mirror(regularizer)
        self._setup(weights, domain)

    @property
    def _step(self):
        return self.eta

    def _resolve(self, ctx):
        dom = self.resolve_domain(ctx)
        self._mirror.check(dom, self.name or type(self).__name__)
        rng_, beta = mirror_range(self._mirror, dom), mirror_beta(self._mirror, dom)
        if self._step is not None:
            step = self._step
        elif not np.isfinite(ctx.loss_bound):
            raise DomainError(f"{self.name or type(self).__name__} tunes {self.step_name} from the environment's "
                              f"loss_bound, which is {ctx.loss_bound!r} (no bound on the losses); pass "
                              f"{self.step_name}=... explicitly, or use an environment that declares a finite "
                              "loss_bound")
        elif np.isfinite(rng_):
            step = float(np.sqrt(2 * beta * rng_ / (max(ctx.T, 1) * max(ctx.loss_bound, 1e-12) ** 2)))
        else:
            step = 1.0 / np.sqrt(max(ctx.T, 1))
        return dom, rng_, beta, step

    def resolved_params(self, ctx) -> dict:
        return {**self.get_params(), self.step_name: self._resolve(ctx)[3]}

    def init(self, ctx, rng) -> OCOState:
        dom, _, _, step = self._resolve(ctx)
        z = mirror_solve(self._mirror, np.zeros_like(np.asarray(dom.as_array(dom.start(ctx.replicates)))), dom)
        return OCOState(z, None, None, 0, step, dom)

    def _acc(self, state, g):
        return g if state.acc is None else state.acc + g

    def update(self, state: OCOState, play: Play, feedback, rng) -> OCOState:
        return self.update_gradient(state, play, linear_term(feedback.loss, play.mixed, self.name))

    def update_gradient(self, state: OCOState, play: Play, raw) -> OCOState:
        """`update` once the round's gradient at the play, ``raw``, is known: a wrapper that builds its own
        linear loss (the bandit estimates of `onlinelab.learners.bandit_simplex`) hands over its gradient
        here, without wrapping it in a loss and a feedback only for `update` to unwrap them."""
        a = self.alpha(state.t + 1)
        g = raw if a == 1.0 else a * raw
        return OCOState(self._next_point(state, play, g), self._acc(state, g), raw, state.t + 1, state.scale,
                        state.dom)

    def _next_point(self, state, play, g):
        return play.mixed

    def alphas(self, t: int, n: int) -> np.ndarray:
        """α_{t+1}, …, α_{t+n} as an array (the weights of a block's rounds after round t)."""
        if self.weights == "constant":
            return np.ones(n)
        return np.array([self.alpha(t + 1 + i) for i in range(n)], dtype=float)

    def kernel_mirror(self, state) -> int | None:
        """Which compiled simplex kernel plays this learner's blocks (`onlinelab.kernels.simplex`): 0 for the
        entropy, 1 for the log-barrier on the plain simplex; None (the numpy path) for anything else, for a
        subclass (its methods may differ from the ones the kernel repeats) or with the switch off."""
        if type(self) not in (FTRL, OMD) or not compiled_active() or state.dom.spectral or state.dom.kind != "simplex":
            return None
        mirror = type(self._mirror)
        return 0 if mirror is EntropyMap else 1 if mirror is LogBarrierMap else None

    def bounds(self, ctx) -> list:
        dom, rng_, beta, step = self._resolve(ctx)
        return [ftrl_bound(self.name, rng_, beta, step, self._mirror.dual_stat, self.bounds_assumptions(),
                           ref=self._ref)]

    _ref = "theory §3.2 FTRL [std]"


@register_learner("ftrl")
@shared_params(OCO_PARAMS)
class FTRL(_Mirror):
    """Follow the regularised leader on linearised losses (Hedge/MEG with entropy, Frobenius FTRL, ...).

    Parameters
    ----------
    {params: regularizer, eta, weights, domain}
    """

    def act(self, state, rng) -> Play:
        if state.acc is None:
            return Play(state.z)
        return Play(mirror_solve(self._mirror, -state.scale * state.acc, state.dom))

    def play_block(self, state, block, rng=None):
        """All of a block's rounds at once for linear losses on a vector domain (onlinelab.core.slot), else None.

        The losses of an oblivious block are known in advance and a linear loss's gradient does not
        depend on the play, so the dual points −η Σ_{s<t} α_s g_s of every round are one running sum
        (sequential, as round by round) and the plays one row-wise ``mirror_solve``: the same numbers
        as n calls of `act` and `update`.  Returns ``(state, plays)``, plays stacked like
        the block's losses, (n·R, d) — the compiled kernel adds ``None, expected``, each round's ⟨p, g⟩ (n, R),
        so the simulator need not compute it again, and returns None for the plays when ``block.plays_wanted`` is
        False; FTRL draws nothing, so ``rng`` is unused.
        """
        G = getattr(block.stacked, "G", None)
        if (not getattr(block.stacked, "is_linear", False) or G is None or state.dom.spectral
                or self.feedback != "full"):       # a subclass told less than the loss must not read it here
            return None
        n, d = block.n, G.shape[-1]
        raw = G.reshape(n, -1, d)                               # (n, R, d): round i's gradient
        if self.kernel_mirror(state) == 0:                      # Hedge: the compiled loop, same numbers
            out = self._kernel_block(state, raw, block)
            if out is not None:
                return out
        a = self.alphas(state.t, n)
        g = raw if np.all(a == 1.0) else a[:, None, None] * raw
        if state.acc is None:          # round 1 plays the start point; acc[i] = Σ up to round i, as update() keeps it
            acc = np.add.accumulate(g, axis=0)
            plays = np.concatenate([state.z, mirror_solve(self._mirror, -state.scale * acc[:-1].reshape(-1, d),
                                                          state.dom)])
        else:                          # the dual points before each round: the previous sum, then the running ones
            acc = np.add.accumulate(np.concatenate([state.acc[None], g]), axis=0)
            plays = mirror_solve(self._mirror, -state.scale * acc[:-1].reshape(-1, d), state.dom)
            acc = acc[1:]
        R = raw.shape[1]
        return OCOState(plays[-R:], acc[-1].copy(), raw[-1], state.t + n, state.scale, state.dom), plays

    def _kernel_block(self, state, raw, block):
        """`play_block` through `onlinelab.kernels.simplex.ftrl_entropy_block`; None when numba cannot compile."""
        n, R, d = raw.shape
        acc = np.zeros((R, d)) if state.acc is None else np.array(state.acc, dtype=float)
        z = np.ascontiguousarray(state.z, dtype=float)
        keep = getattr(block, "plays_wanted", True)
        out = simplex_kernels.run(simplex_kernels.ftrl_entropy_block, raw, self.alphas(state.t, n), acc,
                                  state.acc is not None, z, float(state.scale), keep)
        if out is None:
            return None
        plays = out[0].reshape(-1, d)         # every round's plays, or (keep False) the last round's alone
        state = OCOState(plays[-R:], acc, raw[-1], state.t + n, state.scale, state.dom)
        return state, plays if keep else None, None, out[1]     # out[1]: each round's ⟨p, g⟩


@register_learner("optimistic-ftrl")
@shared_params(OCO_PARAMS)
class OptimisticFTRL(_Mirror):
    """Optimistic FTRL: the past gradients plus the hint α_t g_{t−1} (constants [unconf], theory §3.2).

    Parameters
    ----------
    {params: regularizer, eta, weights, domain}
    """

    def act(self, state, rng) -> Play:
        if state.acc is None:
            return Play(state.z)
        hint = self.alpha(state.t + 1) * state.prev
        return Play(mirror_solve(self._mirror, -state.scale * (state.acc + hint), state.dom))

    def bounds(self, ctx) -> list:
        return []


@register_learner("ftrl+")
@shared_params(OCO_PARAMS)
class FTRLPlus(_Mirror):
    """Prescient FTRL on linear losses: includes this round's loss; regret ≤ range/η.

    Parameters
    ----------
    {params: regularizer, eta, weights, domain}
    """

    prescient = True
    loss_needs = frozenset({"linear"})

    def act(self, state, rng, loss=None) -> Play:
        require_linear(loss, self.name)
        g = self.alpha(state.t + 1) * linear_term(loss, state.z, self.name)
        return Play(mirror_solve(self._mirror, -state.scale * self._acc(state, g), state.dom))

    def bounds(self, ctx) -> list:
        dom, rng_, beta, step = self._resolve(ctx)
        return [prescient_bound("ftrl+", rng_, step, self.bounds_assumptions(), "theory §3.2 FTRL+ [std]")]


class _OMDBase(_Mirror):
    step_name = "gamma"
    _ref = "theory §3.2 OMD, Lemma 6.21"

    def __init__(self, regularizer="euclidean", gamma=None, z0=None, weights="constant", domain=None):
        self._common(regularizer, weights, domain)
        self.gamma = None if gamma is None else v.positive_float("gamma", gamma)
        self.z0 = None if z0 is None else list(z0)

    @property
    def _step(self):
        return self.gamma

    def init(self, ctx, rng) -> OCOState:
        state = super().init(ctx, rng)
        if self.z0 is None:
            return state
        return state._replace(z=self.start_point(ctx, state.dom, self.z0))

    def _acc(self, state, g):
        return None        # greedy steps start from the last iterate: no running sum of gradients to keep

    def _mirror_step(self, state, z, g):
        return mirror_step(self._mirror, z, g, state.scale, state.dom)

    def bounds_assumptions(self) -> dict:
        return {**super().bounds_assumptions(), "z₀ = the domain's centre (argmin φ)": self.z0 is None}


@register_learner("omd")
@shared_params(OCO_PARAMS)
class OMD(_OMDBase):
    """Online mirror descent, linearised: z_{t+1} = argmin γα_t⟨g_t, z⟩ + D_φ(z, z_t) (Euclidean: projected GD).

    Parameters
    ----------
    regularizer : {"euclidean", "entropy", "log-barrier"} or alias, default "euclidean"
        Mirror map φ; Euclidean OMD is projected gradient descent.
    {params: gamma, z0, weights, domain}
    """

    def act(self, state, rng) -> Play:
        return Play(state.z)

    def _next_point(self, state, play, g):  # from the current iterate: the played one unless feedback was delayed
        return self._mirror_step(state, state.z, g)

    def play_block(self, state, block, rng=None):
        """A block of linear losses in one compiled loop (`onlinelab.kernels.simplex.omd_block`) with the entropy
        or the log-barrier on the simplex; else None, and the block is played round by round — the numpy
        reference, whose numbers the kernel repeats (the entropy bit for bit, the log-barrier to rounding).
        Returns ``(state, plays, None, expected)``: plays stacked like the block's losses, (n·R, d) (None when
        ``block.plays_wanted`` is False), and each round's expected loss ⟨p, g⟩, (n, R)."""
        G = getattr(block.stacked, "G", None)
        mirror = self.kernel_mirror(state)
        if not getattr(block.stacked, "is_linear", False) or G is None or mirror is None or self.feedback != "full":
            return None
        n, d = block.n, G.shape[-1]
        raw = G.reshape(n, -1, d)
        z = np.array(state.z, dtype=float)
        keep = getattr(block, "plays_wanted", True)
        out = simplex_kernels.run(simplex_kernels.omd_block, raw, self.alphas(state.t, n), z, float(state.scale),
                                  mirror, keep)
        if out is None:
            return None
        plays = out[0].reshape(-1, d) if keep else None
        return OCOState(z, None, raw[-1], state.t + n, state.scale, state.dom), plays, None, out[1]


@register_learner("omd+")
@shared_params(OCO_PARAMS)
class OMDPlus(_OMDBase):
    """Implicit (prescient) OMD on linear losses: z_t = argmin γα_tℓ_t(z) + D_φ(z, z_{t−1}); regret ≤ D/γ.

    Parameters
    ----------
    regularizer : {"euclidean", "entropy", "log-barrier"} or alias, default "euclidean"
        Mirror map φ; Euclidean OMD is projected gradient descent.
    {params: gamma, z0, weights, domain}
    """

    prescient = True
    loss_needs = frozenset({"linear"})

    def act(self, state, rng, loss=None) -> Play:
        require_linear(loss, self.name)
        g = self.alpha(state.t + 1) * linear_term(loss, state.z, self.name)
        return Play(self._mirror_step(state, state.z, g))

    def bounds(self, ctx) -> list:
        dom, rng_, beta, step = self._resolve(ctx)
        return [prescient_bound("omd+", rng_, step, self.bounds_assumptions(), "theory §3.2 OMD+ [derived]")]
