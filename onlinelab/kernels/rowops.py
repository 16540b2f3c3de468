"""Row operations that the simplex kernels share, written to repeat numpy's arithmetic order exactly.

Each function works on one replicate's row of K numbers, in numba's nopython subset, and follows the
numpy reference operation by operation, so a kernel built from them gives the numpy path's numbers
bit for bit; the exp and log are numpy's own loops (`onlinelab.kernels.ufuncs`), whatever the CPU
(`tests/kernels/test_rowops.py` checks each helper on the machine it runs on):

* `einsum_dot` / `einsum_square_sum` — ``np.einsum("ij,ij->i", a, b)`` / ``(a, a)`` of one row (two lanes,
  products added from the back);
* `pairwise_sum` — ``np.add.reduce`` of a contiguous row: numpy's pairwise summation (eight running
  sums for 8 ≤ n ≤ 128, halves above), not a plain left-to-right sum;
* `softmax_into` — `onlinelab.geometry.linalg.softmax` (max shift, exp, divide by the pairwise sum), its exp
  numpy's own loop (`exp_row`, `onlinelab.kernels.ufuncs`: numpy's vector exp differs from the C library's on
  AVX-512 machines), and `normalise_row`, its last step;
* `categorical` — `onlinelab.core.rng.categorical_from` (a sequential running sum against u·total);
* `omd_step_into` — `onlinelab.geometry.mirror.mirror_step` with the entropy or the log-barrier;
* `bandit_draw_into` — one round of the bandit wrappers once the inner play is known;
* `logbarrier_solve_into` — `onlinelab.geometry.linalg.normalised_inverse`, the log-barrier step on
  the simplex (theory §3.2, docs/theory/03-oco-fenchel.md): the same Newton iteration on the shift, its
  denominator Σ 1/(c + s)² summed in ``np.einsum``'s order (`einsum_square_sum`).

They are plain Python until `bind` compiles them (numba is imported only then): a kernel that calls
them must be run through `call`, which binds them first.

>>> import numpy as np
>>> float(pairwise_sum(np.arange(10.0), 0, 10))
45.0
"""
from __future__ import annotations

import sys

import numpy as np

from onlinelab.kernels import ufuncs
from onlinelab.kernels.jit import give_up
from onlinelab.kernels.ufuncs import ARCTAN2, EXP, LOG

EPS = float(np.finfo(float).eps)
apply_unary = ufuncs.apply_py     # numpy's unary loop on a row; a numba intrinsic once `bind` has run
apply_binary = ufuncs.apply_py    # the same for a loop of two inputs
scalar_1 = scalar_2 = ufuncs.scalar_py    # the same on single numbers


def block_sum(a, lo, n):
    """Σ a[lo:lo + n] for n ≤ 128 in numpy's order: left to right below 8, else eight running sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i, stop = 8, n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


def pairwise_sum(a, lo, n):
    """Σ a[lo:lo + n] in numpy's order for a contiguous reduction: `block_sum` up to 128 terms, above that
    the sum of the two halves (the first half's length a multiple of 8), each summed the same way.

    The halving is unrolled with an explicit stack (numba's on-disk cache does not take recursive
    functions).

    Parameters
    ----------
    a : numpy.ndarray
        A 1-D float array.
    lo, n : int
        Start and length of the summed stretch.
    """
    if n <= 128:
        return block_sum(a, lo, n)
    starts, sizes = np.empty(64, np.int64), np.empty(64, np.int64)
    stage, left = np.zeros(64, np.int64), np.empty(64)    # stage 0: split, 1: left half pending, 2: right half
    top, starts[0], sizes[0], stage[0], value = 0, lo, n, 0, 0.0
    while top >= 0:
        if sizes[top] <= 128:
            value = block_sum(a, starts[top], sizes[top])
            top -= 1
            while top >= 0 and stage[top] == 2:        # finished right halves: add them to their left halves
                value = left[top] + value
                top -= 1
            if top >= 0:                               # a finished left half: keep it, then sum the right half
                left[top], stage[top] = value, 2
                half = sizes[top] // 2
                half -= half % 8
                starts[top + 1], sizes[top + 1], stage[top + 1] = starts[top] + half, sizes[top] - half, 0
                top += 1
            continue
        half = sizes[top] // 2
        half -= half % 8
        stage[top] = 1
        starts[top + 1], sizes[top + 1], stage[top + 1] = starts[top], half, 0
        top += 1
    return value


def einsum_dot(a, b, n):
    """Σ a_j b_j over the first n entries in the order of ``np.einsum("ij,ij->i", a, b)`` for one row.

    numpy's einsum (its baseline x86-64 build, no dispatch) multiplies first, then keeps two lanes (even and odd
    positions), adds the products in groups of eight from the back of each group, the rest two at a time, and
    finally lane 0 + lane 1.

    Parameters
    ----------
    a, b : numpy.ndarray
        1-D float arrays.
    n : int
        How many leading entries to sum.
    """
    acc0, acc1, i = 0.0, 0.0, 0
    while n - i >= 8:
        acc0 = a[i] * b[i] + (a[i + 2] * b[i + 2] + (a[i + 4] * b[i + 4] + (a[i + 6] * b[i + 6] + acc0)))
        acc1 = a[i + 1] * b[i + 1] + (a[i + 3] * b[i + 3] + (a[i + 5] * b[i + 5] + (a[i + 7] * b[i + 7] + acc1)))
        i += 8
    while i < n:
        acc0 = a[i] * b[i] + acc0
        acc1 = (a[i + 1] * b[i + 1] if i + 1 < n else 0.0) + acc1
        i += 2
    return acc0 + acc1


def einsum_square_sum(a, n):
    """Σ a_j² over a[:n] in the order of ``np.einsum("ij,ij->i", a, a)`` for one contiguous row.

    numpy's einsum (its baseline x86-64 build, no dispatch) multiplies first, then keeps two lanes
    (even and odd positions), adds the products in groups of eight from the back of each group
    (x₆, x₄, x₂, x₀ into lane 0), the rest two at a time, and finally lane 0 + lane 1.

    Parameters
    ----------
    a : numpy.ndarray
        A 1-D float array.
    n : int
        How many leading entries to sum.
    """
    return einsum_dot(a, a, n)


def softmax_into(h, out, loops):
    """out = exp(h − max h)/Σ exp(h − max h), as `onlinelab.geometry.linalg.softmax` computes one row.

    Parameters
    ----------
    h, out : numpy.ndarray
        1-D float arrays of length K (they may be the same array).
    loops : numpy.ndarray
        `onlinelab.kernels.ufuncs.table`: the exp is numpy's own loop, as the reference's.
    """
    K = h.shape[0]
    top = h[0]
    for j in range(1, K):
        if h[j] > top:
            top = h[j]
    for j in range(K):
        out[j] = h[j] - top
    exp_row(out, out, K, loops)
    normalise_row(out, K)


def exp_row(src, dst, n, loops):
    """dst[:n] = exp(src[:n]) by numpy's float64 exp loop (`onlinelab.kernels.ufuncs`; src may be dst)."""
    apply_unary(loops[EXP], loops[EXP + 1], src, dst, n)


def scalar_unary(which, x, loops):
    """numpy's loop at place ``which`` of the table (`onlinelab.kernels.ufuncs`: LOG, EXPM1, COS, …) on one
    number, as ``np.log(x)`` etc. compute it."""
    return scalar_1(loops[which], loops[which + 1], x)


def scalar_arctan2(y, x, loops):
    """``np.arctan2(y, x)`` of two numbers, by numpy's own loop (`onlinelab.kernels.ufuncs`)."""
    return scalar_2(loops[ARCTAN2], loops[ARCTAN2 + 1], y, x)


def normalise_row(out, K):
    """out[:K] /= Σ out[:K], the sum in numpy's pairwise order (`pairwise_sum`) and one division per entry, as
    ``p / p.sum(axis=1, keepdims=True)``."""
    total = pairwise_sum(out, 0, K)
    for j in range(K):
        out[j] /= total


def categorical(p, u):
    """The first i with Σ_{j≤i} p_j > u·Σ_j p_j (the last index if none): `onlinelab.core.rng.categorical_from`.

    Parameters
    ----------
    p : numpy.ndarray
        Non-negative weights, 1-D.
    u : float
        A uniform [0, 1) draw.
    """
    K = p.shape[0]
    total = 0.0
    for j in range(K):
        total += p[j]
    thr = u * total
    run = 0.0
    for j in range(K - 1):
        run += p[j]
        if run > thr:
            return j
    return K - 1


def logbarrier_solve_into(a, out, work):
    """out = the eigenvalues of (A + βI)⁻¹ normalised to sum 1, given a's entries (`normalised_inverse`).

    Parameters
    ----------
    a : numpy.ndarray
        1-D, the row −θ.
    out : numpy.ndarray
        1-D result, length d.
    work : numpy.ndarray
        1-D scratch of length d.
    """
    d = a.shape[0]
    amin = a[0]
    for j in range(1, d):
        if a[j] < amin:
            amin = a[j]
    for j in range(d):
        out[j] = a[j] - amin                        # c ≥ 0 with min 0
    for k in range(d):                              # work = sorted c: insertion sort (np.sort's compiled quicksort
        x, m = out[k], k                            # costs numba seconds of compile; the sorted row is the same)
        while m > 0 and work[m - 1] > x:
            work[m] = work[m - 1]
            m -= 1
        work[m] = x
    lo, run = -np.inf, 0.0
    for k in range(d):                              # s* ≥ max_k (k − mean of the k smallest c)
        run += work[k]
        cand = (k + 1) - run / (k + 1)
        if cand > lo:
            lo = cand
    lo = min(max(lo, 1.0), float(d))
    hi, s = float(d), lo
    for _ in range(100):
        for j in range(d):
            work[j] = 1.0 / (out[j] + s)
        total = pairwise_sum(work, 0, d)
        phi = total - 1.0
        if abs(phi) <= 8 * EPS * total or hi - lo <= 4 * EPS * s:
            break
        if phi > 0:
            lo = s
        else:
            hi = s
        newton = s + phi / einsum_square_sum(work, d)
        s = newton if lo < newton < hi else 0.5 * (lo + hi)
    for j in range(d):
        work[j] = 1.0 / (out[j] + s)
    total = pairwise_sum(work, 0, d)
    for j in range(d):
        out[j] = work[j] / total


def omd_step_into(mirror, z, g, step, a, work, out, loops):
    """out = solve(∇φ(z) + g·(−step)): `onlinelab.geometry.mirror.mirror_step` on the simplex.

    Parameters
    ----------
    mirror : int
        0 for the entropy (∇φ = log z + 1, solve = softmax), 1 for the log-barrier (∇φ = −1/z,
        solve(θ) = normalised_inverse(−θ)).
    z, g : numpy.ndarray
        The current point and the (weighted) gradient, 1-D.
    step : float
        The step size γ.
    a, work, out : numpy.ndarray
        Two scratch rows and the result, 1-D.
    loops : numpy.ndarray
        `onlinelab.kernels.ufuncs.table` (numpy's own exp and log).
    """
    K = z.shape[0]
    neg = -step
    if mirror == 0:
        apply_unary(loops[LOG], loops[LOG + 1], z, a, K)
        for j in range(K):
            a[j] = (a[j] + 1.0) + g[j] * neg
        softmax_into(a, out, loops)
    else:
        for j in range(K):
            a[j] = -((-1.0 / z[j]) + g[j] * neg)
        logbarrier_solve_into(a, out, work)


def bandit_draw_into(q, p, est, losses, uniforms, i, r, gamma, shift, ix):
    """One bandit round after the inner play q: p = (1 − γ) q + γ/K, the arm from ``uniforms[i, r]``, its loss
    ℓ = ``losses[i, r, arm]`` and the estimate ((ℓ + shift)/(p(arm) + ix))·e_arm into ``est``; returns (arm, ℓ).

    As `onlinelab.learners.bandit_simplex.BanditSimplex.play_block` computes them: ``np.multiply(q, 1 − γ)``
    then ``+= γ/K``; `categorical`; ``one_hot · ratio``, whose zeros carry the ratio's sign.  ``ix`` > 0 is
    Exp3-IX's implicit exploration (`onlinelab.learners.exp3_ix`), 0 for the others.
    """
    K = q.shape[0]
    keep, add = 1.0 - gamma, gamma / K
    for j in range(K):
        p[j] = q[j] if gamma == 0 else q[j] * keep + add
    arm = categorical(p, uniforms[i, r])
    value = losses[i, r, arm]
    den = p[arm] + ix if ix != 0 else p[arm]
    ratio = (value + shift) / den if shift != 0 else value / den
    for j in range(K):
        est[j] = 0.0 * ratio
    est[arm] = ratio
    return arm, value


_HELPERS = ("block_sum", "pairwise_sum", "einsum_dot", "einsum_square_sum", "exp_row", "scalar_unary",
            "scalar_arctan2", "normalise_row", "softmax_into", "categorical", "logbarrier_solve_into", "omd_step_into",
            "bandit_draw_into")
_BOUND: list[bool] = []


def bind() -> bool:
    """Replace this module's helpers by numba dispatchers (once per process); False when numba cannot compile.

    A kernel that calls ``rowops.softmax_into`` is typed against whatever the module holds when it
    compiles, so the helpers must be bound first; `call` does that.
    """
    if _BOUND:
        return _BOUND[0]
    from onlinelab.kernels.jit import Kernel
    module = sys.modules[__name__]
    for name in _HELPERS:                 # the sums first: the others call it by its module-level name
        fn = Kernel(getattr(module, name), inline=True).get()   # inlined: a call per row costs as much as the row
        if fn is None:                    # (numba missing, broken or switched off: `Kernel.get` warned once)
            _BOUND.append(False)
            return False
        setattr(module, name, fn)
    try:   # numpy's loops for the helpers; set before any of them compiles (at a kernel's first call)
        module.apply_unary, module.apply_binary = ufuncs.numba_apply(1), ufuncs.numba_apply(2)
        module.scalar_1, module.scalar_2 = ufuncs.numba_scalar(1), ufuncs.numba_scalar(2)
    except Exception as exc:  # noqa: BLE001  (a numba without the extension API: the numpy path, with the warning)
        give_up(f"numba's intrinsics are unavailable ({type(exc).__name__}: {exc})")
        _BOUND.append(False)
        return False
    _BOUND.append(True)
    return True


def call(kern, *args):
    """``kern.call(*args)`` after `bind`; None when numba cannot compile here (the caller runs its numpy path).

    A kernel made with ``@kernel(loops=True)`` (it calls `exp_row`, `softmax_into`, `omd_step_into` or one of
    numpy's loops itself) gets numpy's exp, log, expm1, log1p, cos, sin and arctan2 loops,
    `onlinelab.kernels.ufuncs.table`, as one more, last argument; where they cannot be read here it takes the
    numpy path (with the process's one `onlinelab.errors.CompileWarning`).

    Parameters
    ----------
    kern : onlinelab.kernels.jit.Kernel
        A kernel that may call this module's helpers.
    *args
        Its arguments (numpy arrays and scalars).
    """
    if not bind():
        return None
    if kern.loops:
        loops = ufuncs.table()
        if loops is None:
            give_up(f"{kern.name}: numpy's float64 exp/log loops (onlinelab.kernels.ufuncs) cannot be read and checked "
                    "here")
            return None
        args = (*args, loops)
    return kern.call(*args)
