"""Benchmark: the near-isometric embedding fit against its eigensolver floor, and the Fantope SDP's reach.

Instance (theory §5.6): 142 images of the digit 5 from scikit-learn's digits (n = 10011 pairs, d = 64),
k = 10, T = 120, η = √2/√(nT), one BLAS thread.  Prints, measured in one run:

  * ``ratio to eigensolver floor: X`` — the whole ``NearIsometricEmbedding.fit(points)`` (forming the
    unit differences and the pair structure, the game on the simpy loop with the registered ``omd``
    learner and the top-k player, the 15 checkpoints with their extra top-k of M(λ̄_t) and bracket
    checks, the result table) over the time of the T top-k solves of M(λ_t) alone, along the same
    trajectory, with the solver the fit uses (``top_k``: ``auto`` = dense at d = 64, M(λ) formed from
    the rows with λ_i > 0 and ``eigh``; LOBPCG warm-started from the previous solve).  Target ≤ 1.5.  The
    same line is printed for the matrix-free LOBPCG solver.
  * ``ratio to plain Algorithm 1 steps`` — the fit over T bare steps written as a loop: the solve, the
    supergradient ‖Vᵀx_ij‖² by the fit's own pair structure (``UnitPairs.captured``, O(r²k)) and the
    projection (``Simplex.project``): what the game machinery, the checkpoints and the result table
    cost on top of the algorithm itself.
  * ``SDP: largest n finished within 60 s: n = N (S s)`` — the Fantope SDP (cvxpy, SCS) on subsets of
    r = 10, 20, 30, 46, 64, … images of the digit 5 (n = r(r − 1)/2), stopping at the first that does not
    finish within the limit.

Each time is the best of ``--repeats`` runs, taken in turns (fit, floor, steps, fit, …) so that a change
of load on a shared machine hits all of them alike; the best of several distorts the ratios less.

Usage:  python benchmarks/bench_embedding.py [--repeats 3] [--sdp-limit 60]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from onlinelab.embedding.baselines import fantope_sdp
from onlinelab.embedding.dual import top_k
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.pairs import UnitPairs, unit_differences
from onlinelab.experiment.kinds.embedding import digit_points
from onlinelab.geometry.domains import Simplex


def trajectory(X, k, T, eta):
    """λ_1..λ_T of the run (the floor re-solves these), from a plain replay of the updates (X·V: equal to rounding)."""
    lam, out, S = np.full(len(X), 1 / len(X)), [], Simplex(len(X))
    for _ in range(T):
        out.append(lam)
        _, V = top_k(X, lam, k)
        lam = S.project((lam - eta * np.sum((X @ V) ** 2, axis=1))[None])[0]
    return out


def floor_time(X, lams, k, solver, pairs=None, eta=1e-3):
    """T top-k solves along the trajectory; given ``pairs``, each also with its supergradient and projection."""
    t0, warm, S = time.perf_counter(), None, Simplex(len(X))
    for lam in lams:
        out = top_k(X, lam, k, solver=solver, warm=warm)
        warm = out[2] if len(out) > 2 else None
        if pairs is not None:
            S.project((lam - eta * pairs.captured(out[1]))[None])
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
    pairs = UnitPairs.from_points(pts)
    for solver, label in (("auto", ""), ("lobpcg", " (lobpcg)")):
        base = "dense" if solver == "auto" else solver
        # the loop's values are bound as defaults, so each timing uses this iteration's solver and base
        runs = {"fit": lambda s=solver: _timed(lambda: NearIsometricEmbedding(k, T=T, solver=s).fit(pts)),
                "floor": lambda b=base: floor_time(X, lams, k, b)}
        if solver == "auto":
            runs["step"] = lambda b=base: floor_time(X, lams, k, b, pairs, eta)
        times = {name: [] for name in runs}
        for _ in range(args.repeats):                   # in turns: a change of load hits every timing alike
            for name, run in runs.items():
                times[name].append(run())
        fit, floor = min(times["fit"]), min(times["floor"])
        print(f"fit{label}: {fit:.3f} s, floor (T top-k solves): {floor:.3f} s")
        print(f"ratio to eigensolver floor{label}: {fit / floor:.2f}")
        if solver == "auto":
            step = min(times["step"])
            print(f"floor with the supergradients and projections (plain Algorithm 1 steps): {step:.3f} s")
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
