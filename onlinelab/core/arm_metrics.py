"""Per-arm metrics against an environment's expected losses: pseudo-regret, pulls per arm, optimal pulls (theory §10).

An environment that knows the means its losses are drawn around (stochastic arms) says so through
``Environment.expected_losses(t, n)``: the expected loss vectors m_t of rounds t … t + n − 1.  For
every learner facing it, `ArmMetrics` then adds up, per replicate, with p_t the learner's play
(its ``mixed``: the one-hot vector of the pulled arm for an index policy, the sampling distribution
for Exp3 or ε-greedy):

* ``pseudo_regret``    — Σ_t (⟨p_t, m_t⟩ − min_i m_t(i)): the regret against the best mean of each round.
  On stationary arms it is the pseudo-regret Σ_i Δ_i N_i(t) (its conditional expectation given the
  past, for a randomised play); on piecewise-stationary arms it is the dynamic regret against the best
  arm of each phase;
* ``pulls_<i>``        — Σ_t p_t(i): the pulls of arm i (expected pulls for a randomised play), for
  the first ``MAX_ARMS`` arms;
* ``optimal_fraction`` — Σ_t p_t(best arms of round t)/t: the fraction of optimal pulls.

Block and round-by-round play add the same per-round terms in the same order, so the metrics are
equal bit for bit either way.

>>> import numpy as np
>>> class Two:
...     def expected_losses(self, t, n):
...         return np.tile([0.2, 0.5], (n, 1))
>>> am = ArmMetrics.of(Two(), replicates=1)
>>> am.add(1, np.array([[0.0, 1.0]])); am.add(2, np.array([[1.0, 0.0]]))
>>> {k: float(v[0]) for k, v in am.metrics().items()}
{'pseudo_regret': 0.3, 'optimal_fraction': 0.5, 'pulls_0': 1.0, 'pulls_1': 1.0}
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import compiled_active
from onlinelab.kernels import recorder as recorder_kernels

MAX_ARMS = 100   # pulls_<i> are recorded for arms 0 … MAX_ARMS − 1 (one metric row per arm and checkpoint)


def _running(total: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """total + rows[0] + rows[1] + … in this order (as round by round)."""
    return np.add.accumulate(np.concatenate([total[None], rows]), axis=0)[-1].copy()


class ArmMetrics:
    """Running per-arm sums of one learner (see the module docstring).

    Parameters
    ----------
    env : Environment
        The environment whose ``expected_losses`` give the means.
    replicates : int
        Number of replicates R.
    d : int
        Number of arms K.
    """

    def __init__(self, env, replicates: int, d: int):
        self.env = env
        self.regret, self.optimal = np.zeros(replicates), np.zeros(replicates)
        self.pulls = np.zeros((replicates, d))
        self.rounds = 0

    @classmethod
    def of(cls, env, replicates: int) -> ArmMetrics | None:
        """An `ArmMetrics` when ``env`` knows its expected losses (after its reset), else None.

        Parameters
        ----------
        env : Environment
            The environment (already reset).
        replicates : int
            Number of replicates R.
        """
        probe = getattr(env, "expected_losses", None)
        first = None if probe is None else probe(1, 1)
        return None if first is None else cls(env, replicates, np.shape(first)[-1])

    def _terms(self, m: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-round pseudo-regret and optimal mass, (n, R) each, for means m (n, K) or (n, R, K), plays p (n, R, K)."""
        m = m[:, None, :] if m.ndim == 2 else m
        best = m.min(axis=-1, keepdims=True)
        return (p * m).sum(axis=-1) - best[..., 0], (p * (m == best)).sum(axis=-1)

    def add(self, t: int, mixed) -> None:
        """Round t's play p_t, (R, K).

        Parameters
        ----------
        t : int
            The round.
        mixed : numpy.ndarray
            The learner's play, (R, K).
        """
        p = np.asarray(mixed, dtype=float)[None]
        regret, optimal = self._terms(np.asarray(self.env.expected_losses(t, 1), dtype=float), p)
        self.regret += regret[0]
        self.optimal += optimal[0]
        self.pulls += p[0]
        self.rounds += 1

    def add_block(self, t: int, mixed) -> None:
        """Rounds t … t + n − 1 at once: plays stacked like a block's losses, (n·R, K).

        Parameters
        ----------
        t : int
            The first round.
        mixed : numpy.ndarray
            The plays, (n·R, K), round-major.
        """
        R, K = self.pulls.shape
        p = np.asarray(mixed, dtype=float).reshape(-1, R, K)
        m = np.asarray(self.env.expected_losses(t, p.shape[0]), dtype=float)
        if compiled_active():   # one pass, the same sums in the same order (onlinelab.kernels.recorder)
            m3 = m[:, None, :] if m.ndim == 2 else m
            m3 = np.ascontiguousarray(m3[:1] if m3.strides[0] == 0 else m3)   # the same means every round: one row
            if recorder_kernels.run(recorder_kernels.arm_terms_into, m3, np.ascontiguousarray(p), self.regret,
                                    self.optimal, self.pulls) is not None:
                self.rounds += p.shape[0]
                return
        regret, optimal = self._terms(m, p)
        self.regret = _running(self.regret, regret)
        self.optimal = _running(self.optimal, optimal)
        self.pulls = _running(self.pulls, p)
        self.rounds += p.shape[0]

    def metrics(self) -> dict[str, np.ndarray]:
        """The checkpoint's metrics, name → (R,)."""
        out = {"pseudo_regret": self.regret.copy(), "optimal_fraction": self.optimal / max(self.rounds, 1)}
        out.update({f"pulls_{i}": self.pulls[:, i].copy() for i in range(min(self.pulls.shape[1], MAX_ARMS))})
        return out
