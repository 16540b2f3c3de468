"""Shared check: a run stopped by SIGTERM after round ``stop`` and resumed equals the uninterrupted run."""
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.experiment import config as C
from onlinelab.experiment import durable as D


def assert_resume_is_bit_identical(cfg_dict: dict, stop: int, tmp_path) -> None:
    cfg = C.parse(cfg_dict)
    envs, learners = cfg.build()
    whole = ol.simulate(envs, learners, T=cfg.rounds, replicates=cfg.replicates, seed=cfg.seed,
                        checkpoints=cfg.checkpoints, comparator=cfg.comparator)

    class StopAt(D.Durable):
        def after_round(self, t, env_label, state, rounds=1):
            if t >= stop:
                self.stop_signal = 15  # as the SIGTERM handler does (a block may end past round `stop`)
            super().after_round(t, env_label, state, rounds)
    resolved = C.resolved(cfg)
    durable = StopAt(tmp_path / "run", every_rounds=None, every_seconds=None)
    D.claim(tmp_path / "run", resolved, cfg, durable)
    with pytest.raises(D.RunInterrupted):
        D.execute(cfg, resolved, tmp_path / "run", durable)
    resumed, _ = D.resume_run(tmp_path / "run")
    keep = lambda m: m[m.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731 (wall-clock aside)
    pd.testing.assert_frame_equal(keep(resumed.metrics), keep(whole.metrics))
