"""The three experiments of theory §8: Exp3 beside its bound, regret against total delay, the arrivals sweep.

Run ``python examples/bandits/bandits_and_delays.py [out_dir] [--quick]``.  It writes to ``out_dir``
(default ``runs/bandits-and-delays``):

* ``exp3/`` — a run directory (metrics, report.md, report.png) of Exp3 and Exp3-Auer on the 10-armed
  Bernoulli problem (means 0.1 … 0.8, 0.85, 0.9), T = 10⁴, 20 replicates, each beside its bound;
* ``regret_vs_delay.png`` / ``.md`` (``.csv`` without the tabulate package) — delayed OGD against
  ``sign-chaser`` and delayed Exp3 against ``split-chaser`` for fixed delays d = 0, 2, 8, 32, 128, each
  tuned for its total delay D, T = 4000 (1000 quick), 16 replicates (8 quick): regret grows like
  √(T + 2D) for OGD and √(KT + 2D) for Exp3;
* ``arrivals.png`` / ``arrivals.csv`` — Oja one sample per call against block Oja, the load ρ swept across 1.

The notebook ``notebooks/08_bandits_and_delays.ipynb`` runs the same functions at a smaller size.
"""
from __future__ import annotations

import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from onlinelab.bandits import delay_experiments as X  # noqa: E402


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    out = pathlib.Path(argv[0] if argv else "runs/bandits-and-delays")
    out.mkdir(parents=True, exist_ok=True)
    T, R = (2000, 8) if quick else (10_000, 20)

    print(f"[1/3] Exp3 beside its bound, T = {T}, {R} replicates", file=sys.stderr, flush=True)
    res = X.exp3_beside_bound(T=T, replicates=R)
    res.save(out / "exp3")
    print(res.summary()[["learner", "regret", "ci_low", "ci_high", "bound", "ratio"]].to_string(index=False))

    print("[2/3] regret against total delay", file=sys.stderr, flush=True)
    delay = X.regret_against_delay(T=1000 if quick else 4000, replicates=8 if quick else 16)
    delay.to_markdown(out / "regret_vs_delay.md", index=False) if _has_tabulate() else \
        delay.to_csv(out / "regret_vs_delay.csv", index=False)
    X.plot_regret_against_delay(delay)
    plt.savefig(out / "regret_vs_delay.png", dpi=120, bbox_inches="tight")
    print(delay.to_string(index=False))

    print("[3/3] arrivals sweep", file=sys.stderr, flush=True)
    sweep = X.arrivals_sweep(T=200 if quick else 600, replicates=2 if quick else 4)
    sweep.to_csv(out / "arrivals.csv", index=False)
    X.plot_arrivals_sweep(sweep)
    plt.savefig(out / "arrivals.png", dpi=120, bbox_inches="tight")
    print(sweep.to_string(index=False))


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
