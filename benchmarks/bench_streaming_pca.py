"""Block Oja through onlinelab.simulate on a spiked stream, d = 784, k = 5, 10⁵ samples in blocks of 100.

The samples are drawn once from the spiked-stream distribution (spikes 6, 5.5, 5, 4.5, 4 over
noise 1) and replayed by an oblivious environment, so neither side is charged for generating
them; scikit-learn's IncrementalPCA(batch_size=100) partial_fits the very same 1000 blocks.
One BLAS thread throughout.  Printed, measured in one run:

  * ``streaming overhead ratio: X`` — wall time of ``simulate(..., comparator="exact")`` (regret
    against the best rank-5 projection in hindsight, subspace metrics at 40 checkpoints) over the
    learner's own time plus one Gram update (``syrk``) per block on the same blocks — what the
    exact comparator cannot avoid (target ≤ 1.5);
  * ``speedup over IncrementalPCA: Y`` — block Oja's samples per second through
    ``simulate(..., comparator="none")`` over IncrementalPCA's on the same samples (target ≥ 10),
    with both final ‖sin Θ‖_F to the true subspace (target: Oja's within 1.3× of IncrementalPCA's).

Block Oja: ``Oja(k=5, qr="block")``, η_n = c/(gap (n + t₀)) with c = 2 and t₀ = 100 (theory §4).

    python benchmarks/bench_streaming_pca.py [--samples 100000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.linalg.blas import dsyrk
from threadpoolctl import threadpool_limits

import onlinelab as ol
from onlinelab.core.blocks import LossBlock
from onlinelab.environments.streams import SpikedStream
from onlinelab.geometry.subspace_metrics import sin_theta_fro
from onlinelab.learners.streaming_oja import Oja
from onlinelab.losses.streaming import SampleLoss

D, K, B = 784, 5, 100
SPIKES = [6.0, 5.5, 5.0, 4.5, 4.0]
DATA = None  # (N / 100, d, 100): the pre-drawn samples, one contiguous block a round


class Replay(SpikedStream):
    """The spiked stream's samples, drawn beforehand, served 100 a round (several rounds a block)."""

    def __init__(self):
        super().__init__(d=D, k=K, spikes=SPIKES, block=B)

    def reset(self, rng, T):
        ol.Environment.reset(self, rng, T)

    def emit(self, t, history):
        return SampleLoss(DATA[t - 1][None], k=K)

    def emit_block(self, t, n):
        return LossBlock.of_rows(SampleLoss, DATA[t - 1:t - 1 + n, None], k=K)  # (n, 1, d, b), no copy


def draw(samples: int, seed: int = 0) -> np.ndarray:
    env = SpikedStream(d=D, k=K, spikes=SPIKES, block=B)
    g = np.random.default_rng(seed)
    return np.stack([env._draw(g.standard_normal((D, B)), 0.0) for _ in range(samples // B)])


def gram_time(samples: int) -> float:
    """One symmetric rank-100 update of a d × d sum per block: the exact comparator's unavoidable work."""
    total = np.zeros((D, D), order="F")
    start = time.perf_counter()
    for j in range(samples // B):
        total = dsyrk(-1.0 / B, DATA[j].T, beta=1.0, c=total, trans=1, overwrite_c=1)
    return time.perf_counter() - start


def ipca(samples: int):
    from sklearn.decomposition import IncrementalPCA
    model = IncrementalPCA(n_components=K, batch_size=B)
    start = time.perf_counter()
    for j in range(samples // B):
        model.partial_fit(DATA[j].T)
    return time.perf_counter() - start, float(sin_theta_fro(model.components_.T[None], Replay().subspace)[0])


def oja_run(samples: int, comparator: str):
    env = Replay()
    learner = Oja(k=K, qr="block", step=2.0 / env.gap, t0=float(B))
    start = time.perf_counter()
    res = ol.simulate(env, {"oja": learner}, T=samples // B, replicates=1, seed=0, comparator=comparator)
    return time.perf_counter() - start, res


def main(argv=None) -> None:
    global DATA
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=100_000)
    args = p.parse_args(argv)
    N = args.samples
    DATA = draw(N)
    with threadpool_limits(limits=1):
        t_exact, res_exact = oja_run(N, "exact")
        t_gram = gram_time(N)
        t_none, res_none = oja_run(N, "none")
        t_ipca, e_ipca = ipca(N)
    timing = res_exact.meta["timings"][res_exact.environments[0]]
    learner = timing["learner_s"]["oja"]
    e_oja = float(res_none.final("sin_theta_fro").iloc[0])
    print(f"spiked stream d={D}, k={K}, {N} samples in blocks of {B}, one BLAS thread")
    print(f"simulate(comparator='exact'): {t_exact:.3f} s (learner {learner:.3f} s, environment and comparator "
          f"{timing['env_s']:.3f} s, checkpoint metrics {timing['metrics_s']:.3f} s); one Gram update per block "
          f"{t_gram:.3f} s")
    print(f"streaming overhead ratio: {t_exact / (learner + t_gram):.2f}")
    print(f"simulate(comparator='none'): {t_none:.3f} s = {N / t_none:,.0f} samples/s, final ‖sinΘ‖_F = {e_oja:.4f}")
    print(f"IncrementalPCA(batch_size={B}): {t_ipca:.3f} s = {N / t_ipca:,.0f} samples/s, "
          f"final ‖sinΘ‖_F = {e_ipca:.4f}")
    print(f"Oja's final ‖sinΘ‖_F over IncrementalPCA's: {e_oja / e_ipca:.2f} (target ≤ 1.3)")
    print(f"speedup over IncrementalPCA: {t_ipca / t_none:.1f}")


if __name__ == "__main__":
    main()
