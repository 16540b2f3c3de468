"""Stochastic arms beyond Bernoulli: Gaussian arms, and Bernoulli arms whose means change (theory §10).

* ``gaussian-arms``  — arm i pays a reward N(means[i], σ²); the loss is 1 − reward (the arms'
  convention: environments/arms.py), so losses have no sign and no bound (``psd = None``,
  ``loss_bound = inf``): the bounds that assume ℓ ∈ [0, 1] do not apply, those for Gaussian rewards do.
* ``piecewise-arms`` — Bernoulli arms whose means jump at change points: ``means`` lists the phases'
  means, ``changes`` the rounds at which the next phase starts (a schedule), or ``changes = k`` draws k
  change points uniformly among rounds 2 … T (and, with ``means = None``, every phase's means
  uniformly in [0, 1]) from the generator of ``seed``, the same for every replicate.

Both know their means (``expected_losses``), so every learner facing them gets the per-arm metrics
of `onlinelab.core.arm_metrics`; on piecewise arms ``pseudo_regret`` is the dynamic regret,
against the best arm of each phase.  Draws come from each replicate's own stream and a block of n
rounds draws exactly what n rounds do.

>>> GaussianArms(means=[0.0, 1.0], sigma=0.5).d
2
>>> env = PiecewiseArms(means=[[0.9, 0.1], [0.1, 0.9]], changes=[51])
>>> import onlinelab as ol
>>> env.reset(ol.core.rng.BatchRNG.from_seed(0, "environment", "demo", replicates=1), T=100)
>>> env.expected_losses(50, 2).tolist()
[[0.09999999999999998, 0.9], [0.9, 0.09999999999999998]]
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.bandits import ArmInstance, arms_bounds
from onlinelab.core import validation as v
from onlinelab.core.blocks import LossBlock
from onlinelab.core.registry import register_environment
from onlinelab.environments.arms import CLASSIC, KnownMeans, _Arms, check_means, named_means
from onlinelab.errors import ConfigError
from onlinelab.losses.vector import LinearLoss

DEFAULT_PHASES = [[0.8, 0.5, 0.2], [0.2, 0.5, 0.8], [0.5, 0.8, 0.2]]


@register_environment("gaussian-arms")
class GaussianArms(KnownMeans, _Arms):
    """Stochastic Gaussian arms: rewards N(means[i], σ²), losses 1 − reward.

    Parameters
    ----------
    means : list of float, str or None
        Reward means (any reals, at least 2 arms), or the name of a Bernoulli instance
        (environments/arms.py INSTANCES) whose means to use; None is the classic 10-armed means.
    sigma : float
        The rewards' standard deviation σ > 0 (known to the policies that take it).
    """

    family = "gaussian"
    psd = None
    loss_bound = float("inf")
    reference_learner = "ucb1"    # what `onlinelab check environment` plays it with (Hedge needs bounded losses)

    def __init__(self, means=None, sigma: float = 1.0):
        if isinstance(means, str):
            mu = named_means(means)
        elif means is None:
            mu = list(CLASSIC)
        else:
            if not hasattr(means, "__len__") or isinstance(means, bytes):
                raise ConfigError(f"means must be a list of arm means, got {means!r}; e.g. means = [0.0, 0.5]")
            mu = [v.real(f"means[{i}]", m) for i, m in enumerate(means)]
            if len(mu) < 2:
                raise ConfigError(f"means must list at least 2 arms, got {list(means)!r}")
        self.means = means if means is None or isinstance(means, str) else mu
        sigma = v.real("sigma", sigma)
        if sigma <= 0:
            raise ConfigError(f"sigma must be > 0 (the standard deviation of every arm's Gaussian rewards), got "
                              f"{sigma!r}; e.g. sigma = 1.0")
        self.sigma = sigma
        self._mu = np.asarray(mu, dtype=float)
        super().__init__(d=len(self._mu))

    def emit(self, t, history):
        return LinearLoss(1.0 - (self._mu + self.sigma * self.rng.normal(self.d)), self._simplex)

    def emit_block(self, t, n):
        """n rounds at once: the same normals, in the same order, as n calls of `emit`."""
        z = np.swapaxes(self.rng.normal((n, self.d)), 0, 1)           # (n, R, K)
        return LossBlock.of_rows(LinearLoss, 1.0 - (self._mu + self.sigma * z), domain=self._simplex)


@register_environment("piecewise-arms")
class PiecewiseArms(_Arms):
    """Bernoulli arms whose reward means change at change points (piecewise stationary).

    Parameters
    ----------
    means : list of list of float or None
        The means of each phase (P lists of K values in [0, 1]); None: three phases of three arms in
        which the best arm moves (0.8, 0.5, 0.2 → 0.2, 0.5, 0.8 → 0.5, 0.8, 0.2), or, with an integer
        ``changes``, random means.
    changes : list of int, int or None
        The rounds at which phases 2 … P start, strictly increasing, each in [1, T]; an integer k draws
        k change points uniformly among rounds 2 … T; None spaces the P − 1 changes evenly over T.
    seed : int
        Seed of the random change points and means (the same for every replicate).
    """

    reference_learner = "sw-ucb"

    def __init__(self, means=None, changes=None, seed: int = 0):
        self.seed = v.integer("seed", seed, minimum=0)
        if changes is not None and not isinstance(changes, (list, tuple)):
            changes = v.integer("changes", changes, minimum=1)
        elif changes is not None:
            changes = [v.integer(f"changes[{i}]", c) for i, c in enumerate(changes)]
            bad = [c for c in changes if c < 1]
            if bad:
                raise ConfigError(f"changes = {changes} holds {bad[0]}, outside [1, T]: a change point is the round at "
                                  "which the next phase starts; use rounds 1 … T")
            if any(b <= a for a, b in zip(changes[:-1], changes[1:], strict=True)):
                raise ConfigError(f"changes = {changes} must be strictly increasing (phase 2 starts first); sort them")
        self.changes = changes
        if means is None and not isinstance(changes, int):
            means = [list(m) for m in DEFAULT_PHASES]
        if means is not None:
            if isinstance(means, str) or not hasattr(means, "__len__") or len(means) < 1:
                raise ConfigError(f"means must be a list of phases, each a list of arm means, got {means!r}; e.g. "
                                  "means = [[0.9, 0.1], [0.1, 0.9]]")
            means = [check_means(m, f"means[{p}]") for p, m in enumerate(means)]
            if len({len(m) for m in means}) != 1:
                raise ConfigError(f"every phase of means must list the same number of arms, got "
                                  f"{[len(m) for m in means]} arms; give each phase K means")
            want = changes + 1 if isinstance(changes, int) else None if changes is None else len(changes) + 1
            if want is not None and len(means) != want:
                raise ConfigError(f"means lists {len(means)} phases but changes gives {want}; list one phase more "
                                  "than there are change points")
        self.means = means
        super().__init__(d=len(means[0]) if means is not None else 5)

    def reset(self, rng, T):
        super().reset(rng, T)
        draw = np.random.default_rng(self.seed)
        if isinstance(self.changes, int):
            if self.changes > T - 1:
                raise ConfigError(f"changes = {self.changes} random change points do not fit in rounds 2 … T = {T}; "
                                  f"use at most {T - 1}")
            cuts = np.sort(draw.choice(np.arange(2, T + 1), size=self.changes, replace=False))
        elif self.changes is None:
            P = len(self.means)
            cuts = np.array([j * T // P + 1 for j in range(1, P)], dtype=int)
        else:
            cuts = np.asarray(self.changes, dtype=int)
            if cuts.size and cuts[-1] > T:
                raise ConfigError(f"changes = {list(self.changes)} holds {int(cuts[cuts > T][0])}, outside [1, T] "
                                  f"for T = {T}: a change point is the round at which the next phase starts; use "
                                  f"rounds 1 … {T}, or a longer run")
        phases = self.means if self.means is not None else draw.random((len(cuts) + 1, self.d)).tolist()
        self._cuts, self._phases = cuts, np.asarray(phases, dtype=float)

    def _mu_of(self, rounds) -> np.ndarray:
        """The reward means of round(s) t: (…, K)."""
        return self._phases[np.searchsorted(self._cuts, rounds, side="right")]

    def instance(self) -> ArmInstance:
        """The first phase's means and the change points (after `reset`)."""
        return ArmInstance(tuple(float(m) for m in self._phases[0]), "bernoulli", 1.0,
                           tuple(int(c) for c in self._cuts))

    def expected_losses(self, t, n):
        return 1.0 - self._mu_of(np.arange(t, t + n))

    def instance_bounds(self, ctx, learner) -> list:
        return arms_bounds(self.instance(), ctx, learner)

    def emit(self, t, history):
        return LinearLoss((self.uniforms() >= self._mu_of(t)).astype(float), self._simplex)

    def emit_block(self, t, n):
        """n rounds at once: the same uniforms, in the same order, as n calls of `emit`."""
        mu = self._mu_of(np.arange(t, t + n))[:, None, :]
        return LossBlock.of_rows(LinearLoss, (self.uniform_rows(n) >= mu).astype(float), domain=self._simplex)
