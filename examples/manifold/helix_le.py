"""The paper's helix experiment at full size: LE/ALE/VRLE pictures and Remark 4.2 measured (theory §7.10).

``python examples/manifold/helix_le.py [out_dir]`` (m = 2000 points, 10 draws; a few minutes) writes
helix_pictures.png, remark_4_2.md and remark_4_2.png.  The code is :mod:`onlinelab.manifold.helix_study`.
"""
import pathlib
import sys

import pandas as pd

from onlinelab.manifold.helix_study import pictures, sensitivity

if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runs/helix_le")
    out.mkdir(parents=True, exist_ok=True)
    pictures().savefig(out / "helix_pictures.png", dpi=110)
    summary, spread = sensitivity(out=out)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary.to_string(index=False, float_format="%.4f"))
        print(spread.to_string(index=False, float_format="%.4f"))
    print(f"written to {out}")
