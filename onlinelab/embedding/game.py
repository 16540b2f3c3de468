"""Near-isometric embedding as a game on the simulator's round loop (theory §5, docs/theory/05-near-isometric.md).

Φ(λ, P) = 1 − ⟨M(λ), P⟩ is bilinear in λ ∈ Δₙ and P in the Fantope F_k.  The λ-player is the
registered ``omd`` learner (Euclidean, on the simplex, constant step η) charged the linear loss
λ ↦ ⟨c_t, λ⟩ with c_t,i = ‖V_tᵀx_i‖²; the P-player, `TopKResponse`, is BESTRESP+: it sees
λ_t and plays the top-k eigenvectors V_t of M(λ_t).  Together they are exactly the source's
Algorithm 1, λ_{t+1} = Π_Δ(λ_t + η∇g(λ_t)), played by `onlinelab.simulation.players.run_rounds`.

At each checkpoint t the referee logs (one replicate): ``dual`` g(λ̄_t) and ``dual_best`` (the
largest g seen: every g(λ) ≤ p⋆), ``distortion_best`` min_{s≤t} ε(V_s), ``distortion_average``
ε(top-k of M(λ̄_t)), ``distortion_projector`` max_i(1 − x_iᵀP̄_t x_i) with P̄_t = (1/t)Σ V_sV_sᵀ,
``distortion`` = the better of best and average (the output), ``gap`` ε(P̄_t) − g(λ̄_t),
``regret`` (the λ-player's average regret, ε(P̄_t) − (1/t)Σ(1 − ⟨c_s, λ_s⟩)) and the rate curves of
`onlinelab.embedding.bounds` as ``bound:*`` rows (they bound ``regret``).  Checked every
checkpoint (a breach is listed in ``meta["game"]["breaches"]`` and warned as a
`onlinelab.errors.BoundViolationWarning`): the bracket dual_best ≤ p⋆ ≤ distortion, the
Fantope bracket g(λ̄) ≤ ε(P̄), and gap ≤ regret.

>>> import numpy as np
>>> from onlinelab.embedding.pairs import unit_differences
>>> X = unit_differences(np.random.default_rng(0).standard_normal((12, 5)))
>>> res = play_embedding_game(X, 2, T=50, eta=0.05)
>>> int(res.summary().breaches.iloc[0]), bool(res.final("dual").iloc[0] <= res.final("distortion").iloc[0])
(0, True)
"""
from __future__ import annotations

import time
import warnings
from typing import NamedTuple

import numpy as np

from onlinelab.core.base import Learner
from onlinelab.core.protocol import Context, Play
from onlinelab.core.schedule import _checkpoints
from onlinelab.embedding.bounds import centred_bound, ld_bound
from onlinelab.embedding.dual import check_k, gram_top_k, pick_solver, top_k, weighted_gram
from onlinelab.embedding.pairs import UnitPairs
from onlinelab.embedding.result import EmbeddingResult
from onlinelab.errors import BoundViolationWarning
from onlinelab.geometry.domains import Simplex
from onlinelab.learners.mirror_descent import OMD
from onlinelab.losses.vector import LinearLoss
from onlinelab.runs.game_result import game_arrays
from onlinelab.simulation.players import Player, run_rounds

BRACKET_TOL = 1e-9


class PairWeights:
    """The P-player's loss at λ: P ↦ 1 − ⟨M(λ), P⟩ on the Fantope, given by the pairs and λ (never forming M).

    Parameters
    ----------
    pairs : onlinelab.embedding.pairs.UnitPairs
        The unit rows x_i (``pairs.X``) and their ‖Vᵀx_i‖² (``pairs.captured``).
    lam : numpy.ndarray, shape (n,)
        The λ-player's weights this round.
    """

    kind = "embedding-dual"
    is_linear = True

    def __init__(self, pairs, lam):
        self.pairs, self.X, self.lam = pairs, pairs.X, lam


class TopKState(NamedTuple):
    warm: object      # the solver's last block (LOBPCG warm start); None for the dense solver
    t: int            # rounds completed


class TopKResponse(Learner):
    """BESTRESP+ on the Fantope F_k: play the top-k eigenvectors of M(λ_t) (theory §5).

    Prescient: it sees the λ-player's weights before playing, so its regret is ≤ 0.  The play's
    ``mixed`` is V (d × k); ``info`` carries the eigenvalues ``mu``, ``captured`` = ‖Vᵀx_i‖² and, on the
    dense path, the matrix ``gram`` = M(λ_t).

    Parameters
    ----------
    n_components : int
        k, the number of eigenvectors (the embedding's dimension).
    solver : {"dense", "lobpcg"}, default "dense"
        How the top-k is computed (`onlinelab.embedding.dual.top_k`); ``lobpcg`` is matrix-free
        and warm-started from the previous round's block.
    tol : float, default 1e-9
        LOBPCG residual tolerance.
    """

    prescient = True
    plays = "fantope"
    loss_needs = frozenset({"linear"})

    def __init__(self, n_components, solver="dense", tol=1e-9):
        self.n_components, self.solver, self.tol = n_components, solver, tol

    def init(self, ctx, rng) -> TopKState:
        return TopKState(None, 0)

    def act(self, state, rng, loss=None) -> Play:
        if self.solver == "dense":       # M(λ_t) is formed anyway: hand it on (the game averages it for M(λ̄_t))
            M = weighted_gram(loss.X, loss.lam)
            mu, V = gram_top_k(M, self.n_components)
            return Play(V, info={"mu": mu, "captured": loss.pairs.captured(V), "warm": None, "gram": M})
        mu, V, warm = top_k(loss.X, loss.lam, self.n_components, solver=self.solver, warm=state.warm, tol=self.tol)
        return Play(V, info={"mu": mu, "captured": loss.pairs.captured(V), "warm": warm, "gram": None})

    def update(self, state, play, feedback, rng) -> TopKState:
        return TopKState(play.info["warm"], state.t + 1)


class ProjectorSum:
    """Σ_s V_s V_sᵀ for P̄ = (1/T) Σ V_s V_sᵀ: the plays are copied side by side into a d × (m·k) buffer,
    m = max(1, d // k) rounds (about d × d, whatever T), and folded in with one product W Wᵀ when it fills.

    Parameters
    ----------
    d, k : int
        Dimension and target dimension of the plays V_s (d × k).
    """

    def __init__(self, d: int, k: int):
        self.k, self.rounds = k, max(1, d // k)
        self.W, self.filled, self.total = np.empty((d, self.rounds * k)), 0, np.zeros((d, d))

    def add(self, V: np.ndarray) -> None:
        self.W[:, self.filled * self.k:(self.filled + 1) * self.k] = V
        self.filled += 1
        if self.filled == self.rounds:
            self._fold()

    def _fold(self) -> None:
        W = self.W[:, :self.filled * self.k]
        self.total += W @ W.T
        self.filled = 0

    def value(self) -> np.ndarray:
        """Σ V_s V_sᵀ of every play added so far."""
        if self.filled:
            self._fold()
        return self.total


def play_embedding_game(X: np.ndarray, k: int, *, T: int = 120, eta: float, solver: str = "auto",
                        checkpoints=None, tol: float = 1e-9, label: str | None = None) -> EmbeddingResult:
    """Play the dual embedding game on unit rows ``X`` for ``T`` rounds; see the module docstring.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d), or onlinelab.embedding.pairs.UnitPairs
        Unit rows x_i (see `onlinelab.embedding.pairs.unit_differences`), or the pairs of points
        (`onlinelab.embedding.pairs.UnitPairs.from_points`), whose supergradient costs O(r²k).
    k : int
        Target dimension, 1 ≤ k < d.
    T : int, default 120
        Rounds (iterations of Algorithm 1).
    eta : float
        The λ-player's constant step η > 0.
    solver : {"auto", "dense", "lobpcg"}, default "auto"
        The top-k solver (`onlinelab.embedding.dual.pick_solver`).
    checkpoints : int, list of int or None, default None
        Rounds at which the history is logged: a list, or a count of log-spaced rounds (None: 16); T is
        always one.  Each costs one extra top-k solve (for the average λ̄_t).
    tol : float, default 1e-9
        LOBPCG residual tolerance.
    label : str or None, default None
        Name of the run in the result.
    """
    pairs = UnitPairs.from_rows(X)
    X = pairs.X
    n, d = X.shape
    k = check_k(k, d)
    solver = pick_solver(solver, n, d, k)
    ckpts = [int(c) for c in _checkpoints(T, 16 if checkpoints is None else checkpoints)]
    lam_player = OMD(regularizer="euclidean", gamma=eta, domain="simplex")
    p_player = TopKResponse(k, solver=solver, tol=tol)
    players = {"lambda": Player("lambda", lam_player, Context(d=n, T=T, replicates=1, domain="simplex"), 0),
               "P": Player("P", p_player, Context(d=d, T=T, replicates=1, domain=f"fantope:{k}"), 0)}
    simplex = Simplex(n)
    s = {"lam": np.zeros(n), "c": np.zeros(n), "P": ProjectorSum(d, k), "M": np.zeros((d, d)), "payoff": 0.0,
         "g_best": -np.inf, "eps_best": np.inf, "V_best": None, "lam_best": None, "warm_avg": None, "V_avg": None,
         "first": None}
    rows: dict[str, list] = {}
    breaches: list[dict] = []
    rounding = pairs.rounding(k)      # each distortion is exact to ± this (scaled to the data, `UnitPairs.rounding`)
    closest = {"excess": -np.inf, "tol": 0.0}   # the largest lhs − rhs of any check, breached or not

    def loss_for(role, other_play):
        if role == "P":
            return PairWeights(pairs, other_play.mixed[0])
        return LinearLoss.trusted(other_play.info["captured"][None, :], simplex)   # our own float array

    def on_plays(t, plays):
        lam, V, info = plays["lambda"].mixed[0], plays["P"].mixed, plays["P"].info
        c, mu = info["captured"], info["mu"]
        s["lam"] += lam
        s["c"] += c
        s["P"].add(V)                                       # P̄ = (1/T) Σ V_s V_sᵀ, one product per ~d/k rounds
        if info["gram"] is not None:
            s["M"] += info["gram"]                          # Σ M(λ_s): M is linear in λ, so M(λ̄_t) = this / t
        s["payoff"] += 1.0 - float(c @ lam)                 # Φ(λ_t, P_t) = g(λ_t) for an exact best response
        s["g_best"] = max(s["g_best"], 1.0 - float(mu.sum()))
        eps = 1.0 - float(c.min())
        if eps < s["eps_best"]:
            s["eps_best"], s["V_best"], s["lam_best"] = eps, V, lam
        if t == 1:                                          # λ̄_1 = λ_1: this solve is the first average's too
            s["first"] = (mu, V, info["warm"], eps)

    def after_updates(t):
        if t in ckpts:
            _checkpoint(t)

    def _checkpoint(t):
        if t == 1:                  # M(λ̄_1) = M(λ_1): the round's top-k and distortion, not solved again
            mu, s["V_avg"], s["warm_avg"], eps_avg = s["first"]
        else:
            if solver == "dense":
                mu, s["V_avg"] = gram_top_k(s["M"] / t, k)
            else:
                mu, s["V_avg"], s["warm_avg"] = top_k(X, s["lam"] / t, k, solver=solver, warm=s["warm_avg"], tol=tol)
            eps_avg = 1.0 - float(pairs.captured(s["V_avg"]).min())
        g_avg = 1.0 - float(mu.sum())
        s["g_best"] = max(s["g_best"], g_avg)
        eps_P = 1.0 - float(s["c"].min()) / t      # = min of Σc/t bit for bit (x ↦ x/t is monotone), no n-vector
        regret = eps_P - s["payoff"] / t
        values = {"dual": g_avg, "dual_best": s["g_best"], "distortion_best": s["eps_best"],
                  "distortion_average": eps_avg, "distortion_projector": eps_P,
                  "distortion": min(s["eps_best"], eps_avg), "gap": eps_P - g_avg, "regret": regret}
        for key, val in values.items():
            rows.setdefault(key, []).append(np.array([val]))
        checks = (("dual_best ≤ p⋆ ≤ distortion", s["g_best"], values["distortion"]),
                  ("g(λ̄) ≤ ε(P̄) (Fantope bracket)", g_avg, eps_P),
                  ("gap ≤ regret", values["gap"], regret))
        for which, lhs, rhs in checks:
            allowed = BRACKET_TOL * (1 + abs(lhs) + abs(rhs)) + 2 * rounding
            if lhs - rhs > closest["excess"]:
                closest.update(excess=float(lhs - rhs), tol=float(allowed))
            if lhs > rhs + allowed:
                breaches.append({"t": t, "which": which, "replicate": 0, "lhs": float(lhs), "rhs": float(rhs),
                                 "tol": float(allowed)})

    start = time.perf_counter()
    runtime = run_rounds(players, ("lambda", "P"), T, loss_for, on_plays, after_updates)
    wall = time.perf_counter() - start
    bounds = [ld_bound(n, eta), centred_bound(n, eta, T)]
    label = label or f"omd vs top-k (k = {k})"
    env = f"{n} pairs in dimension {d}"
    use_best = s["eps_best"] < rows["distortion_average"][-1][0]
    meta = {"kind": "embedding", "T": T, "replicates": 1, "seed": 0, "status": "complete",
            "game": {"kind": "near-isometric embedding", "n_pairs": n, "d": d, "k": k, "eta": eta, "solver": solver,
                     "order": "lambda-first", "breaches": breaches,
                     "certificate": {"relative_tol": BRACKET_TOL, "rounding": rounding,
                                     "closest_excess": closest["excess"], "tol_there": closest["tol"]},
                     "output": "best" if use_best else "average",
                     "x_player": {"name": "omd", "params": lam_player.get_params()},
                     "y_player": {"name": "top-k", "params": p_player.get_params()}},
            "timings": {env: {"wall_s": wall, "learner_s": {label: runtime["lambda"] + runtime["P"]}}},
            "environments": {env: {"name": "embedding-dual", "d": d, "adaptive": False}},
            "learners": {label: {"name": label, "params": {}}}}
    arrays = game_arrays(ckpts, rows, bounds)
    result = EmbeddingResult(None, meta, bounds, arrays=arrays, labels=(label, env))
    T_bar = s["lam"] / T
    result.solution = {"V_best": s["V_best"], "lambda_best": s["lam_best"], "V_average": s["V_avg"],
                       "lambda_average": T_bar, "projector": s["P"].value() / T,
                       "V": s["V_best"] if use_best else s["V_avg"],
                       "lambda": s["lam_best"] if use_best else T_bar}
    for b in breaches:
        warnings.warn(f"EMBEDDING BRACKET BREACHED at t = {b['t']}: {b['which']} ({b['lhs']:.6g} > {b['rhs']:.6g} "
                      f"by more than the tolerance {b['tol']:.3g}, rounding {rounding:.3g} of this data included); "
                      "theory §5 says this cannot happen — a bug", BoundViolationWarning, stacklevel=2)
    return result
