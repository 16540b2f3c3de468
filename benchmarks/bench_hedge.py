"""Benchmark: Hedge (entropic FTRL) on 10 experts, R = 20, T = 10⁴, through onlinelab.simulate, against compiled floors.

Prints, measured in one run (single BLAS thread):
  * ``ratio to compiled floor: X`` on a block-emitting environment — ``simulate`` (with its metrics: regret,
    comparator, loss statistics, checks) replaying a pre-drawn loss array, over a plain numba loop of the same
    Hedge updates on the same array (target ≤ 1.5);
  * ``experts-stochastic ratio to compiled floor: Y`` — the same on the registered ``experts-stochastic``
    environment, whose floor draws the Bernoulli losses itself (one uniform per expert and round, as the
    environment does) (target ≤ 1.5);
  * ``R=1 ratio to compiled floor: Z`` — one replicate on the replayed array at T = 10⁶ (``--r1-rounds``): a
    ``simulate`` call has a fixed cost of some tens of milliseconds (BLAS thread limits, the result table), which
    only a long run amortises (target ≤ 3);
  * ``ratio to numpy floor`` — over a minimal batched numpy loop (all replicates at once, as before the kernels),
    and ``speedup over per-replicate loop`` — over a one-replicate-at-a-time numpy loop (target ≥ 8).
The computations are checked to give the same cumulative losses.  Each runs once on 50 rounds (the numba floors
at full size) before it is timed, so one-off costs (imports, compilation, numpy's first calls) are not counted;
``simulate`` and the compiled floors are then timed as the best of k = 5 calls (``--k``), the two sides of each
ratio taking turns call by call (``benchmarks/timing.py``: on this shared machine load comes in spells of seconds);
the numpy loops run once.
Through ``simulate`` the environments emit blocks of rounds and Hedge (FTRL) plays each block in its compiled
kernel (onlinelab/kernels/simplex.py; ``compiled=False`` runs the numpy reference, the same numbers).

At T = 10⁴ the floor takes some 20–50 ms, about a ``simulate`` call's fixed cost; ``--rounds 100000 --no-numpy``
measures the per-round cost.

Usage:  python benchmarks/bench_hedge.py [--experts 10] [--replicates 20] [--rounds 10000] [--r1-rounds 1000000]
[--no-numpy] [--k 5]
"""
from __future__ import annotations

import argparse

import numpy as np
from threadpoolctl import threadpool_limits
from timing import best_of, interleaved

import onlinelab as ol
from onlinelab.core.blocks import LossBlock, rounds_per_block
from onlinelab.geometry.domains import Simplex
from onlinelab.losses.vector import LinearLoss


class Replay(ol.Environment):
    """An oblivious environment that replays a fixed (T, R, n) loss array."""

    domain = "simplex"

    def __init__(self, d: int = 10):
        super().__init__(d=d)

    @property
    def block_rounds(self) -> int:   # about 2 MB of losses a block, as the built-in experts environments emit
        return rounds_per_block(getattr(self, "replicates", 1), self.d)

    def reset(self, rng, T):
        super().reset(rng, T)
        self.simplex = Simplex(self.d)

    def emit(self, t, history):
        return LinearLoss(LOSSES[t - 1], self.simplex)

    def emit_block(self, t, n):  # oblivious: n rounds at once, checked and counted once (onlinelab.core.blocks)
        return LossBlock.of_rows(LinearLoss, LOSSES[t - 1:t - 1 + n], domain=self.simplex)


LOSSES = None


def _hedge_floor(losses, means, T, R, eta, seed):
    """Hedge's cumulative expected loss per replicate: on ``losses`` (T, R, n), or, when it is empty, on Bernoulli
    losses drawn here with loss means ``means``."""
    np.random.seed(seed)
    n = means.shape[0]
    draw = losses.shape[0] == 0
    total, S, p, ell = np.zeros(R), np.zeros((R, n)), np.empty(n), np.empty(n)
    for t in range(T):                      # rounds outer, replicates inner: the losses are read in order
        for r in range(R):
            for j in range(n):
                ell[j] = (1.0 if np.random.random() < means[j] else 0.0) if draw else losses[t, r, j]
            top = -eta * S[r, 0]
            for j in range(1, n):
                top = max(top, -eta * S[r, j])
            norm, dot = 0.0, 0.0
            for j in range(n):
                p[j] = np.exp(-eta * S[r, j] - top)
                norm += p[j]
                dot += p[j] * ell[j]
            total[r] += dot / norm
            for j in range(n):
                S[r, j] += ell[j]
    return total


def compiled_floor(losses, means, T, R, eta):
    """A call of the numba floor (returns the cumulative losses), compiled and warmed at full size first."""
    import numba
    fn = numba.njit(_hedge_floor)
    fn(losses, means, T, R, eta, 1)
    return lambda: fn(losses, means, T, R, eta, 1)


def numpy_floor(losses, eta):
    T, R, n = losses.shape
    S = np.zeros((R, n))
    total = np.zeros(R)
    for t in range(T):
        h = -eta * S
        p = np.exp(h - h.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        total += np.einsum("ri,ri->r", p, losses[t])
        S += losses[t]
    return total


def per_replicate(losses, eta):
    T, R, n = losses.shape
    out = np.zeros(R)
    for r in range(R):
        S = np.zeros(n)
        for t in range(T):
            h = -eta * S
            p = np.exp(h - h.max())
            p /= p.sum()
            out[r] += p @ losses[t, r]
            S += losses[t, r]
    return out


def simulate(env, eta, T, R):
    """A call of ``simulate`` for Hedge on ``env`` (returns its result)."""
    return lambda: ol.simulate(env, {"hedge": ol.make_learner("ftrl", regularizer="entropy", eta=eta)}, T=T,
                               replicates=R, seed=0)


def main(argv=None):
    global LOSSES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experts", type=int, default=10)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--r1-rounds", type=int, default=1_000_000)
    ap.add_argument("--no-numpy", action="store_true", help="skip the two numpy loops (slow at large T)")
    ap.add_argument("--k", type=int, default=5, help="timed calls of each side, taking turns (the best counts)")
    args = ap.parse_args(argv)
    n, R, T = args.experts, args.replicates, args.rounds
    eta = float(np.sqrt(8 * np.log(n) / T))
    LOSSES = np.random.default_rng(0).random((T, R, n))
    means = np.full(n, 0.5)
    means[0] -= 0.1                                         # experts-stochastic's default loss means (gap 0.1)
    none = np.empty((0, R, n))
    with threadpool_limits(1):
        numpy_floor(LOSSES[:50], eta), per_replicate(LOSSES[:50], eta)        # warm-up (not timed)
        simulate(Replay(d=n), eta, 50, R)(), simulate("experts-stochastic", eta, 50, R)()
        got = interleaved({"floor": compiled_floor(LOSSES, means, T, R, eta), "sim": simulate(Replay(d=n), eta, T, R),
                           "sfloor": compiled_floor(none, means, T, R, eta),
                           "ssim": simulate(ol.make_environment("experts-stochastic", d=n), eta, T, R)}, args.k)
        (t_floor, want), (t_sim, res), (t_sfloor, _), (t_ssim, sres) = got.values()
        t_numpy, numpy_want = best_of(lambda: numpy_floor(LOSSES, eta), 0 if args.no_numpy else 1)
        t_loop, loop = best_of(lambda: per_replicate(LOSSES, eta), 0 if args.no_numpy else 1)
        T1 = args.r1_rounds
        LOSSES = np.random.default_rng(1).random((T1, 1, n))
        eta1 = float(np.sqrt(8 * np.log(n) / T1))
        got = interleaved({"floor": compiled_floor(LOSSES, means, T1, 1, eta1),
                           "sim": simulate(Replay(d=n), eta1, T1, 1)}, args.k)
        (t1_floor, want1), (t1_sim, res1) = got.values()
    got = res.final("cumulative_loss").to_numpy()
    assert np.allclose(got, want, atol=1e-8), "implementations disagree"
    assert args.no_numpy or (np.allclose(loop, want, atol=1e-8) and np.allclose(numpy_want, want, atol=1e-8))
    assert np.allclose(res1.final("cumulative_loss").to_numpy(), want1, atol=1e-6), "implementations disagree"
    timing = res.meta["timings"][res.environments[0]]
    print(f"Hedge, {n} experts, R = {R}, T = {T}: compiled floor {t_floor:.4f} s, simulate {t_sim:.4f} s, numpy "
          f"floor {t_numpy:.3f} s, per-replicate loop {t_loop:.3f} s")
    print(f"  simulate breakdown: learner {timing['learner_s']['hedge']:.4f} s, environment {timing['env_s']:.4f} s, "
          f"metrics {timing['metrics_s']:.4f} s, event loop {timing['loop_s']:.4f} s")
    print(f"ratio to compiled floor: {t_sim / t_floor:.2f}")
    print(f"experts-stochastic: compiled floor {t_sfloor:.4f} s, simulate {t_ssim:.4f} s, final cumulative loss "
          f"{sres.final('cumulative_loss').mean():.1f}")
    print(f"experts-stochastic ratio to compiled floor: {t_ssim / t_sfloor:.2f}")
    print(f"R=1, T = {T1}: compiled floor {t1_floor:.4f} s, simulate {t1_sim:.4f} s")
    print(f"R=1 ratio to compiled floor: {t1_sim / t1_floor:.2f}")
    if not args.no_numpy:
        print(f"ratio to numpy floor: {t_sim / t_numpy:.2f}")
        print(f"speedup over per-replicate loop: {t_loop / t_sim:.2f}")


if __name__ == "__main__":
    main()
