"""Multi-armed bandit environments on the simplex of K arms: losses ℓ_t ∈ {0, 1}^K (theory §8).

* ``bernoulli-arms``   — stochastic: arm i pays reward 1 with probability ``means[i]``, so its
  loss 1 − reward has mean 1 − means[i] (SMPyBandits' convention: ``means`` are reward means).
  The default is the classic 10-armed problem 0.1, 0.2, …, 0.8, 0.85, 0.9; ``means`` may also name
  one of the classic instances of `INSTANCES`.  It knows its means, so every learner gets the
  per-arm metrics (pseudo-regret, pulls, optimal pulls) and bandit learners the bounds of theory §10
  (onlinelab.bounds.bandits).
* ``adversarial-arms`` — oblivious but non-stationary: every ``block`` rounds a different arm is
  the good one (loss mean 0.1), arm 0 is steadily decent (0.4), the rest poor (0.7); the best arm
  in hindsight is arm 0 while the leader keeps changing.
* ``sign-chaser``      — adaptive linear losses on the unit ball for delayed OGD (see the class).
* ``adaptive-arms``    — adaptive: the arm the learner currently favours (largest p_t(i)) costs 1,
  the others are Bernoulli(``means``) as above; it sees p_t, never the sampled arm.
* ``split-chaser``     — adaptive, the bandit analogue of ``sign-chaser``: of two groups of arms the
  one holding more of p_t costs 1 per arm, the other 0; it punishes late feedback (delayed Exp3).

The arms environments declare ``domain = "simplex"``, ``psd = True`` (every loss ≥ 0) and ``loss_bound = 1``, so the
bandit bounds' assumption ℓ_t ∈ [0, 1]^K is declared and checked every round.

>>> BernoulliArms().d, BernoulliArms(means=[0.2, 0.5]).best_loss_mean
(10, 0.5)
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.bandits import ArmInstance, arms_bounds
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.blocks import LossBlock, rounds_per_block
from onlinelab.core.registry import register_environment
from onlinelab.errors import ConfigError, UnknownNameError, did_you_mean
from onlinelab.geometry.domains import Simplex
from onlinelab.kernels import arms as arms_kernels
from onlinelab.kernels import compiled_active
from onlinelab.losses.vector import LinearLoss

CLASSIC = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
#: Named Bernoulli instances (reward means), e.g. ``bernoulli-arms(means="hard-gaps")`` (theory §10).
INSTANCES = {
    "classic": CLASSIC,                                           # SMPyBandits' 10 arms
    "linear-9": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],    # the means 0.1 … 0.9
    "low-means": [0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.02, 0.01, 0.01, 0.01],  # Garivier and Cappé (2011)
    "hard-gaps": [0.5] + [0.49] * 9,                              # gaps 0.01: ln t/kl is far off at any t ≤ 10⁶
}


def named_means(name: str, field: str = "means") -> list[float]:
    """The reward means of a named instance of `INSTANCES` (an UnknownNameError names the others)."""
    if name not in INSTANCES:
        hint = did_you_mean(name, list(INSTANCES))
        raise UnknownNameError(f"{field} must be a list of arm means in [0, 1] or the name of an instance "
                               f"({', '.join(INSTANCES)}), got {name!r}{hint if 'did you mean' in hint else ''}; "
                               f"e.g. {field} = [0.2, 0.5] or {field} = 'classic'")
    return list(INSTANCES[name])


def check_means(means, field: str = "means") -> list[float]:
    """Reward means of K ≥ 2 Bernoulli arms, each in [0, 1] (or the name of an instance of `INSTANCES`)."""
    if isinstance(means, str):
        return named_means(means, field)
    if isinstance(means, bytes) or not hasattr(means, "__len__"):
        raise ConfigError(f"{field} must be a list of arm means in [0, 1], got {means!r}; e.g. {field} = [0.2, 0.5]")
    out = [v.real(f"{field}[{i}]", m) for i, m in enumerate(means)]
    if len(out) < 2:
        raise ConfigError(f"{field} must list at least 2 arms, got {list(means)!r}")
    for i, m in enumerate(out):
        if not 0.0 <= m <= 1.0:
            raise ConfigError(f"{field}[{i}] = {m!r} is outside [0, 1]: a Bernoulli arm's mean is a probability; "
                              "rescale the arms into [0, 1]")
    return out


def threshold_rows(u: np.ndarray, thresholds: np.ndarray, below: bool, out: np.ndarray, start: int) -> None:
    """Write the 0/1 losses of uniforms u (R, n, K) into out[start:start + n] (round-major, (N, R, K)):
    1{u < θ} when ``below``, else 1{u ≥ θ}; θ is (1, K) or one row per round of ``out``.  A compiled pass
    (`onlinelab.kernels.arms`) when the switch is on; the numpy comparison otherwise — the same losses."""
    if compiled_active() and arms_kernels.threshold_into.call(u, thresholds, below, out, start) is not None:
        return
    n = u.shape[1]
    th = thresholds if thresholds.shape[0] == 1 else thresholds[start:start + n]
    hit = np.less(u, th) if below else np.greater_equal(u, th)
    out[start:start + n] = np.swapaxes(hit, 0, 1)


class _Arms(Environment):
    psd = True
    loss_bound = 1.0
    domain = "simplex"
    chunk = 256   # rounds of uniforms drawn at once: the same stream as one draw per round, fewer calls

    def reset(self, rng, T):
        super().reset(rng, T)
        self._simplex = Simplex(self.d)
        self.chunk = max(256, self.block_rounds)   # a block's uniforms in one draw (the same stream in any chunks)
        self._u, self._pos = None, self.chunk

    @property
    def block_rounds(self) -> int:
        """Rounds per emitted block: about 2 MB of losses (`onlinelab.core.blocks.rounds_per_block`); an adaptive
        environment is never asked."""
        return rounds_per_block(getattr(self, "replicates", 1), self.d)

    def uniforms(self) -> np.ndarray:
        """This round's K uniforms per replicate, (R, K), served from a chunk of rounds."""
        if self._pos == self.chunk:
            self._u, self._pos = self.rng.random((self.chunk, self.d)), 0
        self._pos += 1
        return self._u[:, self._pos - 1]

    def uniform_rows(self, n: int) -> np.ndarray:
        """The next n rounds' uniforms, (n, R, K): exactly what n calls of `uniforms` return."""
        parts, left = [], n
        while left:
            if self._pos == self.chunk:
                self._u, self._pos = self.rng.random((self.chunk, self.d)), 0
            take = min(left, self.chunk - self._pos)
            parts.append(self._u[:, self._pos:self._pos + take])
            self._pos += take
            left -= take
        return np.swapaxes(parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1), 0, 1)

    def loss_rows(self, n: int, thresholds, below: bool) -> np.ndarray:
        """The next n rounds' 0/1 losses, (n, R, K): 1{u < θ} (``below``) or 1{u ≥ θ} on the uniforms that n
        calls of `uniforms` return; θ (K,) or one row per round, (n, K)."""
        thresholds = np.ascontiguousarray(np.atleast_2d(np.asarray(thresholds, dtype=float)))
        out = np.empty((n, self.replicates, self.d))
        done = 0
        while done < n:
            if self._pos == self.chunk:
                self._u, self._pos = self.rng.random((self.chunk, self.d)), 0
            take = min(n - done, self.chunk - self._pos)
            threshold_rows(self._u[:, self._pos:self._pos + take], thresholds, below, out, done)
            self._pos += take
            done += take
        return out


class KnownMeans:
    """Mixin of stochastic arms that know their reward means ``self._mu``: expected losses 1 − μ for the per-arm
    metrics, and the bounds of theory §10 for the learners (onlinelab.bounds.bandits)."""

    family = "bernoulli"

    def instance(self) -> ArmInstance:
        return ArmInstance(tuple(float(m) for m in self._mu), self.family, getattr(self, "sigma", 1.0))

    def expected_losses(self, t, n):
        return np.broadcast_to(1.0 - self._mu, (n, len(self._mu)))

    def instance_bounds(self, ctx, learner) -> list:
        return arms_bounds(self.instance(), ctx, learner)


@register_environment("bernoulli-arms")
class BernoulliArms(KnownMeans, _Arms):
    """Stochastic Bernoulli arms; ``means`` are the reward means (loss = 1 − reward).

    Parameters
    ----------
    means : list of float, str or None
        Reward means in [0, 1], or the name of an instance of `INSTANCES` ("classic", "linear-9",
        "low-means", "hard-gaps"); None is the classic 10-armed problem.
    """

    def __init__(self, means=None):
        mu = CLASSIC if means is None else check_means(means)
        self.means = means if means is None or isinstance(means, str) else mu   # a name stays a name
        self._mu = np.asarray(mu, dtype=float)
        super().__init__(d=len(self._mu))

    @property
    def best_loss_mean(self) -> float:
        """min_i E ℓ(i) = 1 − max_i means[i]: the pseudo-regret's comparator per round."""
        return float(1.0 - self._mu.max())

    def emit(self, t, history):
        return LinearLoss((self.uniforms() >= self._mu).astype(float), self._simplex)

    def emit_block(self, t, n):
        """n rounds at once (onlinelab.core.blocks): the same uniforms, in the same order, as n calls of
        `emit`."""
        return LossBlock.of_rows(LinearLoss, self.loss_rows(n, self._mu, below=False), domain=self._simplex)


@register_environment("adversarial-arms")
class AdversarialArms(_Arms):
    """Oblivious, non-stationary arms: the good arm moves every ``block`` rounds; arm 0 is best overall.

    Parameters
    ----------
    d : int
        Number of arms K.
    block : int
        Rounds per phase.
    """

    def __init__(self, d: int = 10, block: int = 100):
        super().__init__(d=d)
        self.block = v.integer("block", block, minimum=1)

    def _means(self, t):
        """Loss means of round(s) t (an int or an array of rounds): (K,) or (len(t), K)."""
        t = np.asarray(t)
        mean = np.full(t.shape + (self.d,), 0.7)
        mean[..., 0] = 0.4
        np.put_along_axis(mean, (1 + ((t - 1) // self.block) % (self.d - 1))[..., None], 0.1, axis=-1)
        return mean

    def emit(self, t, history):
        return LinearLoss((self.uniforms() < self._means(t)).astype(float), self._simplex)

    def emit_block(self, t, n):
        """n rounds at once (onlinelab.core.blocks): the same uniforms, in the same order, as n calls of
        `emit`."""
        return LossBlock.of_rows(LinearLoss, self.loss_rows(n, self._means(np.arange(t, t + n)), below=True),
                                 domain=self._simplex)


@register_environment("adaptive-arms")
class AdaptiveArms(_Arms):
    """Adaptive: the learner's currently favoured arm costs 1; the others are Bernoulli arms.

    Parameters
    ----------
    means : list of float or None
        Reward means of the arms when not favoured; None is the classic 10-armed problem.
    """

    adaptive = True
    history_window = 0

    def __init__(self, means=None):
        self.means = None if means is None else check_means(means)
        self._mu = np.asarray(CLASSIC if means is None else self.means)
        super().__init__(d=len(self._mu))

    def emit(self, t, history):
        loss = (self.uniforms() >= self._mu).astype(float)
        p = np.asarray(history.mixed)
        loss[np.arange(p.shape[0]), np.argmax(p, axis=1)] = 1.0
        return LinearLoss(loss, self._simplex)


@register_environment("split-chaser")
class SplitChaser(_Arms):
    """Adaptive arms that punish late feedback: of two groups of arms the heavier under p_t costs 1, the other 0.

    The arms split into A = {0, …, ``split`` − 1} and B = the rest.  Every arm of the group holding more
    of p_t (A on a tie) has loss 1, every arm of the other group loss 0, so the learner pays
    ⟨p_t, ℓ_t⟩ = max(p_t(A), p_t(B)) = 1/2 + |p_t(A) − p_t(B)|/2 and the best arm in hindsight about
    half the rounds (arms of one group share their losses).  It is the bandit analogue of
    ``sign-chaser`` (theory §8.2): the losses push p_t(A) − p_t(B) back to 0, and an Exp3 that hears
    of them d rounds late keeps moving the same way for d rounds after each crossing, so its
    log-odds ln(p(A)/p(B)) swing by about ±ηd and the delay costs it a share of the η·D term of its
    bound.  Splitting the arms into two groups (rather than punishing only the favourite arm, as
    ``adaptive-arms`` does) makes each swing move half the mass, not 1/K of it.  The losses are a
    deterministic function of p_t, so the seed acts only through the learner's draws.

    Parameters
    ----------
    d : int
        Number of arms K ≥ 2.
    split : int or None
        Size of group A, 1 ≤ split ≤ K − 1; None takes K // 2.

    Examples
    --------
    >>> import onlinelab as ol
    >>> env = SplitChaser(d=4)
    >>> env.reset(ol.core.rng.BatchRNG.from_seed(0, "environment", "demo", replicates=1), T=1)
    >>> env.emit(1, ol.HistoryView(1, np.array([[0.1, 0.2, 0.3, 0.4]]), [], [])).G.tolist()
    [[0.0, 0.0, 1.0, 1.0]]
    """

    adaptive = True
    history_window = 0   # reads only p_t

    def __init__(self, d: int = 10, split: int | None = None):
        super().__init__(d=d)
        if split is not None:
            split = v.integer("split", split, minimum=1)
            if split > self.d - 1:
                raise ConfigError(f"split = {split} leaves no arm in the second group of d = {self.d} arms; "
                                  f"choose 1 <= split <= {self.d - 1} (or split = None for d // 2)")
        self.split = split
        self._a = self.d // 2 if split is None else split

    def emit(self, t, history):
        p = np.asarray(history.mixed)
        a_heavier = p[:, :self._a].sum(axis=1) >= p[:, self._a:].sum(axis=1)
        loss = np.zeros_like(p)
        loss[a_heavier, :self._a] = 1.0
        loss[~a_heavier, self._a:] = 1.0
        return LinearLoss(loss, self._simplex)


@register_environment("sign-chaser")
class SignChaser(Environment):
    """Adaptive linear losses on the unit ball that punish late feedback: g_t = G·sign(x_t[0])·e₁ (sign(0) = +1).

    The loss G·|x_t[0]| pushes the learner towards x[0] = 0; with feedback d rounds late it
    overshoots by about ηGd each time it crosses, so delayed OGD pays about ηG²D/2 — the delay term
    of its bound — while the best fixed point gains almost nothing (the signs balance).

    Parameters
    ----------
    d : int
        Dimension of the ball.
    G : float
        Gradient norm (the declared loss_bound).
    """

    adaptive = True
    domain = "ball:1"
    history_window = 0
    reference_learner = "omd"

    def __init__(self, d: int = 2, G: float = 1.0):
        super().__init__(d=d)
        self.G = v.positive_float("G", G)
        self.loss_bound = self.G

    def reset(self, rng, T):
        super().reset(rng, T)
        from onlinelab.geometry.domains import Ball
        self._ball = Ball(self.d, 1.0)

    def emit(self, t, history):
        x = np.asarray(history.mixed)
        g = np.zeros_like(x)
        g[:, 0] = self.G * np.where(x[:, 0] < 0, -1.0, 1.0)
        return LinearLoss(g, self._ball)
