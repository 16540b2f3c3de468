"""Benchmark: the near-isometric embedding fit against its eigensolver floor, and the Fantope SDP's reach.

Instance (theory §5): 142 images of the digit 5 from scikit-learn's digits (n = 10011 pairs, d = 64),
k = 10, T = 120, η = √2/√(nT), one BLAS thread.  Prints, measured in one run:

  * ``ratio to eigensolver floor: X`` — the whole ``NearIsometricEmbedding.fit`` (data preparation,
    the game on the simpy loop, checkpoints with their extra top-k of M(λ̄_t), the result table) over
    the time of the T top-k solves of M(λ_t) alone, along the same trajectory, with the same solver
    (``auto`` = dense at d = 64; each solve warm-started from the previous one where the solver can
    use it).  Target ≤ 1.5.  The same line is printed for the matrix-free LOBPCG solver.  At d = 64 the
    eigen-solve on the support of λ is cheap and the supergradient X·V (n·d·k per round, which every
    implementation of Algorithm 1 needs) and the projection (n log n) are not, so the script also prints
    ``ratio to plain Algorithm 1 steps`` — the fit over T bare steps (solve + X·V + projection): the cost
    of the game machinery, checkpoints and bracket checks themselves.
  * ``SDP: largest n finished within 60 s: n = N (S s)`` — the Fantope SDP (cvxpy, SCS) on subsets of
    r = 10, 20, 30, 46, 64, … images of the digit 5 (n = r(r − 1)/2), stopping at the first that does not
    finish within the limit.

Each time is the best of ``--repeats`` runs, so a busy machine distorts the ratios less.

Usage:  python benchmarks/bench_embedding.py [--repeats 3] [--sdp-limit 60]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from onlinelab.domains import Simplex
from onlinelab.embedding import NearIsometricEmbedding
from onlinelab.embedding_baselines import fantope_sdp
from onlinelab.embedding_config import digit_points
from onlinelab.embedding_dual import captured, top_k, unit_differences


def trajectory(X, k, T, eta):
    """λ_1..λ_T of the run (the floor re-solves exactly these), from a plain replay of the updates."""
    lam, out, S = np.full(len(X), 1 / len(X)), [], Simplex(len(X))
    for _ in range(T):
        out.append(lam)
        _, V = top_k(X, lam, k)
        lam = S.project((lam - eta * np.sum((X @ V) ** 2, axis=1))[None])[0]
    return out


def floor_time(X, lams, k, solver, whole_step=False):
    """T top-k solves along the trajectory; with ``whole_step`` also each supergradient and projection."""
    t0, warm, S = time.perf_counter(), None, Simplex(len(X))
    for lam in lams:
        out = top_k(X, lam, k, solver=solver, warm=warm)
        warm = out[2] if len(out) > 2 else None
        if whole_step:
            S.project((lam - 1e-3 * captured(X, out[1]))[None])
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sdp-limit", type=float, default=60.0)
    args = ap.parse_args()
    pts = digit_points(5, 142, 0)
    X = unit_differences(pts)
    k, T = 10, 120
    eta = float(np.sqrt(2 / (len(X) * T)))
    lams = trajectory(X, k, T, eta)
    print(f"n = {len(X)} pairs, d = {X.shape[1]}, k = {k}, T = {T}, eta = {eta:.5f}")
    for solver, label in (("auto", ""), ("lobpcg", " (lobpcg)")):
        fit = min(_timed(lambda: NearIsometricEmbedding(k, T=T, solver=solver).fit(pts)) for _ in range(args.repeats))
        floor = min(floor_time(X, lams, k, "dense" if solver == "auto" else solver) for _ in range(args.repeats))
        print(f"fit{label}: {fit:.3f} s, floor (T top-k solves): {floor:.3f} s")
        print(f"ratio to eigensolver floor{label}: {fit / floor:.2f}")
        if solver == "auto":
            step = min(floor_time(X, lams, k, "dense", whole_step=True) for _ in range(args.repeats))
            print(f"floor with the supergradients X·V and projections (plain Algorithm 1 steps): {step:.3f} s")
            print(f"ratio to plain Algorithm 1 steps: {fit / step:.2f}")
    best = None
    for r in (10, 20, 30, 46, 64, 80, 101):
        Xr = unit_differences(digit_points(5, r, 0))
        res = fantope_sdp(Xr, k, solver="SCS", time_limit=args.sdp_limit)
        print(f"SDP r = {r}, n = {len(Xr)}: {res.status} in {res.seconds:.1f} s")
        if not res.finished or res.seconds > args.sdp_limit:
            break
        best = (len(Xr), res.seconds)
    if best is None:
        print(f"SDP: largest n finished within {args.sdp_limit:g} s: none")
    else:
        print(f"SDP: largest n finished within {args.sdp_limit:g} s: n = {best[0]} ({best[1]:.1f} s)")


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    with threadpool_limits(1):
        main()
