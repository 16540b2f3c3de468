"""Bandits on the simplex (theory §8): unbiased estimators by exact enumeration; exp3 / exp3-auer iterates equal
plain loops of the algorithms fed the same random draws; the Joulani reduction equals independent copies; bounds;
bad input."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.domains import Simplex
from onlinelab.learners.bandit_simplex import Exp3, Exp3Auer, LogBarrierBandit, importance_weighted
from onlinelab.losses.vector import LinearLoss


@pytest.mark.parametrize("learner", [Exp3(), Exp3Auer(gamma=0.3), LogBarrierBandit()])
def test_estimators_are_unbiased_by_exact_enumeration(learner):
    """Σ_I p_I ℓ̂(I) = ℓ (loss estimates) or ℓ − 1 (exp3-auer's −x̂), entry by entry, for random p and ℓ."""
    rng = np.random.default_rng(0)
    R, K = 6, 5
    p = rng.dirichlet(np.ones(K) * 0.5, size=R)
    loss = rng.random((R, K))
    mean = np.zeros((R, K))
    for arm in range(K):
        arms = np.full(R, arm)
        mean += p[:, [arm]] * learner._estimate(p, arms, loss[:, arm])
    target = loss - 1.0 if isinstance(learner, Exp3Auer) else loss
    np.testing.assert_allclose(mean, target, rtol=0, atol=1e-14)


def test_importance_weighted_is_zero_off_the_arm():
    est = importance_weighted(np.array([[0.25, 0.75]]), np.array([1]), np.array([0.3]))
    np.testing.assert_allclose(est, [[0.0, 0.4]], rtol=0, atol=1e-15)


class Spy(ol.Environment):
    """Adaptive only so that it is shown the learner's p_t each round; its losses ignore p_t (Bernoulli arms)."""

    adaptive = True
    psd = True
    domain = "simplex"
    history_window = 0

    def __init__(self, d: int = 4):
        super().__init__(d=d)

    def reset(self, rng, T):
        super().reset(rng, T)
        self.seen, self.emitted = [], []
        self._mu = np.linspace(0.2, 0.8, self.d)

    def emit(self, t, history):
        self.seen.append(np.array(history.mixed))
        loss = (self.rng.random(self.d) < self._mu).astype(float)
        self.emitted.append(loss)
        return LinearLoss(loss, Simplex(self.d))


def _run_spy(learner, T, R, seed):
    env = Spy(d=4)
    seen = {}
    orig_reset = Spy.reset

    def capture(self, rng, T_):
        orig_reset(self, rng, T_)
        seen["env"] = self
    Spy.reset = capture
    try:
        ol.simulate(env, [learner], T=T, replicates=R, seed=seed, checkpoints=[T])
    finally:
        Spy.reset = orig_reset
    e = seen["env"]
    draws = BatchRNG.from_seed(seed, "learner", label_of(learner), R, env=label_of(env))
    return np.array(e.seen), np.array(e.emitted), draws


def _pick(p, u):
    """The arm rng.categorical picks from uniform u: the number of cumulative sums ≤ u·total."""
    cum = np.cumsum(p)
    return min(int(np.searchsorted(cum, u * cum[-1], side="right")), len(p) - 1)


def _check_plain_loop(learner, T, R, seed, start, probs, learn):
    """Run the simulator's learner against the spy, then replay: probs(state) must equal its p_t (1e-12); the arm
    is picked from the same uniform; learn(state, p, arm, loss vector) is the plain algorithm's update."""
    seen, losses, draws = _run_spy(learner, T, R, seed)
    u = np.array([draws.random() for _ in range(T)])            # one uniform per round, as the learner draws
    for r in range(R):
        state = start()
        for t in range(T):
            p = probs(state)
            np.testing.assert_allclose(seen[t, r], p, rtol=0, atol=1e-12)
            state = learn(state, p, _pick(p, u[t, r]), losses[t, r])


def test_exp3_iterates_equal_a_plain_loop():
    eta = 0.05

    def probs(Lhat):
        z = np.exp(-eta * (Lhat - Lhat.min()))
        return z / z.sum()

    def learn(Lhat, p, arm, loss):
        Lhat = Lhat.copy()
        Lhat[arm] += loss[arm] / p[arm]
        return Lhat
    _check_plain_loop(Exp3(eta=eta), 300, 3, 7, lambda: np.zeros(4), probs, learn)


def test_exp3_auer_iterates_equal_smpybandits_style_loop():
    """w ← w·exp(γ x̂/K) on the pulled arm, normalised; trusts = (1 − γ) w + γ/K (SMPyBandits' Exp3)."""
    gamma, K = 0.2, 4

    def probs(w):
        trusts = (1 - gamma) * w + gamma / K
        return trusts / trusts.sum()

    def learn(w, trusts, arm, loss):
        w = w.copy()
        w[arm] *= np.exp((1.0 - loss[arm]) / trusts[arm] * gamma / K)
        return w / w.sum()
    _check_plain_loop(Exp3Auer(gamma=gamma), 300, 3, 8, lambda: np.full(K, 1.0 / K), probs, learn)


def test_logbarrier_bandit_iterates_equal_a_plain_loop():
    """z⁺ = argmin over the simplex of η⟨ℓ̂, z⟩ + D_φ(z, z_t), φ = −Σ log: 1/z⁺_i = 1/z_i + ηℓ̂_i + β (root in β)."""
    from scipy.optimize import brentq
    eta, K = 0.1, 4

    def learn(z, p, arm, loss):
        a = 1.0 / z
        a[arm] += eta * loss[arm] / z[arm]
        beta = brentq(lambda b: np.sum(1.0 / (a + b)) - 1.0, -a.min() + 1e-15, K, xtol=1e-15, rtol=1e-15)
        z = 1.0 / (a + beta)
        return z / z.sum()
    _check_plain_loop(LogBarrierBandit(eta=eta), 150, 2, 9, lambda: np.full(K, 1.0 / K), lambda z: z, learn)


@pytest.mark.parametrize("env", ["bernoulli-arms", "adversarial-arms"])
def test_bounds_hold_and_are_applicable(env):
    res = ol.simulate(env, [Exp3(), Exp3Auer(), Exp3Auer(gamma=0.05)], T=2000, replicates=8, seed=0)
    b = res.bounds()
    assert b.holds.all() and not b.violated.any()
    assert set(b[b.checked].bound) == {"exp3-regret", "exp3-auer-regret"}   # (bernoulli-arms adds lower bounds)
    pseudo = res.meta["pseudo_regret"][env]
    assert all(np.isfinite(val) for val in pseudo.values())


def test_adaptive_arms_bounds_do_not_apply():
    res = ol.simulate("adaptive-arms", [Exp3()], T=200, replicates=2)
    assert not res.bounds().holds.any()


def test_delay_copies_equal_independent_copies_and_ignore_delays_up_to_tau():
    env = ol.make_environment("quadratic-ball", d=3)
    tau, T = 2, 90
    copies = ol.make_learner("delay-copies", base="omd", base_params={"gamma": 0.1}, tau=tau)
    plain = ol.simulate(env, [copies], T=T, replicates=2, seed=3, checkpoints=list(range(1, T + 1)))
    late = ol.simulate(env, [copies], T=T, replicates=2, seed=3, checkpoints=list(range(1, T + 1)),
                       delay={"kind": "random", "distribution": "uniform", "mean": 1})
    a = plain.metrics[plain.metrics.metric == "cumulative_loss"].value.to_numpy()
    b = late.metrics[late.metrics.metric == "cumulative_loss"].value.to_numpy()
    np.testing.assert_array_equal(a, b)                      # delays ≤ τ never reach a copy before its turn
    e = env.clone()
    e.reset(BatchRNG.from_seed(3, "environment", label_of(env), 2), T)
    xs = [np.zeros((2, 3)) for _ in range(tau + 1)]
    cum = np.zeros(2)
    for t in range(1, T + 1):
        j = (t - 1) % (tau + 1)
        loss = e.emit(t, None)
        cum += loss.mixed_value(xs[j])
        y = xs[j] - 0.1 * loss.gradient(xs[j])
        xs[j] = y / np.maximum(1.0, np.linalg.norm(y, axis=1, keepdims=True))
    np.testing.assert_allclose(a.reshape(T, 2)[-1], cum, rtol=0, atol=1e-12)
    bounds = late.bounds().set_index("bound")
    assert bounds.loc["delay-copies(omd-regret)", "holds"] and not bounds.loc["delay-copies(omd-regret)", "violated"]


def test_delay_copies_tune_each_copy_for_the_rounds_it_plays():
    """A tuned base (η ∝ 1/√T) in the reduction is tuned for ⌈T/(τ + 1)⌉ rounds, the most one copy plays: the run
    equals, bit for bit, the reduction over a base given that step explicitly, and the summed bound holds."""
    env = ol.make_environment("quadratic-ball", d=3)
    tau, T = 3, 201                                          # ⌈201/4⌉ = 51
    ctx = ol.Context(d=3, T=T, replicates=2, loss_bound=env.loss_bound, domain="ball")
    own = ol.make_learner("omd").resolved_params(ol.Context(d=3, T=51, replicates=2, loss_bound=env.loss_bound,
                                                            domain="ball"))["gamma"]
    tuned = ol.make_learner("delay-copies", base="omd", tau=tau)
    assert tuned.resolved_params(ctx)["base_resolved"]["gamma"] == own
    explicit = ol.make_learner("delay-copies", base="omd", base_params={"gamma": own}, tau=tau)
    runs = [ol.simulate(env, [lrn], T=T, replicates=2, seed=4, delay=3, checkpoints=5) for lrn in (tuned, explicit)]
    a, b = (r.metrics[r.metrics.metric == "cumulative_loss"].value.to_numpy() for r in runs)
    np.testing.assert_array_equal(a, b)
    bounds = runs[0].bounds().set_index("bound")
    assert bounds.loc["delay-copies(omd-regret)", "holds"] and not bounds.loc["delay-copies(omd-regret)", "violated"]


def test_delay_copies_of_exp3_carry_the_summed_expected_regret_bound():
    """Bounds summed over τ + 1 copies tuned for ⌈T/(τ + 1)⌉ = 100 rounds, computed here by hand: Exp3's
    (τ + 1) ln K/η' + η'KT/2 with η' = √(2 ln K/(100K)); Auer et al.'s (τ + 1) K ln K/γ' + (e − 1)γ'(T − L*),
    carried since its comparator coefficient −(e − 1)γ' is ≥ −1 (γ' = √(K ln K/((e − 1)·100)) ≈ 0.37); with
    γ = 0.9 it is −1.55, and the copies' comparators would not add up: not carried."""
    K, tau, T = 10, 2, 300
    runs = {}
    for key, params in (("exp3", {}), ("exp3-auer", {}), ("exp3-auer γ=0.9", {"gamma": 0.9})):
        lrn = ol.make_learner("delay-copies", base=key.split()[0], base_params=params, tau=tau)
        runs[key] = ol.simulate("bernoulli-arms", [lrn], T=T, replicates=3, seed=0, delay=2, checkpoints=[T])
    eta = np.sqrt(2 * np.log(K) / (K * 100))
    row = runs["exp3"].bounds().set_index("bound").loc["delay-copies(exp3-regret)"]
    assert row.final_bound == pytest.approx((tau + 1) * np.log(K) / eta + eta * K * T / 2, rel=1e-12)
    assert row.holds
    gamma = np.sqrt(K * np.log(K) / ((np.e - 1) * 100))
    res = runs["exp3-auer"]
    best = res.final("comparator_loss").to_numpy()             # L* per replicate
    row = res.bounds().set_index("bound").loc["delay-copies(exp3-auer-regret)"]
    expected = (tau + 1) * K * np.log(K) / gamma + (np.e - 1) * gamma * (T - best)
    assert row.final_bound == pytest.approx(expected.mean(), rel=1e-12)   # an expected-regret bound: its mean
    assert not any(name.startswith("delay-copies") for name in runs["exp3-auer γ=0.9"].bounds().bound)


@pytest.mark.parametrize("gamma", [0, -0.1, 1.5, float("nan")])
def test_gamma_outside_unit_interval(gamma):
    with pytest.raises(ConfigError, match="gamma must"):
        ol.make_learner("exp3-auer", gamma=gamma)


@pytest.mark.parametrize("means,message", [([0.2, 1.3], r"means\[1\] = 1.3 is outside \[0, 1\]"),
                                           ([-0.1, 0.5], r"means\[0\] = -0.1 is outside"),
                                           ([0.5], "at least 2 arms"), ("0.5", "must be a list")])
def test_arms_outside_unit_interval(means, message):
    with pytest.raises(ConfigError, match=message):
        ol.make_environment("bernoulli-arms", means=means)


def test_bandit_on_a_non_simplex_environment():
    with pytest.raises(DomainError, match="plays the simplex"):
        ol.simulate("spiked-covariance", [Exp3()], T=3)


def test_gamma_one_is_uniform_play():
    """γ = 1: p_t is uniform whatever was observed, so Σ⟨p_t, ℓ_t⟩ is the running mean loss over the arms."""
    env = ol.make_environment("bernoulli-arms")
    res = ol.simulate(env, [Exp3Auer(gamma=1.0)], T=50, replicates=2, seed=0, checkpoints=[50])
    e = env.clone()
    e.reset(BatchRNG.from_seed(0, "environment", label_of(env), 2), 50)
    total = sum(e.emit(t, None).G.mean(axis=1) for t in range(1, 51))
    np.testing.assert_allclose(res.final("cumulative_loss").to_numpy(), total, rtol=0, atol=1e-12)
