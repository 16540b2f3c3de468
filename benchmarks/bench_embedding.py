"""Benchmark: the near-isometric embedding fit against its eigensolver floor, and the Fantope SDP's reach.

Instance (theory §5): 142 images of the digit 5 from scikit-learn's digits (n = 10011 pairs, d = 64),
k = 10, T = 120, η = √2/√(nT), one BLAS thread.  Prints, measured in one run:

  * ``ratio to eigensolver floor: X`` — the whole ``NearIsometricEmbedding.fit`` (data preparation,
    the game on the simpy loop, checkpoints with their extra top-k of M(λ̄_t), the result table) over
    the time of the T top-k solves of M(λ_t) alone, along the same trajectory, with the same solver
    (``auto`` = dense at d = 64; each solve warm-started from the previous one where the solver can
    use it).  Target ≤ 1.5.  The same line is printed for the matrix-free LOBPCG solver.
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

from onlinelab.embedding import NearIsometricEmbedding
from onlinelab.embedding_baselines import fantope_sdp
from onlinelab.embedding_config import digit_points
from onlinelab.embedding_dual import unit_differences
from onlinelab.embedding_game import play_embedding_game
from onlinelab.embedding_dual import top_k


def trajectory(X, k, T, eta):
    """λ_1..λ_T of the run (the floor re-solves exactly these), from a plain replay of the updates."""
    res = play_embedding_game(X, k, T=T, eta=eta, solver="dense", checkpoints=[T])
    from onlinelab.domains import Simplex
    lam, out, S = np.full(len(X), 1 / len(X)), [], Simplex(len(X))
    for _ in range(T):
        out.append(lam)
        _, V = top_k(X, lam, k)
        lam = S.project((lam - eta * np.sum((X @ V) ** 2, axis=1))[None])[0]
    return out, res


def floor_time(X, lams, k, solver):
    t0, warm = time.perf_counter(), None
    for lam in lams:
        out = top_k(X, lam, k, solver=solver, warm=warm)
        warm = out[2] if len(out) > 2 else None
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
    lams, _ = trajectory(X, k, T, eta)
    print(f"n = {len(X)} pairs, d = {X.shape[1]}, k = {k}, T = {T}, eta = {eta:.5f}")
    for solver, label in (("auto", ""), ("lobpcg", " (lobpcg)")):
        fit = min(_timed(lambda: NearIsometricEmbedding(k, T=T, solver=solver).fit(pts)) for _ in range(args.repeats))
        floor = min(floor_time(X, lams, k, "dense" if solver == "auto" else solver) for _ in range(args.repeats))
        print(f"fit{label}: {fit:.3f} s, floor (T top-k solves): {floor:.3f} s")
        print(f"ratio to eigensolver floor{label}: {fit / floor:.2f}")
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
