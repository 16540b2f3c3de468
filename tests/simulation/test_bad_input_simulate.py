"""Bad input to ``simulate`` (issue 20, item 5): each row raises an onlinelab.errors exception whose message names
the field, the value and the fix; sizes are refused before anything is allocated, with the estimate that
``onlinelab run`` makes; a user callback that never returns stops at ``callback_timeout`` naming it and the round."""
import logging
import threading
import time

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core import sizes
from onlinelab.errors import ConfigError, ConfigTypeError, ProtocolError, SimulationError
from onlinelab.experiment import preflight
from onlinelab.feedback.delays import AdaptiveDelay


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


class Flat(ol.Environment):
    """L_t = I/2 every round; ``hang_at`` loops forever in that round, ``scribble`` writes into the history."""

    name = "flat"
    psd = True
    hang_at = None

    def emit(self, t, history):
        while t == self.hang_at:
            pass
        return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / 2, (self.replicates, self.d, self.d)))


class Scribble(Flat):
    name = "scribble"
    adaptive = True

    def emit(self, t, history):
        history.mixed.lam[0, 0] = 1.0
        return super().emit(t, history)


def _meg():
    return [ol.make_learner("meg")]


# (id, call, exception, message regex)
TABLE = [
    ("learners None", lambda: ol.simulate("spiked-covariance", None, T=5), ConfigError,
     r"learners is None; pass a learner"),
    ("no environment", lambda: ol.simulate([], _meg(), T=5), ConfigError,
     r"environment is an empty list; pass an environment, a registered name or a list of them"),
    ("no learner", lambda: ol.simulate("spiked-covariance", [], T=5), ConfigError, r"learners is empty"),
    ("a billion replicates", lambda: ol.simulate("spiked-covariance", _meg(), T=10, replicates=10 ** 9), ConfigError,
     r"^this run needs about 4\.61 TB of memory \(replicates = 1000000000, d = 8, 1 learner\), more than this "
     r"machine's 64 GB; lower replicates or d"),
    ("years of rounds", lambda: ol.simulate("spiked-covariance", _meg(), T=10 ** 13), ConfigError,
     r"^this run would take about .* years \(replicates = 1, d = 8, 1 learner, T = 10000000000000\); lower T, "
     r"replicates or d"),
    ("d = 10⁶", lambda: ol.make_environment("spiked-covariance", d=10 ** 6), ConfigError,
     r"environment 'spiked-covariance': d = 1000000 is too large: .* \(1000000 × 1000000 matrices\), more than this "
     r"machine's 64 GB; lower d"),
    ("10¹⁰ arms", lambda: ol.make_environment("adversarial-arms", d=10 ** 10), ConfigError,
     r"d = 10000000000 is too large: .*vectors of length 10000000000"),
    ("arrival rate × T", lambda: ol.simulate(ol.make_environment("spiked-stream", d=6, k=1), [ol.make_learner("oja")],
                                             T=10 ** 6, arrivals={"rate": 1e9}), ConfigError,
     r"years \(arrivals\.rate × T = 1e\+09 × 1e\+06 = 1e\+15 arrivals, .*\); lower arrivals\.rate or T"),
    ("callback_timeout a string", lambda: ol.simulate("spiked-covariance", _meg(), T=5, callback_timeout="10"),
     ConfigTypeError, r"callback_timeout must be a number, got '10' \(str\)"),
    ("callback_timeout ≤ 0", lambda: ol.simulate("spiked-covariance", _meg(), T=5, callback_timeout=0), ConfigError,
     r"callback_timeout must be a number of seconds > 0, got 0; .* leave it unset for no limit"),
    ("a write into history.mixed", lambda: ol.simulate(Scribble(d=3), _meg(), T=5), ProtocolError,
     r"environment 'scribble\(d=3\)' wrote into its history in round 1 \(assignment destination is read-only\): "
     r"history\.mixed, .* copy before changing, e\.g\. mixed = np\.array\(history\.mixed\)"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_bad_input_to_simulate(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_the_api_refuses_a_billion_replicates_quickly_and_as_the_cli_does():
    ol.simulate("spiked-covariance", _meg(), T=2)    # registry and imports loaded: time only the refusal
    start = time.perf_counter()
    with pytest.raises(ConfigError) as api:
        ol.simulate("spiked-covariance", _meg(), T=10, replicates=10 ** 9)
    assert time.perf_counter() - start < 1.0
    with pytest.raises(ConfigError) as cli:
        preflight.check([("spiked-covariance", {})], n_learners=1, T=10, R=10 ** 9)
    # the same estimate, named as each surface names its fields
    named = str(api.value).replace("replicates =", "run.replicates =").replace("lower replic", "lower run.replic")
    assert named == str(cli.value)


def test_the_api_and_the_config_share_one_estimate():
    env = ol.make_environment("spiked-covariance", d=6)
    api = sizes.check_run([env, ol.make_environment("experts-stochastic", d=40)], n_learners=3, T=500, R=4)
    cli = preflight.estimate([("spiked-covariance", {"d": 6}), ("experts-stochastic", {"d": 40})], n_learners=3,
                             T=500, R=4)
    assert (api.bytes, api.seconds, api.d, api.spectral) == (cli.bytes, cli.seconds, cli.d, cli.spectral)
    # closed form: the largest environment's memory, 8 R size (4 + 5 n); spectral size d², vector size d
    assert api.bytes == max(8 * 4 * 36 * (4 + 5 * 3), 8 * 4 * 40 * (4 + 5 * 3))


def test_an_emit_that_never_returns_stops_at_the_timeout_naming_it_and_the_round():
    env = type("Hanging", (Flat,), {"hang_at": 3, "name": "hanging"})(d=3)
    start = time.perf_counter()
    with pytest.raises(SimulationError, match=r"^the emit of environment 'hanging\(d=3\)' did not return within "
                                              r"callback_timeout = 0\.3 s in round 3; .* raise callback") as err:
        ol.simulate(env, _meg(), T=10, checkpoints=[1, 2, 10], callback_timeout=0.3)
    assert time.perf_counter() - start < 5.0
    assert sorted(err.value.partial.metrics.t.unique()) == [1, 2]     # the checkpoints before round 3 are kept


def test_an_adaptive_delay_rule_that_never_returns_stops_at_the_timeout():
    def stuck(t, view, max_delay):
        while t == 4:
            pass
        return 1

    with pytest.raises(SimulationError, match=r"^the adaptive delay rule 'stuck' did not return within "
                                              r"callback_timeout = 0\.2 s in round 4"):
        ol.simulate("experts-stochastic", [ol.make_learner("omd")], T=10, delay=AdaptiveDelay(rule=stuck),
                    callback_timeout=0.2)


def test_a_long_wait_logs_what_it_waits_on(monkeypatch, caplog):
    from onlinelab.core import watchdog
    monkeypatch.setattr(watchdog, "NOTICE_S", 0.1)

    class Slow(Flat):
        name = "slow"

        def emit(self, t, history):
            if t == 2:
                time.sleep(0.35)
            return super().emit(t, history)

    with caplog.at_level(logging.WARNING, logger="onlinelab.core.watchdog"):
        ol.simulate(Slow(d=3), _meg(), T=3, callback_timeout=5.0)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) >= 2 and all(line.startswith("waiting on the emit of environment 'slow(d=3)' in round 2: ")
                                   and line.endswith("(callback_timeout = 5 s)") for line in lines)


def test_the_limit_is_refused_clearly_outside_the_main_thread():
    caught = []

    def work():
        try:
            ol.simulate("spiked-covariance", _meg(), T=3, callback_timeout=1.0)
        except ConfigError as exc:
            caught.append(str(exc))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert caught == ["callback_timeout = 1 works only in the main thread (a SIGALRM handler); run the simulation "
                      "in the main thread or leave callback_timeout unset"]


def test_a_limit_that_is_not_reached_changes_nothing_and_restores_the_handler():
    import signal
    before = signal.getsignal(signal.SIGALRM)
    plain = ol.simulate("spiked-covariance", _meg(), T=30, replicates=2, seed=4)
    limited = ol.simulate("spiked-covariance", _meg(), T=30, replicates=2, seed=4, callback_timeout=30.0)
    drop = lambda m: m[m.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731  (wall-clock)
    assert drop(plain.metrics).equals(drop(limited.metrics))
    assert signal.getsignal(signal.SIGALRM) == before
