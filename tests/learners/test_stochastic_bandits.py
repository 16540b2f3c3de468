"""Stochastic bandit policies (theory §10): on the same draws, every policy's pulls equal those of a plain loop of the
algorithm written here, one replicate at a time; blocks, delay = 0 and round-by-round play agree bit for bit; delayed
runs work; Thompson sampling's Beta posteriors are exact; bad input is refused with the field, value and fix."""
import copy
import itertools

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG, seed_sequences
from onlinelab.errors import ConfigError, UnknownNameError
from onlinelab.learners.changing_bandits import DiscountedUCB, SlidingWindowUCB
from onlinelab.learners.exp3_ix import Exp3IX
from onlinelab.learners.greedy import EpsilonGreedy
from onlinelab.learners.index_bandits import KLUCB, MOSS, UCB1
from onlinelab.learners.thompson import DiscountedThompson, ThompsonSampling

T, R, SEED = 240, 3, 4
CLASSIC = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]
PHASES = [[0.8, 0.5, 0.2]] * 119 + [[0.2, 0.5, 0.8]] * (T - 119)     # the change at round 120


def env_losses(env, T, R, seed):
    """The environment's losses ℓ_t, (T, R, K), drawn as the run draws them (its stream, its label)."""
    e = env.clone()
    e.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    return np.stack([np.asarray(e.emit(t, None).G) for t in range(1, T + 1)])


def streams(learner, env, R, seed, kind="random"):
    """Replicate r's stream of the learner's uniforms (or normals) facing ``env``, one long sequence per replicate."""
    seqs = seed_sequences(seed, "learner", label_of(learner), R, env=label_of(env))
    gens = [np.random.Generator(np.random.PCG64(s)) for s in seqs]
    return [iter(getattr(g, kind)(200_000)) for g in gens]


def run_metrics(env, learner, T, R, seed, **kw):
    """(pulls (T, R, K), pseudo-regret (T, R), fraction of optimal pulls (T, R)) recorded at every round."""
    res = ol.simulate(env, [learner], T=T, replicates=R, seed=seed, checkpoints=list(range(1, T + 1)), **kw)
    df = res.metrics.sort_values(["t", "replicate"])

    def metric(name):
        return df[df.metric == name].value.to_numpy().reshape(T, R)
    return (np.stack([metric(f"pulls_{i}") for i in range(env.d)], axis=-1), metric("pseudo_regret"),
            metric("optimal_fraction"))


def check_against(env, learner, plain, means, T=T, R=R, seed=SEED, kind="random"):
    """The run's pulls per round equal the plain loop's (its Σ p_t, to 1e-12), its pseudo-regret equals
    Σ_t Σ_i p_t(i)·(μ*_t − μ_t(i)) for the reward means ``means`` of each round, (T, K) or (K,), and its fraction
    of optimal pulls Σ_t p_t(i*_t)/t."""
    losses = env_losses(env, T, R, seed)
    u = streams(learner, env, R, seed, kind)
    plays = np.stack([plain(losses[:, r], u[r]) for r in range(R)], axis=1)       # (T, R, K): p_t per round
    pulls, pseudo, optimal = run_metrics(env, learner, T, R, seed)
    np.testing.assert_allclose(pulls, np.cumsum(plays, axis=0), rtol=0, atol=1e-12)
    mu = np.broadcast_to(np.asarray(means, dtype=float), (T, env.d))
    gaps = mu.max(axis=1, keepdims=True) - mu                                       # (T, K)
    np.testing.assert_allclose(pseudo, np.cumsum(np.einsum("trk,tk->tr", plays, gaps), axis=0), rtol=0, atol=1e-9)
    best = plays[np.arange(T), :, mu.argmax(axis=1)]                                # (T, R): p_t(i*_t)
    np.testing.assert_allclose(optimal, np.cumsum(best, axis=0) / np.arange(1, T + 1)[:, None], rtol=0, atol=1e-12)
    return plays


def index_loop(index):
    """A plain index policy: each arm once (lowest first), then the argmax of index(S, N, n) (ties: lowest)."""
    def plain(losses, u):
        K = losses.shape[1]
        N, S, plays = np.zeros(K), np.zeros(K), np.zeros((len(losses), K))
        for t, loss in enumerate(losses):
            a = int(np.flatnonzero(N == 0)[0]) if (N == 0).any() else int(np.argmax(index(S, N, t)))
            plays[t, a] = 1.0
            N[a] += 1
            S[a] += 1.0 - loss[a]
        return plays
    return plain


def test_ucb1_equals_a_plain_loop():
    check_against(ol.make_environment("bernoulli-arms"), UCB1(),
                  index_loop(lambda S, N, n: S / N + np.sqrt(2 * np.log(n) / N)), CLASSIC)


def test_moss_equals_a_plain_loop():
    env = ol.make_environment("bernoulli-arms", means="linear-9")
    check_against(env, MOSS(), index_loop(lambda S, N, n: S / N + np.sqrt(max_(np.log(T / (9 * N)), 0) / N)),
                  np.arange(1, 10) / 10)


def max_(x, floor):
    return np.maximum(x, floor)


def bernoulli_kl(p, q):
    out = 0.0 if p == 0 else p * np.log(p / q)
    return out + (0.0 if p == 1 else (1 - p) * np.log((1 - p) / (1 - q)))


def scalar_kl_ucb(p, level, iters=200):
    """max{q ∈ [p, 1] : kl(p, q) ≤ level} by plain bisection on q."""
    lo, hi = p, 1.0
    for _ in range(iters):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if bernoulli_kl(p, mid) <= level else (lo, mid)
    return lo


def test_kl_ucb_equals_a_plain_loop():
    env = ol.make_environment("bernoulli-arms", means=[0.3, 0.5, 0.55, 0.2])

    def index(S, N, n):
        return np.array([scalar_kl_ucb(s / k, np.log(n) / k) for s, k in zip(S, N, strict=True)])
    check_against(env, KLUCB(), index_loop(index), [0.3, 0.5, 0.55, 0.2])


def test_kl_ucb_gaussian_equals_a_plain_loop():
    env = ol.make_environment("gaussian-arms", means=[0.0, 0.4, 0.5], sigma=0.5)
    check_against(env, KLUCB(family="gaussian", sigma=0.5, c=3.0),
                  index_loop(lambda S, N, n: S / N + 0.5 * np.sqrt(2 * (np.log(n) + 3 * np.log(max(np.log(n), 1)))
                                                                 / N)), [0.0, 0.4, 0.5])


def marsaglia_tsang(shape, tries):
    """One Gamma(shape) variate from an iterator of (z, u) tries: the first accepted, or d if the tries run out."""
    d = shape - 1 / 3
    c = 1 / np.sqrt(9 * d)
    for z, u in tries:
        v = (1 + c * z) ** 3
        if v > 0 and np.log(u) < z * z / 2 + d - d * v + d * np.log(v):
            return d * v
    return d


def test_thompson_bernoulli_equals_a_plain_loop():
    """Beta(1 + S, 1 + F) draws as G_a/(G_a + G_b), Gamma variates by Marsaglia and Tsang: each round takes 20 + P
    normals and uniforms of the replicate's stream (as BatchRNG serves them to one replicate); variate j tries
    pair j, then the rejected ones share pairs 20, 21, … in order; then a Bernoulli trial with one more uniform."""
    from onlinelab.learners.stochastic_draws import pool_size
    learner, env = ThompsonSampling(), ol.make_environment("bernoulli-arms")
    losses = env_losses(env, T, R, SEED)
    plays, width = np.zeros((T, R, 10)), 20 + pool_size(20)
    for r, seq in enumerate(seed_sequences(SEED, "learner", label_of(learner), R, env=label_of(env))):
        rng = BatchRNG([seq])                          # replicate r's stream alone
        wins, fails = np.zeros(10), np.zeros(10)
        for t in range(T):
            z, u = rng.normal(width)[0], rng.random(width)[0]
            pool = iter(zip(z[20:], u[20:], strict=True))
            shapes = np.r_[1 + wins, 1 + fails]
            g = [marsaglia_tsang(s, itertools.chain([(z[j], u[j])], pool)) for j, s in enumerate(shapes)]
            a = int(np.argmax([g[i] / (g[i] + g[10 + i]) for i in range(10)]))
            plays[t, r, a] = 1.0
            success = rng.random()[0] < 1.0 - losses[t, r, a]
            wins[a] += success
            fails[a] += not success
    pulls, pseudo, _ = run_metrics(env, learner, T, R, SEED)
    np.testing.assert_array_equal(pulls, np.cumsum(plays, axis=0))
    gaps = 0.9 - np.array(CLASSIC)
    np.testing.assert_allclose(pseudo, np.cumsum(plays @ gaps, axis=0), rtol=0, atol=1e-9)


def test_thompson_gaussian_equals_a_plain_loop():
    def plain(losses, z):
        K = losses.shape[1]
        N, S, plays = np.zeros(K), np.zeros(K), np.zeros((len(losses), K))
        for t, loss in enumerate(losses):
            draws = [next(z) for _ in range(K)]
            theta = [np.inf if N[i] == 0 else S[i] / N[i] + 2.0 / np.sqrt(N[i]) * draws[i] for i in range(K)]
            a = int(np.argmax(theta))
            plays[t, a] = 1.0
            N[a] += 1
            S[a] += 1.0 - loss[a]
        return plays
    env = ol.make_environment("gaussian-arms", means=[0.0, 1.0, 1.5], sigma=2.0)
    check_against(env, ThompsonSampling(family="gaussian", sigma=2.0), plain, [0.0, 1.0, 1.5], kind="standard_normal")


def pick(p, u):
    """The arm rng.categorical picks from uniform u: the first i whose cumulative sum exceeds u·total."""
    cum = np.cumsum(p)
    return min(int(np.searchsorted(cum, u * cum[-1], side="right")), len(p) - 1)


def test_epsilon_greedy_equals_a_plain_loop():
    c, d = 0.5, 0.1

    def plain(losses, u):
        K = losses.shape[1]
        N, S, plays = np.zeros(K), np.zeros(K), np.zeros((len(losses), K))
        for t, loss in enumerate(losses, start=1):
            eps = min(1.0, c * K / (d * d * t))
            mean = np.where(N > 0, S / np.maximum(N, 1), np.inf)
            p = np.full(K, eps / K)
            p[int(np.argmax(mean))] += 1 - eps
            a = pick(p, next(u))
            plays[t - 1] = p
            N[a] += 1
            S[a] += 1.0 - loss[a]
        return plays
    check_against(ol.make_environment("bernoulli-arms"), EpsilonGreedy(c=c, d=d), plain, CLASSIC)


def test_exp3_ix_equals_a_plain_loop():
    K = 10
    eta = np.sqrt(2 * np.log(K) / (K * T))

    def plain(losses, u):
        est, plays = np.zeros(K), np.zeros((len(losses), K))
        for t, loss in enumerate(losses):
            w = np.exp(-eta * (est - est.min()))
            p = w / w.sum()
            a = pick(p, next(u))
            plays[t] = p
            est[a] += loss[a] / (p[a] + eta / 2)
        return plays
    check_against(ol.make_environment("bernoulli-arms"), Exp3IX(), plain, CLASSIC)


def window_loop(tau, xi=0.6):
    def plain(losses, u):
        K = losses.shape[1]
        seen, plays = [], np.zeros((len(losses), K))
        for t, loss in enumerate(losses):
            last = seen[-tau:]
            N = np.array([sum(1 for a, _ in last if a == i) for i in range(K)], dtype=float)
            S = np.array([sum(x for a, x in last if a == i) for i in range(K)])
            if (N == 0).any():
                a = int(np.flatnonzero(N == 0)[0])
            else:
                a = int(np.argmax(S / N + np.sqrt(xi * np.log(min(t, tau)) / N)))
            plays[t, a] = 1.0
            seen.append((a, 1.0 - loss[a]))
        return plays
    return plain


def test_sliding_window_ucb_equals_a_plain_loop():
    env = ol.make_environment("piecewise-arms", means=[[0.8, 0.5, 0.2], [0.2, 0.5, 0.8]], changes=[120])
    plays = check_against(env, SlidingWindowUCB(window=40), window_loop(40), PHASES)
    assert (plays[200:].argmax(axis=2) == 2).mean() > 0.5   # it mostly plays the new best arm late on


def test_discounted_ucb_equals_a_plain_loop():
    gamma, xi = 0.97, 0.6

    def plain(losses, u):
        K = losses.shape[1]
        seen, plays = [], np.zeros((len(losses), K))
        for t, loss in enumerate(losses):
            w = gamma ** np.arange(len(seen))[::-1]                       # γ^{age} of each reward seen
            N = np.array([sum(wi for wi, (a, _) in zip(w, seen, strict=True) if a == i) for i in range(K)])
            S = np.array([sum(wi * x for wi, (a, x) in zip(w, seen, strict=True) if a == i) for i in range(K)])
            if (N == 0).any():
                a = int(np.flatnonzero(N == 0)[0])
            else:
                a = int(np.argmax(S / N + 2 * np.sqrt(xi * np.log(max(N.sum(), 1.0)) / N)))
            plays[t, a] = 1.0
            seen.append((a, 1.0 - loss[a]))
        return plays
    env = ol.make_environment("piecewise-arms", means=[[0.8, 0.5, 0.2], [0.2, 0.5, 0.8]], changes=[120])
    check_against(env, DiscountedUCB(discount=gamma), plain, PHASES)


POLICIES = [UCB1(), MOSS(), KLUCB(), KLUCB(c=3.0), ThompsonSampling(), EpsilonGreedy(), Exp3IX(),
            SlidingWindowUCB(window=50), DiscountedUCB(discount=0.98), DiscountedThompson(discount=0.95)]


@pytest.mark.parametrize("learner", POLICIES, ids=label_of)
def test_blocks_round_by_round_and_delay_zero_agree_bit_for_bit(learner):
    """One checkpoint, so the blocks are long; with play_block switched off (and with delay = 0, which plays
    round by round through the feedback channel) every metric is the same, bit for bit."""
    env = ol.make_environment("bernoulli-arms", means=[0.2, 0.5, 0.6, 0.45])
    whole = ol.simulate(env, [learner], T=400, replicates=3, seed=2, checkpoints=[200, 400]).metrics
    plain = learner.clone()
    plain.play_block = None
    rounds = ol.simulate(env, [plain], T=400, replicates=3, seed=2, checkpoints=[200, 400]).metrics
    zero = ol.simulate(env, [learner], T=400, replicates=3, seed=2, checkpoints=[200, 400], delay=0).metrics
    keep = ~whole.metric.isin(["runtime_s"])
    pd_equal = whole[keep].reset_index(drop=True)
    assert pd_equal.equals(rounds[~rounds.metric.isin(["runtime_s"])].reset_index(drop=True))
    z = zero[zero.metric.isin(pd_equal.metric.unique())].reset_index(drop=True)
    assert pd_equal.equals(z)


@pytest.mark.parametrize("learner", POLICIES, ids=label_of)
def test_every_policy_runs_under_delays(learner):
    res = ol.simulate("bernoulli-arms", [learner], T=300, replicates=2, seed=1, delay={"kind": "fixed", "d": 7})
    pulls = sum(res.final(f"pulls_{i}").to_numpy() for i in range(10))
    np.testing.assert_allclose(pulls, 300.0, rtol=0, atol=1e-9)
    assert not res.violations().size


def test_beta_posteriors_are_exact():
    """After a fixed sequence of 0/1 rewards the posterior is Beta(1 + successes, 1 + failures) of each arm; a
    reward x in (0, 1) is a success exactly when the learner's next uniform is below x."""
    ts = ThompsonSampling()
    ctx = ol.Context(d=3, T=50, replicates=2, domain="simplex")
    rng = BatchRNG.from_seed(0, "learner", "thompson", 2)
    state = ts.init(ctx, rng)
    wins, fails = np.zeros((2, 3)), np.zeros((2, 3))
    flips = np.random.default_rng(5)
    for _ in range(50):
        play = ts.act(state, rng)
        arm = play.info["arm"]
        x = (flips.random(2) < 0.6).astype(float)
        state = ts.update(state, play, ol.Feedback("bandit", value=1.0 - x), rng)
        wins[np.arange(2), arm] += x
        fails[np.arange(2), arm] += 1 - x
    a, b = ts.posterior(state)
    assert np.array_equal(a, 1 + wins) and np.array_equal(b, 1 + fails)
    for seed in range(20):
        rng = BatchRNG.from_seed(seed, "learner", "thompson", 2)
        state = ts.init(ctx, rng)
        play = ts.act(state, rng)
        x = np.array([0.3, 0.8])
        expected = (copy.deepcopy(rng).random() < x).astype(float)   # the next uniform of each replicate
        state = ts.update(state, play, ol.Feedback("bandit", value=1.0 - x), rng)
        np.testing.assert_array_equal(state.S.sum(axis=1), expected)
        np.testing.assert_array_equal(state.N.sum(axis=1), [1.0, 1.0])


@pytest.mark.parametrize("make, message", [
    (lambda: ol.make_environment("bernoulli-arms", means=[0.2, 1.3]), r"means\[1\] = 1.3 is outside \[0, 1\]"),
    (lambda: ol.make_environment("piecewise-arms", means=[[0.2, 0.5], [0.5, -0.1]], changes=[10]),
     r"means\[1\]\[1\] = -0.1 is outside \[0, 1\]"),
    (lambda: ol.make_environment("gaussian-arms", sigma=0.0), r"sigma must be > 0 .* got 0.0; e.g. sigma = 1.0"),
    (lambda: ThompsonSampling(family="gaussian", sigma=-1), r"sigma must be > 0 .* got -1.0"),
    (lambda: KLUCB(family="gaussian", sigma=0), r"sigma must be > 0"),
    (lambda: SlidingWindowUCB(window=0), r"window must be >= 1 .* got 0; e.g. window = 1000"),
    (lambda: SlidingWindowUCB(window=-5), r"window must be >= 1 .* got -5"),
    (lambda: DiscountedUCB(discount=0.0), r"discount must lie in \(0, 1\] .* got 0.0; e.g. discount = 0.99"),
    (lambda: DiscountedUCB(discount=1.5), r"discount must lie in \(0, 1\] .* got 1.5"),
    (lambda: ol.make_environment("piecewise-arms", changes=[0, 50]), r"changes = \[0, 50\] holds 0, outside \[1, T\]"),
    (lambda: ol.simulate(ol.make_environment("piecewise-arms", changes=[50, 150]), [UCB1()], T=100),
     r"changes = \[50, 150\] holds 150, outside \[1, T\] for T = 100"),
    (lambda: KLUCB(exploration=lambda t: -np.log(t)), r"exploration must be an increasing function of t"),
    (lambda: KLUCB(exploration=lambda t: np.sin(t)),
     r"increasing function of t .*, but f\(3\) = 0.14112 < f\(2\) = 0.909297"),
    (lambda: KLUCB(exploration=lambda t: np.ones_like(t)), r"f\(1\) = 1 and f\(1e12\) = 1; use e.g."),
    (lambda: KLUCB(exploration=3.0), r"exploration must be a function of t"),
    (lambda: EpsilonGreedy(d=0.0), r"d must lie in \(0, 1\]"),
    (lambda: KLUCB(c=-1), r"c must be >= 0"),
])
def test_bad_input_is_refused_clearly(make, message):
    with pytest.raises(ConfigError, match=message):
        make()


def test_unknown_family_and_instance_name():
    with pytest.raises(UnknownNameError, match=r"family must be one of 'bernoulli', 'gaussian', got 'poisson'"):
        KLUCB(family="poisson")
    with pytest.raises(UnknownNameError, match=r"got 'hard' \(did you mean 'hard-gaps'\?\)"):
        ol.make_environment("bernoulli-arms", means="hard")


def ks_limit(n: int, alpha: float = 1e-3) -> float:
    """The Kolmogorov–Smirnov statistic's critical value at level alpha for n samples, √(ln(2/α)/(2n))
    (the asymptotic Kolmogorov tail 2·exp(−2nD²)): a correct sampler exceeds it with probability about α."""
    return float(np.sqrt(np.log(2 / alpha) / (2 * n)))


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (3.0, 8.0), (120.0, 40.0)])
def test_pooled_gamma_ratio_draws_are_beta(a, b):
    """Kolmogorov–Smirnov against Beta(a, b): 20 000 draws of G_a/(G_a + G_b), Gamma variates from rounds of
    2·10 000 own pairs and a pool (theory §10); the statistic stays below its 1e-3 critical value."""
    from scipy import stats

    from onlinelab.learners.stochastic_draws import pool_size, pooled_gamma
    m = 20_000
    rng = BatchRNG.from_seed(3, "learner", "ks", 2)
    width = m + pool_size(m)
    g = pooled_gamma(np.concatenate([np.full((2, m // 2), a), np.full((2, m // 2), b)], axis=1),
                     rng.normal(width), rng.random(width))
    theta = (g[:, :m // 2] / (g[:, :m // 2] + g[:, m // 2:])).ravel()
    assert stats.kstest(theta, stats.beta(a, b).cdf).statistic < ks_limit(theta.size)


@pytest.mark.parametrize("shape", [1.0, 2.5, 30.0])
def test_pooled_gamma_is_gamma_and_its_pool_draws_too(shape):
    """Every variate, and separately those whose own try was rejected (so they come from the pool), follow
    Gamma(shape): Kolmogorov–Smirnov below the 1e-3 critical value of each sample size.  Rounds of 20 variates
    and their pool, 10 000 rounds × 2 replicates (the learner's round shape)."""
    from scipy import stats

    from onlinelab.learners.stochastic_draws import pool_size, pooled_gamma
    rng = BatchRNG.from_seed(5, "learner", "ks-gamma", 2)
    width, rounds = 20 + pool_size(20), 10_000 if shape == 1.0 else 3_000
    shapes = np.full((2, 20), shape)
    d, c = shape - 1 / 3, 1 / np.sqrt(9 * (shape - 1 / 3))
    every, pooled = [], []
    for _ in range(rounds):
        z, u = rng.normal(width), rng.random(width)
        g = pooled_gamma(shapes, z, u)
        v = (1 + c * z[:, :20]) ** 3
        with np.errstate(invalid="ignore"):
            first = (v > 0) & (np.log(u[:, :20]) < z[:, :20] ** 2 / 2 + d - d * v + d * np.log(np.maximum(v, 1e-300)))
        every.append(g.ravel())
        pooled.append(g[~first])
    every, pooled = np.concatenate(every), np.concatenate(pooled)
    assert stats.kstest(every, stats.gamma(shape).cdf).statistic < ks_limit(every.size)
    if shape == 1.0:                         # about 4.8 % rejected: ~19 000 pool draws
        assert pooled.size > 10_000
        assert stats.kstest(pooled, stats.gamma(shape).cdf).statistic < ks_limit(pooled.size)
