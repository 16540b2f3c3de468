"""The three experiments of theory §10: the classic comparison, piecewise-stationary arms, delayed feedback.

Run ``python examples/bandits/stochastic_bandits.py [out_dir] [--quick] [--T N] [--replicates R]``.  It writes
to ``out_dir`` (default ``runs/stochastic-bandits``):

* ``classic/`` — a run directory (metrics, report.md, report.png) of UCB1, MOSS, KL-UCB, Thompson sampling
  and Exp3 on the 10-armed Bernoulli problem (means 0.1 … 0.8, 0.85, 0.9), T = 10⁵, 100 replicates by
  default, with the Lai–Robbins curve; ``classic.png`` draws the pseudo-regret (95 % bands) against t on a
  log axis beside Lai–Robbins, and ``classic.csv`` the final pseudo-regret ± its 95 % interval and the
  ratio to Lai–Robbins.  Thompson sampling's exact Beta draws (an inverse CDF per arm, replicate and
  round) make it the slow one: this part takes minutes at the default size;
* ``piecewise.png`` / ``piecewise.csv`` — UCB1, KL-UCB, Thompson, SW-UCB and D-UCB (tuned for T) on three
  phases of three arms (0.9, 0.5, 0.3 → 0.4, 0.6, 0.3 → 0.4, 0.5, 0.8), T = 20 000, 20 replicates: the
  dynamic regret, against the best arm of each phase;
* ``delay.png`` / ``delay.csv`` — UCB1, KL-UCB and Thompson sampling under fixed delays d = 0, 10, 50, 200,
  1000, T = 10⁴, 20 replicates: the final pseudo-regret against the total delay D.

``--quick`` runs every part at a tenth of its size.  The notebook ``notebooks/09_stochastic_bandits.ipynb`` runs
the same functions at a smaller size.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from onlinelab.bandits import stochastic_experiments as X  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="runs/stochastic-bandits")
    ap.add_argument("--quick", action="store_true", help="every part at a tenth of its size")
    ap.add_argument("--T", type=int, default=None, help="horizon of the classic comparison (default 10⁵)")
    ap.add_argument("--replicates", type=int, default=None, help="its replicates (default 100)")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scale = 10 if args.quick else 1

    T = args.T or 100_000 // scale
    R = args.replicates or 100 // scale
    print(f"[1/3] classic comparison, T = {T}, {R} replicates (Thompson sampling is the slow one)",
          file=sys.stderr, flush=True)
    res = X.classic_comparison(T=T, replicates=R)
    res.save(out / "classic", force=True)
    table = X.final_table(res)
    table.to_csv(out / "classic.csv", index=False)
    print(table.to_string(index=False, float_format="%.2f"))
    X.plot_regret_curves(res)
    plt.savefig(out / "classic.png", dpi=120, bbox_inches="tight")
    plt.close("all")

    print("[2/3] piecewise-stationary arms", file=sys.stderr, flush=True)
    piece = X.piecewise_comparison(T=20_000 // scale, replicates=max(20 // scale, 2))
    pt = X.final_table(piece)[["learner", "T", "regret", "ci_low", "ci_high"]]
    pt.to_csv(out / "piecewise.csv", index=False)
    print(pt.to_string(index=False, float_format="%.2f"))
    X.plot_regret_curves(piece, logx=False)
    plt.savefig(out / "piecewise.png", dpi=120, bbox_inches="tight")
    plt.close("all")

    print("[3/3] delayed feedback", file=sys.stderr, flush=True)
    delays = (0, 10, 50, 200, 1000) if not args.quick else (0, 5, 20, 100)
    delay = X.regret_against_total_delay(delays=delays, T=10_000 // scale, replicates=max(20 // scale, 2))
    delay.to_csv(out / "delay.csv", index=False)
    print(delay.to_string(index=False, float_format="%.2f"))
    X.plot_regret_against_delay(delay)
    plt.savefig(out / "delay.png", dpi=120, bbox_inches="tight")
    plt.close("all")


if __name__ == "__main__":
    main()
