"""Benchmark: the same stream emitted as different loss types, timed through onlinelab.simulate.

The writing-environments guide (docs/guide/writing-environments.md) quotes these ratios. Prints,
measured in one run (single BLAS thread), each on the same samples (same seed, same draws):

  * ``FactoredLoss over SampleLoss (oja): X`` — a stream of unit-variance samples x_t ∈ ℝ^d played by
    Oja, emitted as ``FactoredLoss(x, coef=-1)`` against ``SampleLoss(x)``.  Both keep the samples as
    factors; SampleLoss's comparator buffers them and folds 512 at a time into Σ L_s with one GEMM,
    where FactoredLoss's adds a d × d outer product every round;
  * ``DenseLoss over FactoredLoss (meg): Y`` — rank-one PSD losses x xᵀ played by MEG, emitted as a
    dense (R, d, d) array against ``FactoredLoss(x, coef=1)``, which validates the norm from ‖x‖² and
    evaluates ⟨W, L⟩ in the learner's eigenbasis without forming L.

Each time is the best of ``--repeats`` runs, so a busy machine distorts the ratios less.

Usage:  python benchmarks/bench_loss_types.py [--d 400] [--rounds 2000] [--replicates 4]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

import onlinelab as ol
from onlinelab.losses.streaming import SampleLoss


class Stream(ol.Environment):
    """x_t ~ N(0, I/d) per replicate, emitted as the loss type ``kind`` with coefficient ``coef``."""

    loss_bound = 100.0

    def __init__(self, d: int = 8, kind: str = "factored", coef: float = -1.0):
        super().__init__(d=d)
        self.kind, self.coef = kind, coef

    def emit(self, t, history):
        x = self.rng.normal(self.d) / np.sqrt(self.d)
        if self.kind == "sample":
            return SampleLoss(x, k=1)
        if self.kind == "dense":
            return ol.DenseLoss(self.coef * x[:, :, None] * x[:, None, :])
        return ol.FactoredLoss(x, coef=self.coef)


def best_time(env, learner, T, R, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ol.simulate(env, [ol.make_learner(learner)], T=T, replicates=R, seed=0)
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=400)
    ap.add_argument("--d-meg", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--replicates", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=2)
    a = ap.parse_args(argv)
    with threadpool_limits(1):
        sample = best_time(Stream(d=a.d, kind="sample"), "oja", a.rounds, a.replicates, a.repeats)
        factored = best_time(Stream(d=a.d, kind="factored"), "oja", a.rounds, a.replicates, a.repeats)
        dense = best_time(Stream(d=a.d_meg, kind="dense", coef=1.0), "meg", a.rounds, a.replicates, a.repeats)
        fact_meg = best_time(Stream(d=a.d_meg, kind="factored", coef=1.0), "meg", a.rounds, a.replicates, a.repeats)
    print(f"oja d={a.d}: SampleLoss {sample:.2f} s, FactoredLoss {factored:.2f} s")
    print(f"FactoredLoss over SampleLoss (oja): {factored / sample:.2f}")
    print(f"meg d={a.d_meg}: DenseLoss {dense:.2f} s, FactoredLoss {fact_meg:.2f} s")
    print(f"DenseLoss over FactoredLoss (meg): {dense / fact_meg:.2f}")


if __name__ == "__main__":
    main()
