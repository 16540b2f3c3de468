"""Stochastic online convex losses on a real data set: each round a random mini-batch's regularised risk.

* ``logistic-data`` — ℓ_t(x) = (1/b)Σ_{i∈B_t} log(1 + e^{−y_i a_i·x}) + (λ/2)‖x‖²;
* ``huber-data``    — ℓ_t(x) = (1/b)Σ_{i∈B_t} huber_δ(a_i·x − y_i) + (λ/2)‖x‖²;
* ``hinge-data``    — ℓ_t(x) = (1/b)Σ_{i∈B_t} max(0, 1 − y_i a_i·x) + (λ/2)‖x‖² (the soft-margin SVM online,
  theory §9; subgradients, comparator through the SVM dual).

The samples are scikit-learn's bundled breast-cancer data (`onlinelab.losses.datasets.load_data`);
B_t is b indices drawn uniformly with replacement, independently per replicate (oblivious, i.i.d.).
Domain ``box:-r:r``; ``loss_bound`` = |φ'|max + λ r√n bounds every gradient over the box (checked each
round); ℓ_t is λ-strongly convex, which the losses report (FTL's bound, theory §3.2, docs/theory/03-oco-fenchel.md).
The comparator is the exact minimiser of the summed losses over the box (L-BFGS-B).

>>> LogisticData(batch=4).domain
'box:-2:2'
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.docs import Param, shared_params
from onlinelab.core.registry import register_environment
from onlinelab.geometry.domains import Box
from onlinelab.losses.data import DataLoss
from onlinelab.losses.datasets import Margin, Risk, load_data

# The three data streams' shared parameters (onlinelab.core.docs).
_DATA_PARAMS = {
    "dataset": Param("str", "Bundled scikit-learn data set to stream."),
    "batch": Param("int", "Mini-batch size b of each round's risk."),
    "lam": Param("float", "Ridge weight λ (the losses are λ-strongly convex)."),
    "radius": Param("float", "Half-width r of the box domain [−r, r]ⁿ."),
}


class _DataStream(Environment):
    loss_name = ""
    domain = "box:-2:2"
    loss_offers = frozenset({"leader"})  # smooth empirical risks: not linear
    reference_learner = "omd"          # projected gradient descent, for check_environment

    def _setup(self, dataset, batch, lam, radius, delta=1.0):
        self.dataset = v.choice("dataset", dataset, ("breast-cancer",))
        A, y = load_data(self.dataset)
        Environment.__init__(self, d=A.shape[1])
        self.batch = v.integer("batch", batch, minimum=1)
        self.lam = v.real("lam", lam)
        if self.lam < 0:
            raise errors.ConfigError(f"lam must be ≥ 0 (ridge weight), got {lam!r}")
        self.radius = v.positive_float("radius", radius)
        self.domain = f"box:{-self.radius:g}:{self.radius:g}"
        self._risk = Risk(Margin(self.loss_name, delta), A, y)
        self.loss_bound = float(self._risk.margin.lip + self.lam * self.radius * np.sqrt(self.d))

    def reset(self, rng, T):
        super().reset(rng, T)
        self._box = Box(self.d, -self.radius, self.radius)

    def emit(self, t, history):
        idx = np.floor(self.rng.random(self.batch) * self._risk.N).astype(int)
        return DataLoss(self._risk, np.minimum(idx, self._risk.N - 1), self.lam, self._box)


@register_environment("logistic-data")
@shared_params(_DATA_PARAMS)
class LogisticData(_DataStream):
    """Logistic regression on mini-batches of the breast-cancer data, ridge λ, box of half-width ``radius``.

    Parameters
    ----------
    {params: dataset, batch, lam, radius}
    """

    loss_name = "logistic"

    def __init__(self, dataset: str = "breast-cancer", batch: int = 1, lam: float = 0.01, radius: float = 2.0):
        self._setup(dataset, batch, lam, radius)


@register_environment("huber-data")
@shared_params(_DATA_PARAMS)
class HuberData(_DataStream):
    """Huber regression of the ±1 labels on mini-batches of the breast-cancer data, ridge λ, threshold δ.

    Parameters
    ----------
    {params: dataset, batch, lam, radius}

    delta : float, default 1.0
        Threshold δ of the Huber loss.
    """

    loss_name = "huber"

    def __init__(self, dataset: str = "breast-cancer", batch: int = 1, lam: float = 0.01, radius: float = 2.0,
                 delta: float = 1.0):
        self.delta = v.positive_float("delta", delta)
        self._setup(dataset, batch, lam, radius, self.delta)


@register_environment("hinge-data")
@shared_params(_DATA_PARAMS)
class HingeData(_DataStream):
    """The soft-margin SVM's hinge loss on mini-batches of the breast-cancer data, ridge λ (theory §9).

    Parameters
    ----------
    {params: dataset, batch, lam, radius}
    """

    loss_name = "hinge"

    def __init__(self, dataset: str = "breast-cancer", batch: int = 1, lam: float = 0.01, radius: float = 2.0):
        self._setup(dataset, batch, lam, radius)
