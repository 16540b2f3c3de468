"""Mirror maps (regularisers) φ and the two steps every FTRL / OMD learner needs, on vector and spectral domains.

theory §3.2 (docs/theory/03-oco-fenchel.md).  A mirror map provides, for a domain K:
* ``solve(θ)`` = argmin_{x∈K} −⟨θ, x⟩ + φ(x) — FTRL plays ``solve(−η Σ α_s g_s)`` and greedy OMD
  plays ``solve(∇φ(z_t) − γ α_t g_t)`` (the Bregman projection of the unconstrained step);
* ``grad(x)`` = ∇φ(x);
* ``range(K)`` = sup_u φ(u) − min_K φ = sup_u D_φ(u, x₁) with x₁ = argmin_K φ (the bound's numerator);
* strong convexity ``beta(K)`` w.r.t. the norm whose dual measures the gradients: ``dual_stat``
  names the loss statistic (``spec_sq``: ‖g‖∞², spectral norm for matrices; ``fro_sq``: ‖g‖₂²).

Maps: ``euclidean`` ½‖x − c‖² (c the domain's centre: projected gradient / Frobenius FTRL),
``entropy`` Σ x log x (Hedge; on eigenvalues: von Neumann entropy, MEG; on a capped simplex
the Bregman projection is capping p_i = min(cap, τ q_i)), ``log-barrier`` −Σ log x (on the
spectraplex: the log-det learner of theory §1, normalised with the shifted Newton solve).
`mirror_solve` / `mirror_grad` apply a map on any domain — spectral domains go
through eigenvalues, so the simplex and spectraplex versions are one code path.

>>> import numpy as np
>>> from onlinelab.geometry.domains import Simplex
>>> np.round(get_mirror("entropy").solve(np.log(np.array([[1.0, 3.0]])), Simplex(2)), 6)
array([[0.25, 0.75]])
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.protocol import EigenPlay
from onlinelab.errors import DomainError
from onlinelab.geometry.linalg import eigh, normalised_inverse, softmax


def capped_log_softmax(h: np.ndarray, cap: float, total: float = 1.0) -> np.ndarray:
    """log p for p = argmin KL(p‖softmax(h)) over {0 ≤ p ≤ cap, Σp = total}: p_i = min(cap, τ e^{h_i}) (theory §2).

    Worked in the log domain (sort h descending; j = number capped; log τ_j = log(total − j·cap) −
    logsumexp(h_{(j)}, …); the first j whose largest uncapped entry fits under the cap), so log p stays
    finite when p underflows: the greedy capped MEG step keeps its iterate as this log ("never take log W").

    Parameters
    ----------
    h : numpy.ndarray
        Log-weights, one row per replicate.
    cap : float
        Upper bound on every coordinate.
    total : float
        Sum of the coordinates.
    """
    h = np.asarray(h, dtype=float)
    order = np.argsort(-h, axis=-1, kind="stable")
    hs = np.take_along_axis(h, order, axis=-1)
    suffix = np.logaddexp.accumulate(hs[..., ::-1], axis=-1)[..., ::-1]     # logsumexp(hs[j:])
    rem = total - np.arange(h.shape[-1]) * cap
    with np.errstate(divide="ignore"):
        log_tau = np.log(np.maximum(rem, 0.0)) - suffix
    ok = (rem > 0) & (hs + log_tau <= np.log(cap) + 1e-12)
    first = np.argmax(ok, axis=-1)[..., None]
    tau = np.take_along_axis(log_tau, first, axis=-1)
    ls = np.where(np.arange(h.shape[-1]) < first, np.log(cap), np.minimum(hs + tau, np.log(cap)))
    out = np.empty_like(ls)
    np.put_along_axis(out, order, ls, axis=-1)
    return out


def capped_entropy_projection(q: np.ndarray, cap: float, total: float) -> np.ndarray:
    """argmin KL(p‖q) over {0 ≤ p ≤ cap, Σp = total}: p_i = min(cap, τ q_i) (theory §2), q > 0 rows.

    Parameters
    ----------
    q : numpy.ndarray
        Positive rows to project.
    cap : float
        Upper bound on every coordinate.
    total : float
        Sum of the coordinates.
    """
    return np.exp(capped_log_softmax(np.log(np.asarray(q, dtype=float)), cap, total))


class MirrorMap:
    name = ""
    kinds: tuple = ()
    dual_stat = "fro_sq"

    def check(self, domain, who: str) -> None:
        base = domain.base if domain.spectral else domain
        if base.kind not in self.kinds:
            allowed = ", ".join(self.kinds)
            raise DomainError(f"{who}: the {self.name!r} regulariser is not defined on the {domain.describe()} "
                              f"(it works on: {allowed}); pick regularizer='euclidean' or another domain")

    def beta(self, domain) -> float:
        return 1.0


class EuclideanMap(MirrorMap):
    """φ(x) = ½‖x − c‖², c = the domain's centre: Euclidean projection steps."""

    name = "euclidean"
    kinds = ("simplex", "capped-simplex", "ball", "box", "euclidean")

    def solve(self, theta, domain):
        return domain.project(domain.centre() + theta)

    def grad(self, x, domain):
        return x - domain.centre()

    def range(self, domain) -> float:
        c = domain.centre()
        if domain.kind in ("simplex", "capped-simplex"):
            vert = domain.lmo(np.arange(domain.n, dtype=float)[None, :])[0]   # all vertices are permutations
            return 0.5 * float(np.sum((vert - c) ** 2))
        if domain.kind == "ball":
            return 0.5 * domain.radius ** 2
        if domain.kind == "box":
            return 0.5 * domain.n * (0.5 * (domain.hi - domain.lo)) ** 2
        return float("inf")


class EntropyMap(MirrorMap):
    """φ(x) = Σ x log x: Hedge on the simplex, capped Hedge on a capped simplex; β = 1/total w.r.t. ‖·‖₁."""

    name = "entropy"
    kinds = ("simplex", "capped-simplex")
    dual_stat = "spec_sq"

    def solve(self, theta, domain):
        if domain.kind == "simplex":
            return softmax(theta if type(theta) is np.ndarray else np.asarray(theta, dtype=float))
        return np.exp(capped_log_softmax(theta, domain.cap, domain.total))

    def grad(self, x, domain):
        with np.errstate(divide="ignore"):
            return np.log(x) + 1.0

    def beta(self, domain) -> float:
        return 1.0 / getattr(domain, "total", 1.0)

    def range(self, domain) -> float:
        if domain.kind == "simplex":
            return float(np.log(domain.n))
        s, c, n = domain.total, domain.cap, domain.n
        m = int(np.floor(s / c + 1e-12))
        r = s - m * c
        top = m * c * np.log(c) + (r * np.log(r) if r > 1e-15 else 0.0)
        return float(top - s * np.log(s / n))


class LogBarrierMap(MirrorMap):
    """φ(x) = −Σ log x on the simplex (log-det on the spectraplex, theory §1.2); unbounded range, so no FTRL bound."""

    name = "log-barrier"
    kinds = ("simplex",)

    def solve(self, theta, domain):
        return normalised_inverse(-np.asarray(theta, dtype=float))

    def grad(self, x, domain):
        return -1.0 / x

    def range(self, domain) -> float:
        return float("inf")


MIRRORS = {"euclidean": EuclideanMap(), "entropy": EntropyMap(), "log-barrier": LogBarrierMap()}
ALIASES = {"frobenius": "euclidean", "negentropy": "entropy", "von-neumann": "entropy", "log-det": "log-barrier"}


def get_mirror(name: str) -> MirrorMap:
    """The mirror map registered as ``name`` (aliases: frobenius, negentropy, von-neumann, log-det).

    Parameters
    ----------
    name : str
        ``"euclidean"``, ``"entropy"`` or ``"log-barrier"``, or an alias.
    """
    name = ALIASES.get(name, name)
    v.choice("regularizer", name, tuple(MIRRORS))
    return MIRRORS[name]


def mirror_solve(mirror: MirrorMap, theta, domain):
    """argmin_{x∈K} −⟨θ, x⟩ + φ(x); on a spectral domain through the eigenvalues of θ (an EigenPlay).

    Parameters
    ----------
    mirror : MirrorMap
        The regulariser (see `get_mirror`).
    theta : array-like or EigenPlay
        The dual point θ.
    domain : Domain or SpectralDomain
        The decision set.
    """
    if domain.spectral:
        t, V = eigh(np.asarray(theta, dtype=float))
        return EigenPlay(mirror.solve(t, domain.base), V)
    return mirror.solve(theta, domain)


def mirror_grad(mirror: MirrorMap, x, domain):
    """∇φ(x); for an EigenPlay U diag(λ) Uᵀ it is U diag(∇φ(λ)) Uᵀ.

    Parameters
    ----------
    mirror : MirrorMap
        The regulariser (see `get_mirror`).
    x : array-like or EigenPlay
        A point of the domain.
    domain : Domain or SpectralDomain
        The decision set.
    """
    if domain.spectral:
        g = mirror.grad(x.lam, domain.base)
        return np.einsum("rik,rk,rjk->rij", x.U, g, x.U, optimize=True)
    return mirror.grad(x, domain)


def mirror_step(mirror: MirrorMap, x, g, step: float, domain):
    """The greedy OMD step solve(∇φ(x) − step·g) (theory §3.2); for the Euclidean map on a vector domain it is
    the projection Π_K(x − step·g) itself (solve(θ) = Π_K(c + θ), ∇φ(x) = x − c), without subtracting and
    adding back the centre c (two fewer passes and roundings: projected gradient descent, theory §5.6),
    formed in one fresh array (−step·g, then x added in place) that the domain may project in place
    (`onlinelab.geometry.domains.Domain.project_owned`).

    Parameters
    ----------
    mirror : MirrorMap
        The regulariser (see `get_mirror`).
    x : array-like or EigenPlay
        The current point.
    g : array-like
        The (weighted) gradient α_t g_t.
    step : float
        The step size γ.
    domain : Domain or SpectralDomain
        The decision set.
    """
    y = np.multiply(g, -step, dtype=float)
    if isinstance(mirror, EuclideanMap) and not domain.spectral:
        if y.shape == np.shape(x):
            y += x              # the same sum as x + (−step·g), in place
        else:
            y = np.asarray(x, dtype=float) + y
        return domain.project_owned(y)
    return mirror_solve(mirror, mirror_grad(mirror, x, domain) + y, domain)


def mirror_range(mirror: MirrorMap, domain) -> float:
    """max φ − min φ over ``domain`` (over its eigenvalue set for a spectral domain): FTRL's range term.

    Parameters
    ----------
    mirror : MirrorMap
        The regulariser (see `get_mirror`).
    domain : Domain or SpectralDomain
        The decision set.
    """
    return mirror.range(domain.base if domain.spectral else domain)


def mirror_beta(mirror: MirrorMap, domain) -> float:
    """Strong convexity β of φ on ``domain`` (w.r.t. the norm the bounds use).

    Parameters
    ----------
    mirror : MirrorMap
        The regulariser (see `get_mirror`).
    domain : Domain or SpectralDomain
        The decision set.
    """
    return mirror.beta(domain.base if domain.spectral else domain)
