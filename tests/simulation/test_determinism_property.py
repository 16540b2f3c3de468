"""Determinism as the README promises it, for every registered learner, environment and delay kind (issue 20).

"Adding a learner to a run never changes another learner's numbers, and changing the number of replicates
never changes replicate r's numbers", both bit for bit.  Every built-in environment is played by every
registered learner that fits it (`onlinelab.core.compat.mismatch`), under a delay kind, at R ∈ {1, 2, 5}:

* all the learners together at R = 5: the reference;
* for each of the two lowest bits b of a learner's index, the learners whose bit b is 0, and apart those whose
  bit b is 1, at R = 1 or 2 (alternating): each learner's replicates must equal its first replicates in the
  reference.

So each learner runs without three quarters of the others in one run or another, and at R = 1 and at R = 2
(a learner that changed another's numbers — the random-delay fault was such — changes them in these runs),
in four runs instead of one per learner.  An adaptive delay adversary picks one delay per round
from every replicate's play (`onlinelab.feedback.delays.confident_rule`), so under it only adding and
removing learners is checked (every run at R = 5).  Small T and d keep the sweep fast.
"""
import functools
import warnings

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.compat import mismatch
from onlinelab.core.registry import environment_class, learner_class
from onlinelab.errors import OnlinelabError

T = 12
CHECKPOINTS = [4, T]
DELAYS = {
    "none": None,
    "fixed": 2,
    "random": {"kind": "random", "distribution": "geometric", "mean": 2.0},
    "schedule": {"kind": "schedule", "delays": [(3 * t) % 5 for t in range(T)]},
    "adaptive": {"kind": "adaptive", "rule": "confident", "max_delay": 4},
}
SMALL = {  # smaller than the defaults, for speed: the property does not depend on the size
    "digits-stream": {"n_samples": 100, "k": 1, "block": 2},
    "rotating-subspace": {"d": 6, "k": 2},
    "spiked-stream": {"d": 6, "k": 2},
    "spiked-covariance": {"d": 5},
    "top-direction": {"d": 5},
    "switching": {"d": 5},
    "hinge-data": {"lam": 0.5},
    "huber-data": {"lam": 0.5},
    "logistic-data": {"lam": 0.5},
}
# every delay kind is played on these (between them every registered learner faces every delay kind); every other
# environment on one delay kind in turn, so that each environment meets delays and several meet none
EVERY_DELAY = ("experts-stochastic", "spiked-covariance", "pca-compression", "least-squares-stream")


def _builtin(names, cls_of):
    return [n for n in names if cls_of(n).__module__.split(".")[0] == "onlinelab"]


def _env(name):
    return ol.make_environment(name, **SMALL.get(name, {}))


def _runs(name, labels, delay, R):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # bound warnings at T = 12 are not what this test is about
        return ol.simulate(_env(name), {lab: ol.make_learner(lab) for lab in labels}, T=T, replicates=R, seed=7,
                           checkpoints=CHECKPOINTS, delay=DELAYS[delay])


@functools.cache
def _fits(name) -> list[str]:
    """The registered learners that play environment ``name`` (a run of 1 round accepts them; delays refuse none)."""
    env, out = _env(name), []
    for lab in _builtin(ol.learner_names(), learner_class):
        if mismatch(ol.make_learner(lab), env) is not None:
            continue
        try:
            ol.simulate(env, {lab: ol.make_learner(lab)}, T=1, replicates=1, seed=0)
        except OnlinelabError:   # a pairing the run refuses with a clear error (a step tuned from an infinite bound)
            continue
        out.append(lab)
    return out


def _values(res, label, replicates):
    m = res.metrics
    m = m[(m.learner == label) & (m.metric != "runtime_s") & m.replicate.isin(replicates)]
    return m.sort_values(["replicate", "t", "metric"]).reset_index(drop=True)


def _same(a, b) -> list[str]:
    """The metrics whose values differ in any bit (NaN equals NaN)."""
    assert a.shape == b.shape and (a[["replicate", "t", "metric"]] == b[["replicate", "t", "metric"]]).all().all()
    x, y = a.value.to_numpy(), b.value.to_numpy()
    bad = ~((x == y) | (np.isnan(x) & np.isnan(y)))
    return sorted(set(a.metric[bad]))


def _cases():
    turn = 0
    for name in _builtin(ol.environment_names(), environment_class):
        simplex = str(getattr(_env(name), "domain", "")) == "simplex"
        kinds = [k for k in DELAYS if simplex or k != "adaptive"]   # the 'confident' rule reads a mixed strategy
        if name not in EVERY_DELAY:                                 # over arms
            kinds, turn = [kinds[turn % len(kinds)]], turn + 1
        for delay in kinds:
            yield pytest.param(name, delay, id=f"{name}-{delay}")


def _splits(labels, delay):
    """``[(learners, R)]``: for the two lowest bits of the index, the learners with that bit 0 and those with it 1."""
    bits = min(2, max(1, (len(labels) - 1).bit_length()))
    out = []
    for b in range(bits):
        for side in (0, 1):
            group = [lab for i, lab in enumerate(labels) if (i >> b) & 1 == side]
            if group:
                out.append((group, 5 if delay == "adaptive" else 1 + (b + side) % 2))
    return out


@pytest.mark.parametrize(("name", "delay"), list(_cases()))
def test_learners_and_replicates_never_change_each_others_numbers(name, delay):
    labels = _fits(name)
    if not labels:
        pytest.skip(f"no registered learner plays {name}")
    reference = _runs(name, labels, delay, 5)
    for group, R in _splits(labels, delay):
        part = _runs(name, group, delay, R)
        for lab in group:
            assert _same(_values(part, lab, range(R)), _values(reference, lab, range(R))) == [], \
                (lab, f"beside {group} at R = {R} vs beside all {len(labels)} at R = 5")
