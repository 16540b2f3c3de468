"""Every spectral method × k on the digits and the helix, at full size (theory §7).

``python examples/manifold/methods_table.py [out_dir] [--quick]`` writes methods_table.md and methods_table.png,
with a line per stage on stderr.  The full size takes over ten minutes on a loaded 2-core machine; ``--quick``
uses 500 digits and 500 helix points (default: all 1797 digits, 2000 helix points).
The code is :func:`onlinelab.manifold.method_study.methods_table`.
"""
import pathlib
import sys
import time

from onlinelab.manifold.method_study import methods_table

if __name__ == "__main__":
    start = time.perf_counter()
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = pathlib.Path(args[0] if args else "runs/methods_table")
    size = {"m_digits": 500, "m_helix": 500} if "--quick" in sys.argv[1:] else {}
    print("running: every spectral method x k on the digits and the helix ...",
          file=sys.stderr, flush=True)
    table = methods_table(out=out, **size)
    print(table.to_string(index=False, float_format="%.4f"))
    print(f"written to {out}")
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
