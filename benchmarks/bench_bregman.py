"""Benchmark: robust PCA iterations against the cost of their SVDs (theory §6).

Prints, measured in one run with one BLAS thread, on a 500 × 300 matrix (rank 10, 5 % outliers):

  * ``ratio to SVD floor: X`` — the wall time of ``robust_pca(X, iters=K)`` (Algorithm 9, no
    reference solve, metrics at the last iteration only) over the time of K calls of
    ``scipy.linalg.svd(X, full_matrices=False)`` on that matrix (target ≤ 1.3).  Each iteration needs
    one thin SVD of τY^k; the rest (thresholding, the rank-r product, the momentum) is the overhead.
  * ``ratio to truncated-SVD floor: X`` — the same wall time over K truncated SVDs of rank 2r
    (``scipy.sparse.linalg.svds``), the floor a low-rank-aware solver could aim at.  The solver
    keeps the full thin SVD: SVT needs every singular value above γα, and the rank of the iterates
    is not known in advance (early iterates are of high rank), so a truncated SVD would need a rank
    guess and a fallback; this line shows what that would buy.

Each side is the best of ``--repeats`` runs, alternating, so a busy machine distorts the ratio less.

Usage:  python benchmarks/bench_bregman.py [--iters 100] [--repeats 3]
"""
from __future__ import annotations

import argparse
import time

import scipy.linalg
from scipy.sparse.linalg import svds
from threadpoolctl import threadpool_limits

from onlinelab.bregman import robust_pca
from onlinelab.bregman.data import low_rank_plus_sparse


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    K, rank = args.iters, 10
    X = low_rank_plus_sparse(500, 300, rank, 0.05, 10.0, 1, 0)[0][0]
    solver, floor, trunc = [], [], []
    with threadpool_limits(limits=1):
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            robust_pca(X, iters=K, reference=False, checkpoints=[K])
            solver.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for _ in range(K):
                scipy.linalg.svd(X, full_matrices=False)
            floor.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for _ in range(K):
                svds(X, k=2 * rank)
            trunc.append(time.perf_counter() - t0)
    print(f"robust PCA 500x300, {K} iterations: {min(solver):.3f} s; {K} thin SVDs: {min(floor):.3f} s; "
          f"{K} rank-{2 * rank} svds: {min(trunc):.3f} s")
    print(f"ratio to SVD floor: {min(solver) / min(floor):.3f}")
    print(f"ratio to truncated-SVD floor: {min(solver) / min(trunc):.3f}")


if __name__ == "__main__":
    main()
