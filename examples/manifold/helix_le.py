"""The paper's helix experiment at full size: LE/ALE/VRLE pictures and Remark 4.2 measured (theory §7.10).

``python examples/manifold/helix_le.py [out_dir] [--quick]`` (m = 2000 points, 10 draws: over ten minutes on a
loaded 2-core machine; ``--quick``: m = 500, 3 draws) writes helix_pictures.png, remark_4_2.md and remark_4_2.png,
with a line per stage on stderr.  The code is :mod:`onlinelab.manifold.helix_study`.
"""
import argparse
import pathlib
import sys
import time

import pandas as pd

from onlinelab.manifold.helix_study import pictures, sensitivity

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description="the paper's helix experiment (theory §7.10)")
    ap.add_argument("out", nargs="?", default="runs/helix_le")
    ap.add_argument("--quick", action="store_true", help="m = 500 points and 3 draws (default 2000 and 10)")
    args = ap.parse_args()
    m, draws = (500, 3) if args.quick else (2000, 10)
    out, start = pathlib.Path(args.out), time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    print(f"[1/2] LE, ALE and VRLE pictures, m = {m}", file=sys.stderr, flush=True)
    pictures(m=m).savefig(out / "helix_pictures.png", dpi=110)
    print(f"[2/2] Remark 4.2 sensitivity, m = {m}, {draws} draws ({time.perf_counter() - start:.0f} s so far)",
          file=sys.stderr, flush=True)
    summary, spread = sensitivity(m=m, draws=draws, out=out)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.to_string(index=False, float_format="%.4f"))
        print(spread.to_string(index=False, float_format="%.4f"))
    print(f"written to {out} in {time.perf_counter() - start:.0f} s")
