"""sin²θ against samples on a spiked stream for every streaming learner, beside the Oja 1/n reference.

Reads ``spiked_convergence.toml`` (beside this file), runs it with :func:`onlinelab.simulate`,
and writes ``spiked_convergence.png`` (log-log sin²θ, replicate mean, with a slope −1
reference anchored at Oja's last point: theory §4 gives the 1/n rate, not its constant) and
``spiked_convergence.md`` (final sin²θ, ‖sinΘ‖_F, explained variance, reconstruction error,
compression regret and µs per round).  The tests call :func:`run` with few rounds.
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np
import pandas as pd

import onlinelab as ol
from onlinelab.experiment.config import load_toml, parse

CONFIG = pathlib.Path(__file__).with_name("spiked_convergence.toml")
METRICS = ("sin2_theta", "sin_theta_fro", "explained_variance", "reconstruction_error", "regret")


def run(config=CONFIG, rounds=None, replicates=None, out=None):
    """Run the config (optionally shortened); returns (Result, summary table)."""
    data = load_toml(config)
    if rounds is not None:
        data["run"]["rounds"] = rounds
    if replicates is not None:
        data["run"]["replicates"] = replicates
    cfg = parse(data)
    envs, learners = cfg.build()
    res = ol.simulate(envs, learners, T=cfg.rounds, replicates=cfg.replicates, seed=cfg.seed,
                      checkpoints=cfg.checkpoints)
    table = pd.DataFrame({m: res.final(m).groupby(level="learner", sort=False).mean() for m in METRICS})
    secs = {k: val for timing in res.meta["timings"].values() for k, val in timing["learner_s"].items()}
    table["us_per_round"] = [1e6 * secs[name] / cfg.rounds for name in table.index]
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "spiked_convergence.md").write_text(table.to_string(float_format="%.4g") + "\n")
        fig = plot(res, block=envs[0].block)
        fig.savefig(out / "spiked_convergence.png", dpi=110)
    return res, table


def plot(res, block: int = 1, metric: str = "sin2_theta", reference: str = "oja-block-10"):
    """Log-log ``metric`` against samples (rounds × block) with the 1/n reference line."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves = res.curve(metric)
    for i, name in enumerate(dict.fromkeys(curves.learner)):
        c = curves[curves.learner == name]
        ax.plot(c.t * block, c["mean"], color=f"C{i % 10}", label=name)
    ref = curves[curves.learner == reference] if reference in set(curves.learner) else curves
    n_end, y_end = ref.t.iloc[-1] * block, ref["mean"].iloc[-1]
    n = np.array([n_end / 100, n_end])
    ax.plot(n, y_end * n_end / n, "k--", lw=1, label="1/n reference (Oja rate, theory §4)")
    ax.set(xscale="log", yscale="log", xlabel="samples n", ylabel=metric)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    import matplotlib
    matplotlib.use("Agg")
    print(f"running {CONFIG.name} (every streaming learner on the spiked stream) ...", file=sys.stderr, flush=True)
    print(run(out=sys.argv[1] if len(sys.argv) > 1 else "runs/streaming")[1].to_string(float_format="%.4g"))
