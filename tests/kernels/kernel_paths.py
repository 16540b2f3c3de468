"""Helpers of the kernel tests: a run's metrics on both paths (kernels and numpy reference); a kernel's call count."""
import pandas as pd

import onlinelab as ol


def without_runtime(metrics: pd.DataFrame) -> pd.DataFrame:
    """The metrics without the wall-clock ones, which differ between any two runs."""
    return metrics[metrics.metric != "runtime_s"].reset_index(drop=True)


def both_paths(env, learner, **kw):
    """The run's metrics with the kernels and with the numpy reference."""
    fast = ol.simulate(env, [learner], compiled=True, **kw).metrics
    plain = ol.simulate(env, [learner], compiled=False, **kw).metrics
    return without_runtime(fast), without_runtime(plain)


def count_calls(monkeypatch, kern) -> dict:
    """A dict whose "n" counts the calls of the Kernel ``kern`` from now on, so a test sees the compiled path ran."""
    box = {"n": 0}
    real = type(kern).call

    def call(self, *args):
        if self is kern:
            box["n"] += 1
        return real(self, *args)
    monkeypatch.setattr(type(kern), "call", call)
    return box
