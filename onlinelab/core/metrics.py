"""What a round cost: running sums per replicate, the comparator in hindsight, and checkpoint rows.

`LossTracker` follows the loss sequence one learner faces (shared by all learners
for an oblivious environment — common random numbers — and one per learner for an
adaptive one): the incremental comparator ``λ_min(Σ L_s)`` (theory §1.1, docs/theory/01-bandit-pca.md) and the sums of
loss statistics the bounds need.  `Recorder` follows one learner: cumulative
expected loss ``Σ⟨Ŵ_t, L_t⟩``, cumulative realised loss ``Σ ℓ_t``, and at checkpoints
writes ``regret``, ``realized_regret``, ``comparator_loss``, ``cumulative_loss``,
``runtime_s`` and any diagnostics, one value per replicate.

>>> import numpy as np
>>> from onlinelab.losses.matrix import FactoredLoss
>>> tr = LossTracker(replicates=1, d=2)
>>> tr.add(FactoredLoss(np.array([[1.0, 0.0]]), coef=1.0))
>>> tr.comparator()
array([0.])
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import compiled_active
from onlinelab.kernels import recorder as recorder_kernels

COMPARATORS = ("exact", "truth", "none")


class LossTracker:
    """Comparator and cumulative loss statistics of one loss sequence (all replicates).

    ``comparator`` chooses what regret is measured against: ``"exact"`` the best fixed action in
    hindsight (the loss type's own comparator), ``"truth"`` the environment's population optimum
    played every round (``population``, the environment whose ``population_play()`` gives it; one
    loss evaluation a round), ``"none"`` nothing — no regret, no statistics, no bounds; only losses are recorded.
    """

    statistics = True   # sum the loss statistics (class default also for trackers restored from older checkpoints)

    def __init__(self, replicates: int, d: int, comparator: str = "exact", population=None):
        self.R, self.d = replicates, d
        self.mode, self.population = comparator, population
        self._comparator = None
        self._truth = np.zeros(replicates)
        self.sums: dict[str, np.ndarray] = {}
        self.history: dict[str, list] = {} if comparator == "none" else {"comparator": []}
        self._cached_t = None
        self._cached = None
        self.rounds = 0
        self.statistics = True   # the simulator turns it off when no bound in the run reads the statistics

    def add(self, loss) -> None:
        self.rounds += 1
        if self.mode == "none":
            return
        if self.mode == "truth":
            self._truth += loss.mixed_value(self.population.population_play())
        else:
            if self._comparator is None:
                self._comparator = loss.comparator(self.R, self.d)
            self._comparator.add(loss)
        if not self.statistics:
            return
        sums = self.sums
        for key, val in loss.statistics().items():
            if key in sums:
                sums[key] += val
            else:
                sums[key] = np.array(val, dtype=float)

    def add_block(self, block) -> None:
        """Add n rounds at once (`onlinelab.core.blocks.LossBlock`): one comparator update and one sum a
        block."""
        self.rounds += block.n
        if self.mode == "none":
            return
        if self.mode == "truth":  # the population optimum, asked once per block (oblivious: it cannot react)
            play = self.population.population_play()
            for loss in block.rounds:
                self._truth += loss.mixed_value(play)
        else:
            if self._comparator is None:
                self._comparator = block.first_round().comparator(self.R, self.d)   # not all n rounds built
            fold = getattr(self._comparator, "add_block", None)
            if fold is not None:
                fold(block)
            else:
                for loss in block.rounds:
                    self._comparator.add(loss)
        if not self.statistics:
            return
        sums = self.sums
        for key, val in block.stacked.statistics().items():   # added round by round, in order: the same sums
            rows = np.asarray(val, dtype=float).reshape(block.n, self.R)   # however the rounds are cut into blocks
            sums[key] = running(sums[key] if key in sums else np.zeros(self.R), rows)

    def comparator(self) -> np.ndarray | None:
        """Best fixed action's cumulative loss so far, per replicate (cached per round); None without one."""
        if self.mode == "none":
            return None
        if self.mode == "truth":
            return self._truth.copy()
        if self._comparator is None:   # no loss yet (a checkpoint before the first arrival, feedback.arrivals)
            return np.zeros(self.R)
        if self._cached_t != self.rounds:
            self._cached, self._cached_t = self._comparator.value(), self.rounds
        return self._cached

    def pooled_comparator(self) -> float | None:
        if self.mode == "none":
            return None
        if self.mode == "truth":
            return float(self._truth.mean())
        return 0.0 if self._comparator is None else self._comparator.pooled_value()

    def snapshot(self) -> None:
        """Remember the comparator and the sums at this checkpoint (for the bound curves)."""
        if self.mode == "none":
            return
        self.history["comparator"].append(self.comparator().copy())
        for key, val in self.sums.items():
            self.history.setdefault(key, []).append(val.copy())


def running(total: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """total + rows[0] + rows[1] + … added in this order (as round by round): a new array shaped like total.

    With the compiled switch on (`onlinelab.kernels`) one pass in place of numpy's accumulate over the
    n + 1 stacked rows; the same additions in the same order, so bit for bit.
    """
    if compiled_active():
        out = np.array(total, dtype=float)
        flat = np.ascontiguousarray(rows, dtype=float).reshape(len(rows), -1)
        if recorder_kernels.run(recorder_kernels.running_into, out.reshape(-1), flat) is not None:
            return out
    return np.add.accumulate(np.concatenate([total[None], rows]), axis=0)[-1].copy()


class Recorder:
    """Running sums for one learner and the checkpoint table it produces."""

    def __init__(self, replicates: int):
        self.R = replicates
        self.cum_expected = np.zeros(replicates)
        self.cum_realized = np.zeros(replicates)
        self._same = True
        self.rows: dict[str, list] = {}
        self.t: list[int] = []
        self.pseudo_regret: list[float] = []

    _same = False   # (class default: recorders restored from checkpoints without the flag keep both sums)

    def add(self, expected: np.ndarray, realized: np.ndarray) -> None:
        if self._same:   # every round so far had realized is expected (full information): one sum serves both
            if realized is expected:
                self.cum_expected += expected
                return
            self._same = False
            self.cum_realized = self.cum_expected.copy()
        self.cum_expected += expected
        self.cum_realized += realized

    def add_block(self, expected: np.ndarray, realized: np.ndarray | None = None) -> None:
        """n rounds at once, (n, R) each (``realized=None``: full information, the expected losses): the
        very sums of n calls of `add` in order (a running sum is sequential, so bit for bit)."""
        if realized is None and self._same:
            self.cum_expected = running(self.cum_expected, expected)
            return
        if self._same:
            self._same = False
            self.cum_realized = self.cum_expected.copy()
        self.cum_expected = running(self.cum_expected, expected)
        self.cum_realized = running(self.cum_realized, expected if realized is None else realized)

    def realized(self) -> np.ndarray:
        """Σ realised losses so far, (R,)."""
        return self.cum_expected if self._same else self.cum_realized

    def checkpoint(self, t: int, tracker: LossTracker, runtime_s: float, extra: dict) -> None:
        comp = tracker.comparator()
        values = {} if comp is None else {"regret": self.cum_expected - comp,
                                          "realized_regret": self.realized() - comp, "comparator_loss": comp}
        values.update(cumulative_loss=self.cum_expected.copy(), runtime_s=np.full(self.R, runtime_s))
        for key, val in extra.items():
            val = np.asarray(val, dtype=float)
            values[key] = val if val.shape == (self.R,) else np.broadcast_to(val, (self.R,))
        self.t.append(t)
        for key, val in values.items():
            self.rows.setdefault(key, []).append(np.array(val, dtype=float))
        pooled = tracker.pooled_comparator()
        self.pseudo_regret.append(None if pooled is None else float(self.cum_expected.mean() - pooled))

    def arrays(self) -> dict[str, np.ndarray]:
        """metric → (C, R) array over the checkpoints recorded so far."""
        return {k: np.stack(v) for k, v in self.rows.items() if len(v) == len(self.t)}
