"""One learner facing one environment instance in a run: its state, streams, history and recorder, and
what it does each round (act, feedback, update, record) or each block of an oblivious environment's rounds.

The round (docs/guide/writing-learners.md): the learner turns its state into a play; the loss comes
from the shared oblivious environment or from this slot's own adaptive one (which sees only the
`onlinelab.core.protocol.HistoryView`); the learner gets exactly its feedback kind
(`feedback_for`) and updates; the recorder adds what the round cost.

A block (`onlinelab.core.blocks`): a learner that defines ``play_block(state, block, rng)`` plays all
of the block's rounds in one call — the same plays and draws it would make round by round, since an
oblivious environment's losses do not depend on them — and the recorder adds each round's costs in
order; any other learner (and any learner whose feedback is delayed, prescient or first-order) plays
the block round by round.
"""
from __future__ import annotations

import time
from collections import deque

from onlinelab.core import numerics
from onlinelab.core.arm_metrics import ArmMetrics
from onlinelab.core.metrics import Recorder
from onlinelab.core.protocol import Feedback, HistoryView, frozen, frozen_mixed, history_window, history_write_error
from onlinelab.core.rng import BatchRNG
from onlinelab.core.watchdog import call
from onlinelab.errors import ProtocolError


def feedback_for(kind: str, loss, play):
    """What a learner of feedback ``kind`` is told about ``loss`` after ``play``, and the round's expected and
    realised losses: bandit learners get only the realised scalar, first-order ones a gradient at the play.

    Parameters
    ----------
    kind : {"full", "bandit", "first_order"}
        The learner's declared feedback kind.
    loss : MatrixLoss or vector loss
        The round's loss.
    play : Play
        The learner's play this round.
    """
    expected = loss.mixed_value(play.mixed)
    realized = expected if play.action is None else loss.action_value(play.action)
    if kind == "bandit":
        return Feedback("bandit", value=realized), expected, realized
    if kind == "first_order":
        return Feedback("first_order", gradient=loss.gradient(play.mixed), value=expected), expected, realized
    return Feedback("full", loss=loss), expected, realized


class Slot:
    """One learner facing one environment instance: its state, streams, history and recorder."""

    arms = None   # per-arm metrics (onlinelab.core.arm_metrics); class default for slots restored from old checkpoints

    def __init__(self, label, learner, env, env_label, ctx, seed, tracker):
        self.label, self.learner, self.env, self.env_label = label, learner, env, env_label
        self.rng = BatchRNG.from_seed(seed, "learner", label, ctx.replicates, env=env_label)  # onlinelab.core.rng
        self.state = learner.init(ctx, self.rng)
        self.tracker = tracker
        self.recorder = Recorder(ctx.replicates)
        self.kind = learner.feedback
        self.prescient = bool(getattr(learner, "prescient", False))
        self.window = history_window(env, env_label)
        self.actions, self.losses = deque(maxlen=self.window), deque(maxlen=self.window)
        self.runtime = 0.0
        self.channel = None  # set by onlinelab.feedback.delays when feedback is delayed: it posts, then delivers later
        self.arms = ArmMetrics.of(env, ctx.replicates)   # None unless env knows its expected losses

    def step(self, t, shared_loss, validate):
        t0 = time.perf_counter()
        if self.prescient:  # a "+" learner sees this round's loss first (theory §3.1)
            if shared_loss is None:
                raise ProtocolError(f"learner {self.label!r} is prescient (it sees the loss before playing), which an "
                                    f"adaptive environment ({self.env_label!r}) cannot allow; use an oblivious one")
            play = self.learner.act(self.state, self.rng, loss=shared_loss)
        else:
            play = self.learner.act(self.state, self.rng)
        t1 = time.perf_counter()
        loss = shared_loss
        if loss is None:  # adaptive: this learner's own environment sees the history, not the action
            loss = self._emit_adaptive(t, play)
            validate(loss, t)
            self.tracker.add(loss)
        feedback, expected, realized = feedback_for(self.kind, loss, play)
        self.runtime += t1 - t0
        if self.arms is not None:
            self.arms.add(t, play.mixed)
        if self.channel is None:
            self.deliver(play, feedback)
        else:  # delayed feedback: a simpy event delivers it d_t rounds later (onlinelab.feedback.delays)
            self.channel.post(self, t, play, feedback)
        if shared_loss is None:
            if play.action is not None:
                self.actions.append(frozen(play.action))
            self.losses.append(loss)
        self.recorder.add(expected, realized)

    def step_block(self, t, block, validate):
        """Rounds t … t + block.n − 1 of the shared oblivious environment: in one ``play_block`` call when the
        learner has one (and takes this block), else round by round."""
        play_block = getattr(self.learner, "play_block", None)
        if play_block is not None and self.channel is None and not self.prescient and self.kind != "first_order":
            t0 = time.perf_counter()
            block.plays_wanted = self.arms is not None     # else only the state and the expected losses are read
            out = play_block(self.state, block, self.rng)
            if out is not None:   # (state, plays[, realized[, expected]]): see docs/guide/writing-learners.md
                self.state, mixed = out[0], out[1]
                self.runtime += time.perf_counter() - t0
                expected = out[3] if len(out) > 3 else None
                if mixed is None and (expected is None or self.arms is not None):
                    why = "with no expected losses" if expected is None else "of a block whose plays_wanted is True"
                    raise ProtocolError(f"{type(self.learner).__name__}.play_block returned None for the plays {why}; "
                                        "return the plays (None is allowed only when block.plays_wanted is False "
                                        "and the (n, R) expected losses follow; docs/guide/writing-learners.md)")
                if expected is None:
                    expected = block.stacked.mixed_value(mixed)
                self.recorder.add_block(expected.reshape(block.n, -1), out[2] if len(out) > 2 else None)
                if self.arms is not None:
                    self.arms.add_block(t, mixed)
                return
        for i, loss in enumerate(block.rounds):
            self.step(t + i, loss, validate)

    def _emit_adaptive(self, t, play):
        try:  # under the run's callback_timeout (onlinelab.core.watchdog)
            return call(f"emit of environment {self.env_label!r}", t, self.env.emit, t,
                        HistoryView(t, frozen_mixed(play.mixed), self.actions, self.losses))
        except ValueError as exc:  # a write into the read-only history: say so (onlinelab.core.protocol)
            clear = history_write_error(exc, self.env_label, t)
            if clear is None:
                raise
            raise clear from exc
        except IndexError as exc:  # most likely reaching past the kept window: say so, and how to keep more
            if self.window is None or t - 1 <= self.window:
                raise
            raise ProtocolError(f"environment {self.env_label!r} raised IndexError ({exc}) in round {t}; its history "
                                f"keeps only the last {self.window} rounds (history_window = {self.window}); set "
                                "history_window = None on the class to keep every round (memory then grows with T) "
                                "or a larger window, or keep a running summary on self") from exc

    def deliver(self, play, feedback):
        """The learner updates on one round's feedback (now, or when a delayed feedback event fires)."""
        t2 = time.perf_counter()
        self.state = self.learner.update(self.state, play, feedback, self.rng)
        self.runtime += time.perf_counter() - t2

    def bounds(self, ctx) -> list:
        bounds = self.learner.bounds(ctx) + list(self.env.instance_bounds(ctx, self.learner))
        return bounds if self.channel is None else self.channel.bounds(self, ctx, bounds)

    def checkpoint(self, t):
        extra = dict(self.learner.diagnostics(self.state))
        extra.update(self.env.checkpoint_metrics(self.learner, self.state))
        if self.arms is not None:
            extra.update(self.arms.metrics())
        if self.channel is not None:
            extra.update(self.channel.metrics(self, t))
        self.recorder.checkpoint(t, self.tracker, self.runtime, extra)
        numerics.check(self, t, extra)   # non-finite plays: error; unstable updates: warning (checkpoints only)
