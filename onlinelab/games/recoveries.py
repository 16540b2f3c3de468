"""Classical methods recovered as Fenchel games, with their rates as bound curves
(theory §3.4–3.5, docs/theory/03-oco-fenchel.md).

Each factory returns a `Recovery` — the function, both players, weights, move order and
rate curves — to pass to `play_recovery` (or field by field to ``play_game``):

* ``gd``      OMD-Euclidean (first) vs BESTRESP+, α_t = 1, γ = R/(G√T): averaged projected
  gradient descent on the non-smooth f = G‖x − c‖ over a ball.  Curves: R²/(2γt) + γG²/2
  (= RG/√T at t = T) [derived] and the source's R²/(2γt) + γG² (= 3RG/(2√T) at T).
* ``smooth``  the same pairing with γ = 1/L on a smooth quadratic over ℝⁿ; curve LR²/(2t) on the
  shifted average (1/t)Σ_{s=2}^{t+1} x_s [derived] (metric ``suboptimality_shifted``).
* ``frank-wolfe`` FTL (first) vs BESTRESP+ (the LMO), α_t = t, on a quadratic over the simplex;
  curve 2LD²/(t+1), D = diam K [derived].
* ``data-gd`` the ``gd`` pairing on regularised logistic / Huber regression over the breast-cancer data
  (`onlinelab.losses.datasets.DataObjective`, box K), R = ‖x₁ − x⋆‖, G a gradient bound; curve RG/√T.
* ``nesterov`` optimistic FTL (first) vs OMD+ with γα_t = t/(4L), α_t = t, on a quadratic over a
  ball; rate O(L‖x₀ − x⋆‖²/T²) (theory §3.5) whose constant is not confirmed: the curve
  L‖x₀ − x⋆‖²/t² (x₀ = 0, OMD+'s start) is a *reference* (drawn and tabulated, never checked;
  the tests check the slope).

>>> res = play_recovery(gd_averaging(n=3, T=420), T=420)    # R = G = 1: f(x̄_T) − f⋆ ≤ RG/√T (theory §3.4)
>>> bool(0.0 <= res.final("suboptimality").iloc[0] * 420 ** 0.5 <= 1.0)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.bounds.base import Bound
from onlinelab.core import validation as v
from onlinelab.errors import UnknownNameError, did_you_mean
from onlinelab.geometry.domains import Ball, Euclidean, Simplex
from onlinelab.learners.leader import FTL, BestResponsePlus, OptimisticFTL
from onlinelab.learners.mirror_descent import OMD, OMDPlus
from onlinelab.losses.fenchel import NormDistance, Quadratic, SquaredDistance


class Recovery(NamedTuple):
    f: object
    x_player: object
    y_player: object
    weights: str
    order: str
    bounds: list


def _curve(name, ref, formula, fn, metric="suboptimality", assumptions=None, reference=False):
    prefix = "" if metric == "suboptimality" else "shifted-"
    return Bound(prefix + name, ref, formula, {"f convex, K convex": True, **(assumptions or {})},
                 lambda s: fn(np.asarray(s.t, float)), pointwise=True, reference=reference)


def _gd_bounds(R: float, G: float, gamma: float, assumptions=None) -> list:
    """theory §3.4 curves for averaged projected GD with step γ: R²/(2γt) + γG²/2 [derived] and the source's."""
    ref = "theory §3.4 Theorem 6.20 / Lemma 6.22"
    return [_curve("gd-RG/sqrt(T)", ref + " [derived]", f"R²/(2γt) + γG²/2, R = {R:.4g}, G = {G:.4g}, γ = {gamma:.4g}",
                   lambda t: R * R / (2 * gamma * t) + gamma * G * G / 2, assumptions=assumptions),
            _curve("gd-source-3RG/(2sqrt(T))", ref + " [src]", "R²/(2γt) + γG²",
                   lambda t: R * R / (2 * gamma * t) + gamma * G * G, assumptions=assumptions)]


def gd_averaging(n: int = 3, T: int = 1000, radius: float = 1.0, scale: float = 1.0, distance: float = 1.0,
                 seed: int = 0) -> Recovery:
    """Averaged GD on f = G‖x − c‖ over the ball of ``radius``; x₁ at ``distance`` R from c (theory §3.4).

    Parameters
    ----------
    n : int, default 3
        Dimension.
    T : int, default 1000
        Horizon the step γ = R/(G√T) is tuned for.
    radius : float, default 1.0
        Radius of the ball K.
    scale : float, default 1.0
        G, the slope of f = G‖x − c‖ (so sup ‖y‖ = G).
    distance : float, default 1.0
        R, the distance from x₁ to the minimiser c.
    seed : int, default 0
        Seed of the random direction of c.
    """
    n, T = v.integer("n", n, minimum=1), v.integer("T", T, minimum=1)
    G, R = v.positive_float("scale", scale), v.positive_float("distance", distance)
    u = np.random.default_rng(seed).standard_normal(n)
    u /= np.linalg.norm(u)
    radius = v.positive_float("radius", radius)
    if R > 2 * radius:
        raise v.ConfigError(f"distance must be ≤ the ball's diameter 2·radius = {2 * radius}, got {distance}")
    c, x1 = 0.5 * R * u, -0.5 * R * u
    f = NormDistance(Ball(n, radius), c, G)
    gamma = R / (G * np.sqrt(T))
    x = OMD(regularizer="euclidean", gamma=gamma, z0=[float(a) for a in x1], domain=f.domain.spec)
    return Recovery(f, x, BestResponsePlus(), "constant", "x-first", _gd_bounds(R, G, gamma))


def data_gd(loss: str = "logistic", T: int = 1000, lam: float = 0.01, radius: float = 2.0, delta: float = 1.0,
            seed: int = 0) -> Recovery:
    """Averaged projected GD on a regularised risk over the breast-cancer data (`onlinelab.losses.datasets`).

    K = [−radius, radius]ⁿ, x₁ = 0, R = ‖x⋆‖₂ (x⋆ from L-BFGS-B), G = |φ'|max·max‖ã_i‖ + λ sup_K‖x‖ ≥ ‖∇f‖ on K,
    γ = R/(G√T); curve RG/√T at t = T (theory §3.4).  ``seed`` is unused (the data are fixed).

    Parameters
    ----------
    loss : {"logistic", "huber"}, default "logistic"
        The regularised risk to minimise.
    T : int, default 1000
        Horizon the step is tuned for.
    lam : float, default 0.01
        Ridge weight λ.
    radius : float, default 2.0
        Half-width of the box K.
    delta : float, default 1.0
        Huber threshold (``loss="huber"`` only).
    seed : int, default 0
        Unused: the data are fixed.
    """
    from onlinelab.losses.datasets import DataObjective
    T = v.integer("T", T, minimum=1)
    radius = v.positive_float("radius", radius)
    f = DataObjective(loss, lam=lam, domain=f"box:{-radius:g}:{radius:g}", delta=delta)
    _, xstar = f.minimum()
    R, G = float(np.linalg.norm(xstar)), f.G
    gamma = R / (G * np.sqrt(T))
    x = OMD(regularizer="euclidean", gamma=gamma, domain=f.domain.spec)
    held = {f"‖x₁ − x⋆‖ = R = {R:.4g} (x₁ = 0, x⋆ by L-BFGS-B)": True,
            f"‖∇f‖₂ ≤ G = {G:.4g} on K (|φ'| ≤ {f.risk.margin.lip:g}, unit rows)": True}
    return Recovery(f, x, BestResponsePlus(), "constant", "x-first", _gd_bounds(R, G, gamma, held))


def _random_psd(n, seed, lo, hi):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.geomspace(lo, hi, n)) @ Q.T, rng


def smooth_gd(n: int = 5, T: int = 1000, seed: int = 0) -> Recovery:
    """GD with γ = 1/L on a smooth strongly convex quadratic over ℝⁿ (theory §3.4, smooth case).

    Parameters
    ----------
    n : int, default 5
        Dimension.
    T : int, default 1000
        Horizon.
    seed : int, default 0
        Seed of the random quadratic.
    """
    A, rng = _random_psd(v.integer("n", n, minimum=1), seed, 0.05, 1.0)
    b = rng.standard_normal(n)
    f = Quadratic(Euclidean(n), A, b)
    fstar, xstar = f.minimum()
    R, L = float(np.linalg.norm(xstar)), f.L
    x = OMD(regularizer="euclidean", gamma=1.0 / L, domain="euclidean")
    bound = _curve("smooth-gd-LR²/(2t)", "theory §3.4 smooth case [derived]", f"LR²/(2t), L = {L:.4g}, R = {R:.4g}",
                   lambda t: L * R * R / (2 * t), metric="shifted")
    return Recovery(f, x, BestResponsePlus(), "constant", "x-first", [bound])


def frank_wolfe(n: int | None = None, T: int = 1000, seed: int = 0) -> Recovery:
    """Frank–Wolfe: FTL y-player (first) vs BESTRESP+ x-player (LMO), α_t = t, on ½‖x‖² over Δₙ.

    ``n`` defaults to 2T: then FW's support grows by one vertex per round and f(x̄_t) − f⋆ ≥ ½(1/t − 1/n),
    so the 1/t rate is attained (Jaggi's lower-bound instance).

    Parameters
    ----------
    n : int or None, default None
        Dimension of the simplex; ``None`` takes 2T (Jaggi's lower-bound instance).
    T : int, default 1000
        Horizon.
    seed : int, default 0
        Unused by the instance (kept for a uniform signature).
    """
    T = v.integer("T", T, minimum=1)
    n = 2 * T if n is None else v.integer("n", n, minimum=2)
    f = SquaredDistance(Simplex(n))
    D, L = np.sqrt(2.0), f.L
    bound = _curve("fw-2LD²/(t+1)", "theory §3.5 Frank–Wolfe [derived]", f"2LD²/(t+1), L = {L:.4g}, D = √2",
                   lambda t: 2 * L * D * D / (t + 1))
    return Recovery(f, BestResponsePlus(), FTL(), "linear", "y-first", [bound])


def nesterov(n: int = 60, T: int = 1000, seed: int = 0, radius: float = 100.0) -> Recovery:
    """Nesterov: optimistic FTL (first) vs OMD+ with γ = 1/(4L), α_t = t, on a badly conditioned quadratic.

    Eigenvalues log-spaced in [1e-9, 1] with x⋆ equally spread over the eigenbasis, so that at every t ≤ 10⁴
    some directions are still unresolved and the error follows the worst-case 1/t² envelope.

    Parameters
    ----------
    n : int, default 60
        Dimension.
    T : int, default 1000
        Horizon.
    seed : int, default 0
        Seed of the eigenbasis.
    radius : float, default 100.0
        Radius of the ball K (large enough not to bind).
    """
    n = v.integer("n", n, minimum=2)
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (Q * np.geomspace(1e-9, 1.0, n)) @ Q.T
    b = -A @ (Q @ np.ones(n))
    f = Quadratic(Ball(n, radius), A, b)
    x = OMDPlus(regularizer="euclidean", gamma=1.0 / (4 * f.L), domain=f.domain.spec)   # z₀ = 0, the ball's centre
    _, xstar = f.minimum()
    L, R2 = f.L, float(xstar @ xstar)
    held = {f"f L-smooth, L = λ_max(A) = {L:.4g}": True, "x₀ = z₀ = 0 (OMD+ starts at the ball's centre)": True}
    rate = _curve("nesterov-L‖x₀−x⋆‖²/t²", "theory §3.5 Nesterov [rate; constant unconfirmed]",
                  f"L‖x₀ − x⋆‖²/t², L = {L:.4g}, ‖x₀ − x⋆‖² = {R2:.4g}", lambda t: L * R2 / t ** 2,
                  assumptions=held, reference=True)
    return Recovery(f, x, OptimisticFTL(), "linear", "y-first", [rate])


RECOVERIES = {"gd": gd_averaging, "smooth": smooth_gd, "frank-wolfe": frank_wolfe, "nesterov": nesterov,
              "data-gd": data_gd}


def make_recovery(name: str, **params) -> Recovery:
    """The recovery ``name`` (gd, smooth, frank-wolfe, nesterov) built with ``params``.

    Parameters
    ----------
    name : {"gd", "data-gd", "smooth", "frank-wolfe", "nesterov"}
        The recovery.
    **params
        Parameters of its factory.
    """
    if name not in RECOVERIES:
        raise UnknownNameError(f"unknown recovery {name!r}{did_you_mean(name, RECOVERIES)}")
    return RECOVERIES[name](**params)


def play_recovery(rec: Recovery, *, T: int, replicates: int = 1, seed: int = 0, checkpoints=None):
    """Play a `Recovery` with `onlinelab.games.game.play_game`.

    Parameters
    ----------
    rec : Recovery
        A recovery built by `make_recovery` or one of the factories.
    T : int
        Number of rounds.
    replicates : int, default 1
        Independent repetitions.
    seed : int, default 0
        Root seed.
    checkpoints : int, list of int or None, default None
        Rounds at which metrics are logged.
    """
    from onlinelab.games.game import play_game
    return play_game(rec.f, rec.x_player, rec.y_player, T=T, replicates=replicates, seed=seed, weights=rec.weights,
                     order=rec.order, checkpoints=checkpoints, bounds=rec.bounds)


def listing() -> list[tuple[str, str]]:
    """(name, first docstring line) of every recovery, for ``onlinelab list``."""
    import inspect
    return [(name, (inspect.getdoc(f) or "").splitlines()[0]) for name, f in RECOVERIES.items()]
