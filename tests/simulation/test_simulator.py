"""The round protocol: seeds, common random numbers, what adaptive environments may see, partial results."""
import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.errors import ProtocolError, SimulationError


def _learners():
    return {"dense": ol.make_learner("logdet-omd", sampler="dense"),
            "sparse": ol.make_learner("logdet-omd", sampler="sparse"), "meg": ol.make_learner("meg")}


def test_same_seed_same_metrics_bit_for_bit():
    env = ol.make_environment("spiked-covariance", d=4)
    a = ol.simulate(env, _learners(), T=120, replicates=3, seed=7).metrics
    b = ol.simulate(env, _learners(), T=120, replicates=3, seed=7).metrics
    keep = a.metric != "runtime_s"
    pd.testing.assert_frame_equal(a[keep].reset_index(drop=True), b[keep].reset_index(drop=True), check_exact=True)
    c = ol.simulate(env, _learners(), T=120, replicates=3, seed=8).metrics
    assert not np.array_equal(a[keep].value.to_numpy(), c[keep].value.to_numpy())


@pytest.mark.parametrize("env_name", ["spiked-covariance", "top-direction"])
def test_adding_a_learner_changes_nothing_else(env_name):
    env = ol.make_environment(env_name, d=4)
    solo = ol.simulate(env, {"dense": ol.make_learner("logdet-omd")}, T=100, replicates=2, seed=3).metrics
    both = ol.simulate(env, {"meg": ol.make_learner("meg"), "dense": ol.make_learner("logdet-omd")},
                       T=100, replicates=2, seed=3).metrics
    pick = lambda m: m[(m.learner == "dense") & (m.metric != "runtime_s")].reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(pick(solo), pick(both), check_exact=True)


def test_replicate_streams_do_not_depend_on_the_number_of_replicates():
    env = ol.make_environment("spiked-covariance", d=4)
    few = ol.simulate(env, {"s": ol.make_learner("logdet-omd", sampler="sparse")}, T=80, replicates=2, seed=1).metrics
    many = ol.simulate(env, {"s": ol.make_learner("logdet-omd", sampler="sparse")}, T=80, replicates=5, seed=1).metrics
    pick = lambda m: m[(m.replicate < 2) & (m.metric == "regret")].value.to_numpy()  # noqa: E731
    np.testing.assert_array_equal(pick(few), pick(many))


def test_oblivious_losses_are_common_random_numbers():
    res = ol.simulate("spiked-covariance", _learners(), T=60, replicates=3, seed=2)
    comp = res.metrics[res.metrics.metric == "comparator_loss"].pivot_table(
        index=["replicate", "t"], columns="learner", values="value")
    assert np.all(comp.nunique(axis=1) == 1)
    assert comp.groupby("replicate").last().iloc[:, 0].nunique() == 3  # replicates differ


class _Recorder(ol.Environment):
    """Adaptive: records what it is shown, and checks that the past actions are exactly the learner's."""

    adaptive = True
    psd = True
    seen: list = []

    def emit(self, t, history):
        assert len(history.actions) == t - 1 and len(history.losses) == t - 1
        type(self).seen.append((t, [a.copy() for a in history.actions], history.mixed))
        x = history.mixed.top_vector()
        return ol.FactoredLoss(x, coef=1.0)


def test_adaptive_environment_sees_past_actions_only():
    _Recorder.seen = []
    learner = ol.make_learner("logdet-omd", sampler="sparse")
    res = ol.simulate(_Recorder(d=3), {"s": learner}, T=6, replicates=2, seed=0)
    # replay the learner by hand with the same streams: its actions must be what the history showed
    from onlinelab.core.protocol import Context, Feedback
    from onlinelab.core.rng import BatchRNG
    ctx = Context(d=3, T=6, replicates=2, psd=True, adaptive=True)
    rng = BatchRNG.from_seed(0, "learner", "s", 2, env=res.environments[0])
    state = learner.init(ctx, rng)
    actions = []
    for t in range(1, 7):
        play = learner.act(state, rng)
        _, shown, mixed = _Recorder.seen[t - 1]
        assert len(shown) == len(actions)
        for a, b in zip(shown, actions, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(mixed.lam, play.mixed.lam)
        loss = ol.FactoredLoss(play.mixed.top_vector(), coef=1.0)
        state = learner.update(state, play, Feedback("bandit", value=loss.quad(play.action)), rng)
        actions.append(play.action)


def test_history_actions_are_read_only():
    class Mutator(ol.Environment):
        adaptive = True

        def emit(self, t, history):
            if history.actions:
                history.actions[-1][0, 0] = 5.0
            return ol.FactoredLoss(history.mixed.top_vector(), coef=1.0)

    with pytest.raises(ProtocolError, match=r"environment 'Mutator\(d=3\)' wrote into its history in round 2 "
                                            r"\(assignment destination is read-only\).*np\.array\(history\.mixed\)"):
        ol.simulate(Mutator(d=3), [ol.make_learner("meg")], T=3)


def test_peeking_at_the_current_action_is_refused():
    class Peeker(ol.Environment):
        adaptive = True

        def emit(self, t, history):
            return ol.FactoredLoss(history.action, coef=1.0)

    with pytest.raises(ProtocolError, match=r"history\.action in round 1: the current sampled action is hidden"):
        ol.simulate(Peeker(d=3), [ol.make_learner("logdet-omd")], T=5)


def test_bandit_learners_get_only_the_scalar_loss():
    got = []

    class Spy(ol.learners.LogDetOMD):
        def update(self, state, play, feedback, rng):
            got.append(feedback)
            return super().update(state, play, feedback, rng)

    ol.simulate("spiked-covariance", {"spy": Spy(sampler="dense")}, T=3)
    assert all(f.kind == "bandit" and f.loss is None and f.value.shape == (1,) for f in got)


def test_a_failing_run_keeps_its_completed_checkpoints():
    class Breaks(ol.Environment):
        def emit(self, t, history):
            if t == 40:
                raise RuntimeError("sensor unplugged")
            return ol.FactoredLoss(self.rng.normal(self.d) / 10, coef=1.0)

    with pytest.raises(SimulationError, match="round 40 of 100.*sensor unplugged") as info:
        ol.simulate(Breaks(d=3), [ol.make_learner("meg")], T=100, replicates=2, checkpoints=[10, 20, 30, 50])
    partial = info.value.partial
    assert sorted(partial.metrics.t.unique()) == [10, 20, 30]
    assert partial.meta["status"].startswith("failed: RuntimeError")


def test_checkpoints_are_log_spaced_and_include_the_end():
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=1000)
    t = np.sort(res.metrics.t.unique())
    assert t[0] == 1 and t[-1] == 1000 and len(t) >= 20
    late = t[t >= 10]
    ratios = late[1:] / late[:-1]
    assert ratios.max() < 1.5 and ratios.min() > 1.1


def test_one_simpy_event_per_round_or_per_block():
    import simpy
    counts = {"n": 0}
    original = simpy.Environment.step

    def counting(self):
        counts["n"] += 1
        return original(self)

    simpy.Environment.step = counting
    try:   # ftl-alternating emits no blocks: its rounds are played one by one
        ol.simulate(ol.make_environment("ftl-alternating", d=4), _learners(), T=20, replicates=4)
        short = counts["n"]
        ol.simulate(ol.make_environment("ftl-alternating", d=4), _learners(), T=50, replicates=64)
        one_by_one = counts["n"] - short
        ol.simulate("spiked-covariance", _learners(), T=50, replicates=4, checkpoints=[10, 50])
        blocks = counts["n"] - short - one_by_one
    finally:
        simpy.Environment.step = original
    assert one_by_one - short == 30  # same constant overhead, then exactly one event per extra round
    assert blocks < 10   # spiked-covariance emits blocks (1-9, 10-50 cut at the checkpoints): one event each


def test_adaptive_environment_cannot_write_into_the_mixed_strategy():
    class Scribbler(ol.Environment):
        adaptive = True

        def emit(self, t, history):
            history.mixed.U[:, 0, 0] = 3.0
            return ol.FactoredLoss(history.mixed.top_vector(), coef=1.0)

    with pytest.raises(ProtocolError, match=r"environment 'Scribbler\(d=3\)' wrote into its history in round 1 "
                                            r"\(assignment destination is read-only\): history\.mixed"):
        ol.simulate(Scribbler(d=3), [ol.make_learner("meg")], T=3)


def test_pseudo_regret_pools_the_replicates_cumulative_losses():
    """theory §1.1: mean_r Σ_t⟨Ŵ, L⟩ − λ_min(mean_r Σ_t L_t), with the losses replayed independently."""
    from onlinelab.core.base import label_of
    from onlinelab.core.rng import BatchRNG
    env = ol.make_environment("spiked-covariance", d=4)
    T, R, seed = 60, 5, 3
    res = ol.simulate(env, {"meg": ol.make_learner("meg")}, T=T, replicates=R, seed=seed)
    replay = env.clone()
    replay.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    S = sum(replay.emit(t, None).dense() for t in range(1, T + 1))            # (R, d, d)
    pooled = res.final("cumulative_loss").mean() - np.linalg.eigvalsh(S.mean(axis=0))[0]
    per_replicate = np.linalg.eigvalsh(S)[:, 0]
    np.testing.assert_allclose(res.final("comparator_loss").to_numpy(), per_replicate, rtol=1e-12)
    assert res.meta["pseudo_regret"][res.environments[0]]["meg"] == pytest.approx(pooled, abs=1e-10)
    assert pooled < res.final("regret").mean() - 1e-6   # pooling differs from averaging the per-replicate regrets
