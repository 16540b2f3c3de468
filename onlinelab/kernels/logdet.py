"""Compiled blocks of rounds for bandit log-det OMD at small d (dense and sparse sampling).

At d ≤ 16 one replicate's round of `onlinelab.learners.logdet.LogDetOMD` is a few hundred flops, and
numpy's per-call overhead, not the arithmetic, is the cost.  `logdet_block` plays rounds ``i0 … i1 − 1``
of an oblivious block of rank-one losses ``L = c·x xᵀ`` for every replicate in one loop (theory §1,
docs/theory/01-bandit-pca.md), repeating the numpy reference operation by operation:

* the mixed play ``λ̂ = (1 − γ)λ + γ/d`` and the sampler's draw from the round's uniforms — dense:
  ``[B, I, s₁ … s_d]``, sparse: ``[I, J, σ]``, exactly the uniforms `onlinelab.learners.bandit_sampling`
  takes from the replicate's stream, in the same order;
* the played vector (the dense mix ``U (s ∘ √λ̂)`` summed in ``np.einsum``'s order,
  `onlinelab.kernels.rowops.einsum_dot`), the
  realised loss ``c (wᵀx)²``, the structured estimate and its update: a diagonal shift, a rank-one
  eigh (LAPACK's, as numpy's; then ``U V`` through BLAS, as numpy's matmul) or one Jacobi rotation (its
  arctan2, cos and sin numpy's own loops, `onlinelab.kernels.ufuncs`);
* the β solve of theory §1.4 (`shift_solve_into`, the Newton steps counted) and the normalisation.

The learner re-orthonormalises every ``reorth_every`` rounds; the kernel measures the error there and
returns early only when numpy's check could act (`orthonormality_reached`), so a block is usually one
call.  Run it through `run` (`onlinelab.kernels.rowops.call` after binding this module's helpers); None
means numba cannot compile here.

>>> import numpy as np
>>> a = np.array([1.0, 2.0]); b = np.array([3.0, 4.0])
>>> float(rowops.einsum_dot(a, b, 2))
11.0
"""
from __future__ import annotations

import sys

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import Kernel, kernel
from onlinelab.kernels.ufuncs import COS, SIN

EPS = rowops.EPS
DENSE, SPARSE = 0, 1
REORTH_SAFE = 0.9e-12   # numpy's check re-orthonormalises above 1e-12; the two error sums differ by ~1e-15


def shift_solve_into(a, out, work):
    """out = normalised eigenvalues of (A + βI)⁻¹ from a (`onlinelab.geometry.linalg.solve_shift`); returns
    (a_min, Newton steps), as `onlinelab.learners.logdet.LogDetOMD.update` records them.

    Parameters
    ----------
    a : numpy.ndarray
        1-D, the eigenvalues of W⁻¹ + ηL̃.
    out, work : numpy.ndarray
        1-D result and scratch, length d.
    """
    d = a.shape[0]
    amin = a[0]
    for j in range(1, d):
        amin = min(amin, a[j])
    for j in range(d):
        out[j] = a[j] - amin
    for k in range(d):                     # the sorted c by insertion (the same sorted row as np.sort)
        x, m = out[k], k
        while m > 0 and work[m - 1] > x:
            work[m] = work[m - 1]
            m -= 1
        work[m] = x
    lo, run = -np.inf, 0.0
    for k in range(d):
        run += work[k]
        lo = max(lo, (k + 1) - run / (k + 1))
    lo = min(max(lo, 1.0), float(d))
    hi, s, steps = float(d), lo, 0
    for _ in range(100):
        for j in range(d):
            work[j] = 1.0 / (out[j] + s)
        total = rowops.pairwise_sum(work, 0, d)
        phi = total - 1.0
        if abs(phi) <= 8 * EPS * total or hi - lo <= 4 * EPS * s:
            break
        steps += 1
        if phi > 0:
            lo = s
        else:
            hi = s
        newton = s + phi / rowops.einsum_square_sum(work, d)
        s = newton if lo < newton < hi else 0.5 * (lo + hi)
    for j in range(d):
        work[j] = 1.0 / (out[j] + s)
    total = rowops.pairwise_sum(work, 0, d)
    for j in range(d):
        out[j] = work[j] / total
    return amin, steps


@kernel(loops=True)
def logdet_block(X, coef, uniforms, lam, U, eta, gamma, sampler, i0, i1, plays_lam, plays_U, realized, unstable,
                 reorth, safe, loops):
    """Rounds i0 … i1 − 1 of a block: ``lam`` (R, d), ``U`` (R, d, d) and ``unstable`` (R,) updated in place;
    plays (n, R, d) and (n, R, d, d) and realised losses (n, R) written.

    ``X`` (n, R, d) holds the losses' factors, ``coef`` their coefficient, ``uniforms`` (n, R, m) each
    round's draws (m = d + 2 dense, 3 sparse).  ``reorth[i]`` marks the rounds after which the learner
    re-orthonormalises: there the kernel measures ‖UᵀU − I‖_F and, if some replicate's reaches ``safe``
    (`REORTH_SAFE`: the numpy check's tolerance 1e-12 less a margin far above rounding), stops so that
    numpy re-orthonormalises exactly; below it numpy's check would change nothing.  Returns (the most
    Newton steps, the round after which it stopped, i1 if none).  ``loops`` (appended by `run`): numpy's own
    arctan2, cos and sin for the sparse rotation (`onlinelab.kernels.ufuncs`).
    """
    R, d = lam.shape
    lam_hat, w, v, a, work = np.empty(d), np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    M, Ur = np.empty((d, d)), np.empty((d, d))
    most, rt2 = 0, np.sqrt(2.0)
    B, idx, jdx, sigma = False, 0, 0, 1.0
    for i in range(i0, i1):
        for r in range(R):
            u = uniforms[i, r]
            for j in range(d):
                lam_hat[j] = (1 - gamma) * lam[r, j] + gamma / d
                plays_lam[i, r, j] = lam_hat[j]
                a[j] = 1.0 / lam[r, j]
                for k in range(d):
                    plays_U[i, r, j, k] = U[r, j, k]
            if sampler == DENSE:
                B, idx = u[0] < 0.5, rowops.categorical(lam_hat, u[1])
                for j in range(d):
                    v[j] = (-1.0 if u[2 + j] < 0.5 else 1.0) * np.sqrt(lam_hat[j])
                for j in range(d):
                    w[j] = U[r, j, idx] if B else rowops.einsum_dot(U[r, j], v, d)
            else:
                idx, jdx = rowops.categorical(lam_hat, u[0]), rowops.categorical(lam_hat, u[1])
                sigma = -1.0 if u[2] < 0.5 else 1.0
                for j in range(d):
                    w[j] = U[r, j, idx] if idx == jdx else (U[r, j, idx] + sigma * U[r, j, jdx]) / rt2
            proj = rowops.einsum_dot(w, X[i, r], d)
            ell = proj * proj * coef
            realized[i, r] = ell
            if sampler == DENSE and B:
                a[idx] = a[idx] + eta * (2 * ell / lam_hat[idx])
            elif sampler == DENSE:
                for j in range(d):
                    a[j] = a[j] + eta * (-ell / lam_hat[j])
                    v[j] = (-1.0 if u[2 + j] < 0.5 else 1.0) / np.sqrt(lam_hat[j])   # the rank-one vector
                if ell != 0:
                    c = eta * ell
                    for j in range(d):
                        for k in range(d):
                            M[j, k] = (a[j] if j == k else 0.0) + c * v[j] * v[k]
                    for j in range(d):
                        for k in range(d):
                            Ur[j, k] = 0.5 * (M[j, k] + M[k, j])
                    evals, V = np.linalg.eigh(Ur)
                    for j in range(d):
                        a[j] = evals[j]
                        for k in range(d):
                            M[j, k] = U[r, j, k]
                    U[r] = M @ V
            elif idx == jdx:
                li = lam_hat[idx]
                a[idx] = a[idx] + eta * (ell / (li * li))
            else:
                off = sigma * ell / (2 * lam_hat[idx] * lam_hat[jdx])
                if off != 0:
                    p, q, c = a[idx], a[jdx], eta * off
                    theta = 0.5 * rowops.scalar_arctan2(2 * c, p - q, loops)
                    cs, sn = rowops.scalar_unary(COS, theta, loops), rowops.scalar_unary(SIN, theta, loops)
                    a[idx] = p * cs * cs + 2 * c * sn * cs + q * sn * sn
                    a[jdx] = p * sn * sn - 2 * c * sn * cs + q * cs * cs
                    for j in range(d):
                        uI, uJ = U[r, j, idx], U[r, j, jdx]
                        U[r, j, idx] = cs * uI + sn * uJ
                        U[r, j, jdx] = -sn * uI + cs * uJ
            amin, steps = shift_solve_into(a, v, work)
            for j in range(d):
                lam[r, j] = v[j]
            if amin <= 0:
                unstable[r] += 1
            most = max(most, steps)
        if reorth[i] and orthonormality_reached(U, safe):
            return most, i + 1
    return most, i1


def orthonormality_reached(U, safe):
    """Whether some replicate's ‖UᵀU − I‖_F reaches ``safe`` (then numpy decides and re-orthonormalises)."""
    R, d = U.shape[0], U.shape[1]
    for r in range(R):
        err = 0.0
        for j in range(d):
            for k in range(d):
                g = -1.0 if j == k else 0.0
                for m in range(d):
                    g += U[r, m, j] * U[r, m, k]
                err += g * g
        if np.sqrt(err) >= safe:
            return True
    return False


_HELPERS = ("shift_solve_into", "orthonormality_reached")
_BOUND: list[bool] = []


def run(kern, *args):
    """`onlinelab.kernels.rowops.call` of ``kern`` with this module's helpers compiled first; None when numba
    cannot compile here (the caller then plays its numpy path).

    Parameters
    ----------
    kern : onlinelab.kernels.jit.Kernel
        `logdet_block`.
    *args
        Its arguments.
    """
    if not _BOUND:
        ok = rowops.bind()
        module = sys.modules[__name__]
        for name in _HELPERS if ok else ():
            fn = Kernel(getattr(module, name)).get()
            ok = ok and fn is not None
            if ok:
                setattr(module, name, fn)
        _BOUND.append(ok)
    return rowops.call(kern, *args) if _BOUND[0] else None
