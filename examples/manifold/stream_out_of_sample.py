"""PCA, LPP and ONPP fitted on a prefix of the digits stream and applied to the rest, beside Oja (theory §7.8, §4).

``python examples/manifold/stream_out_of_sample.py [out_dir]`` writes stream_out_of_sample.md and .png.
The code is :func:`onlinelab.manifold.method_study.stream_out_of_sample`.
"""
import pathlib
import sys
import time

from onlinelab.manifold.method_study import stream_out_of_sample

if __name__ == "__main__":
    start = time.perf_counter()
    out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "runs/stream_out_of_sample")
    print("running: PCA, LPP, ONPP and Oja on prefixes of the digits stream ...",
          file=sys.stderr, flush=True)
    table = stream_out_of_sample(out=out)
    print(table.to_string(index=False, float_format="%.4f"))
    print(f"written to {out}")
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
