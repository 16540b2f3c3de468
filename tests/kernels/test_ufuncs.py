"""numpy's own exp and log loops in the kernels (onlinelab.kernels.ufuncs) against np.exp and np.log.

The premise of every bit-for-bit kernel test: a kernel's exp and log give numpy's numbers.  On a CPU with AVX-512,
numpy's float64 exp and log are its own vector code, which differs from the C library's in the last bit for some
inputs; the kernels therefore call numpy's loop, read from the ufunc object and checked on probe values.
"""
import warnings

import numpy as np
import pytest

from onlinelab.errors import CompileWarning
from onlinelab.kernels import jit, rowops, ufuncs
from onlinelab.kernels.jit import kernel


@kernel(loops=True)
def _rows_of(x, which, rows, loops):
    """numpy's unary loop at place ``which`` of the table on x, a row of ``rows`` entries at a time, compiled."""
    n = x.shape[0]
    out, src, dst = np.empty(n), np.empty(rows), np.empty(rows)
    for lo in range(0, n, rows):
        m = min(rows, n - lo)
        for j in range(m):
            src[j] = x[lo + j]
        if which == ufuncs.EXP:
            rowops.exp_row(src, dst, m, loops)
        else:
            rowops.apply_unary(loops[which], loops[which + 1], src, dst, m)
        for j in range(m):
            out[lo + j] = dst[j]
    return out


UNARY = [("exp", ufuncs.EXP, lambda x: x), ("log", ufuncs.LOG, lambda x: np.abs(x) + 1e-300),
         ("expm1", ufuncs.EXPM1, lambda x: x), ("log1p", ufuncs.LOG1P, lambda x: np.abs(x) - 0.999),
         ("cos", ufuncs.COS, lambda x: x), ("sin", ufuncs.SIN, lambda x: x)]


@pytest.mark.parametrize("rows", [1, 3, 10, 64])
@pytest.mark.parametrize("name, which, domain", UNARY, ids=[u[0] for u in UNARY])
def test_compiled_unary_loops_are_numpys_bit_for_bit(name, which, domain, rows):
    """200 000 draws over ±150 (every exponent a softmax meets, and beyond), mapped into each function's domain,
    in rows of every length class of numpy's vector loop (a tail shorter than a vector, a few vectors, many)."""
    x = domain(np.random.default_rng(rows).normal(size=200_000) * 50)
    got = rowops.call(_rows_of, x, which, rows)
    np.testing.assert_array_equal(got.view(np.int64), getattr(np, name)(x).view(np.int64))


def test_the_plain_python_call_is_numpys():
    t = ufuncs.table()
    assert t is not None and t.dtype == np.int64 and t.shape == (2 * len(ufuncs.UFUNCS),)
    x = np.linspace(-700, 700, 2001)
    out = np.empty_like(x)
    ufuncs.apply_py(t[ufuncs.EXP], t[ufuncs.EXP + 1], x, out, x.size)
    np.testing.assert_array_equal(out, np.exp(x))
    assert ufuncs.scalar_py(t[ufuncs.ARCTAN2], t[ufuncs.ARCTAN2 + 1], 1.0, -2.0) == np.arctan2(1.0, -2.0)


@kernel(loops=True)
def _exp_first(x, n, loops):
    out = np.full(x.shape[0] + 2, -1.0)
    rowops.exp_row(x, out[:x.shape[0]], n, loops)
    return out


def test_the_compiled_call_never_passes_a_rows_end():
    """n larger than the rows is clamped to the shortest row: the entries after it are untouched."""
    x = np.array([0.0, 1.0, 2.0])
    got = rowops.call(_exp_first, x, 10)
    np.testing.assert_array_equal(got, [1.0, np.exp(1.0), np.exp(2.0), -1.0, -1.0])
    np.testing.assert_array_equal(rowops.call(_exp_first, x, 2), [1.0, np.exp(1.0), -1.0, -1.0, -1.0])


def test_a_strided_row_does_not_type():
    """numpy's loop gives the C library's numbers on reversed or partly overlapping rows, so the compiled call takes
    C-contiguous rows only: a strided one is a typing error (the kernel would take the numpy path), not a silent
    difference."""
    import numba
    rowops.bind()
    apply = ufuncs.numba_apply(1)
    t = ufuncs.table()

    @numba.njit
    def strided(x, t):
        out = np.empty(x.shape[0])
        apply(t[0], t[1], x[::2], out, 2)
        return out
    with pytest.raises(numba.core.errors.TypingError):
        strided(np.zeros(4), t)


def test_a_ufunc_without_an_all_float_loop_is_refused():
    assert ufuncs.loop_of(np.logical_not) is None       # no d->d loop
    assert ufuncs.loop_of(np.divmod) is None            # two outputs
    assert ufuncs.loop_of(np.linalg.norm) is None       # not a ufunc
    assert ufuncs.loop_of(np.exp) is not None and ufuncs.loop_of(np.arctan2) is not None


def test_a_misread_struct_is_refused(monkeypatch):
    """If numpy laid the struct out otherwise (here: a pointer more before the counts), the counts and the name
    would not read back: refused, for every ufunc of the table."""
    fields = ufuncs._UFuncHead._fields_[:2] + [("extra", ufuncs.ctypes.c_void_p)] + ufuncs._UFuncHead._fields_[2:]
    monkeypatch.setattr(ufuncs, "_UFuncHead", type("Shifted", (ufuncs.ctypes.Structure,), {"_fields_": fields}))
    assert all(ufuncs.loop_of(getattr(np, name)) is None for name in ufuncs.UFUNCS)


@kernel(loops=True)
def _rotation(p, q, c, loops):
    """The sparse log-det update's angle and its cosine and sine (`onlinelab.kernels.logdet`), compiled."""
    n = p.shape[0]
    out = np.empty((3, n))
    for i in range(n):
        out[0, i] = rowops.scalar_arctan2(2 * c[i], p[i] - q[i], loops)
        out[1, i] = rowops.scalar_unary(ufuncs.COS, out[0, i], loops)
        out[2, i] = rowops.scalar_unary(ufuncs.SIN, out[0, i], loops)
    return out


def test_compiled_arctan2_cos_and_sin_are_numpys():
    rs = np.random.default_rng(5)
    p, q, c = rs.normal(size=(3, 100_000)) * 10.0 ** rs.uniform(-6, 3, size=(3, 100_000))
    got = rowops.call(_rotation, p, q, c)
    theta = np.arctan2(2 * c, p - q)
    np.testing.assert_array_equal(got, [theta, np.cos(theta), np.sin(theta)])


def test_without_the_loops_the_kernel_takes_the_numpy_path_with_one_warning(monkeypatch):
    monkeypatch.setattr(ufuncs, "_TABLE", [None])
    monkeypatch.delenv("ONLINELAB_KERNELS_STRICT", raising=False)
    monkeypatch.setattr(jit, "_WARNED", [])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert rowops.call(_rows_of, np.zeros(3), ufuncs.EXP, 2) is None
    assert [w.category for w in seen] == [CompileWarning]
    assert "cannot be read and checked" in str(seen[0].message)
