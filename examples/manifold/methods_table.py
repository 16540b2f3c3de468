"""Every spectral method × k on the digits and the helix, at full size (theory §7).

``python examples/manifold/methods_table.py [out_dir]`` writes methods_table.md and methods_table.png.
The code is :func:`onlinelab.manifold.method_study.methods_table`.
"""
import pathlib
import sys

from onlinelab.manifold.method_study import methods_table

if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runs/methods_table")
    table = methods_table(out=out)
    print(table.to_string(index=False, float_format="%.4f"))
    print(f"written to {out}")
