"""exp3-auer samples from round 1; SMPyBandits' ``Exp3`` does not (theory §8, checked before it was written).

SMPyBandits' ``Exp3.choice`` plays each of the K arms once, in a random order, before it samples from its
trusts (``if self.t < self.nbArms: return self._initial_exploration[self.t]``); its weight update is the one
exp3-auer implements.  So the two agree from round K + 1 on in their update rule, but not in their first K plays:
after K rounds SMPyBandits has pulled every arm exactly once, while exp3-auer draws I_t ~ p_t from the start.
"""
import numpy as np

import onlinelab as ol


def test_exp3_auer_does_not_pull_every_arm_once_first():
    # arm 0 always pays reward 1 (loss 0), the others reward 0 (loss 1): the realised regret after K rounds is the
    # number of rounds that did not pull arm 0, which is K − 1 in every replicate under SMPyBandits' schedule
    K, R = 10, 400
    env = ol.make_environment("bernoulli-arms", means=[1.0] + [0.0] * (K - 1))
    res = ol.simulate(env, [ol.make_learner("exp3-auer", gamma=0.5)], T=K, replicates=R, seed=0, checkpoints=[K])
    tidy = res.tidy()
    missed = tidy[tidy.metric == "realized_regret"].value.to_numpy()
    assert len(missed) == R and np.all(missed == np.round(missed))
    share = float(np.mean(missed == K - 1))
    # measured 0.37 (147 of 400; arm 0 exactly once in K draws near p = 1/K: about 0.39); binomial standard error
    # √(0.37·0.63/400) = 0.024, so 0.6 is more than nine standard errors above it, and far below SMPyBandits' 1
    assert share < 0.6, share
    assert missed.min() < K - 2          # some replicates pulled arm 0 three times or more
