"""numpy's own float64 loops of exp, log, expm1, log1p, cos, sin and arctan2, callable from a compiled kernel.

Why: numpy picks its elementwise loops at run time by CPU.  On a machine with AVX-512 its float64 ``exp``,
``log``, ``expm1``, ``log1p`` and ``arctan2`` are numpy's own vector code, which differs from the C library's in
the last bit for a few per cent of inputs (4.6 % of exps, 0.15–0.3 % of logs, 7–10 % of expm1s and log1ps,
7.4 % of arctan2s, measured on an AVX-512 EPYC); elsewhere numpy calls the C library.  A kernel that called the
C library would then play other numbers than the numpy reference, and a bandit turns a last-bit difference into
another arm.  So a kernel calls the very loop numpy runs: `table` reads its address from the ufunc object
(``PyUFuncObject.functions``, numpy's public C struct), checks the reading (the ufunc's name, argument counts,
type list) and checks the loop against the ufunc itself bit for bit on probe values; `numba_apply` is the
compiled call of such a loop on 1-D rows, `numba_scalar` on single numbers.  Where anything does not check out,
`table` is None and the kernels that need it take the numpy path (`onlinelab.kernels.rowops.call`).

The loop is numpy's inner loop, ``loop(char **args, npy_intp *n, npy_intp *steps, void *data)``: it reads
no Python object and takes no lock, so a kernel may call it without the GIL.  On C-contiguous rows, or in place
on the very same row, it computes per element the value of numpy's whole-array call, whatever the length or
position.  On partly overlapping or reversed arrays numpy's loop falls back to the C library, so the compiled
calls take C-contiguous rows only, and never more than the rows' length.

>>> import numpy as np
>>> t = table()                       # None where numpy's loops cannot be read and checked
>>> x = np.array([0.5, -3.0, 700.0]); out = np.empty(3)
>>> t is None or (apply_py(t[EXP], t[EXP + 1], x, out, 3), bool(np.array_equal(out, np.exp(x))))[1]
True
"""
from __future__ import annotations

import ctypes

import numpy as np

EXP, LOG, EXPM1, LOG1P, COS, SIN, ARCTAN2 = 0, 2, 4, 6, 8, 10, 12   # the (loop, data) pairs' places in the table
UFUNCS = ("exp", "log", "expm1", "log1p", "cos", "sin", "arctan2")
_TABLE: list = []        # [table or None], built once per process


class _UFuncHead(ctypes.Structure):
    """The leading fields of numpy's ``PyUFuncObject`` (numpy/ufuncobject.h, unchanged from numpy 1.x to 2.x)."""

    _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p), ("nin", ctypes.c_int),
                ("nout", ctypes.c_int), ("nargs", ctypes.c_int), ("identity", ctypes.c_int),
                ("functions", ctypes.c_void_p), ("data", ctypes.c_void_p), ("ntypes", ctypes.c_int),
                ("reserved1", ctypes.c_int), ("name", ctypes.c_char_p), ("types", ctypes.c_void_p)]


_LOOP = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def loop_of(ufunc) -> tuple[int, int] | None:
    """(loop address, data pointer) of ``ufunc``'s all-float64 loop (one or two inputs, one output), or None when
    the struct does not read as ``ufunc`` (another layout) or the loop does not give ``ufunc``'s numbers bit for
    bit on the probes."""
    if not isinstance(ufunc, np.ufunc) or ufunc.nin not in (1, 2) or ufunc.nout != 1:
        return None
    head, nargs = _UFuncHead.from_address(id(ufunc)), ufunc.nin + 1
    if (head.nin, head.nout, head.nargs, head.ntypes) != (ufunc.nin, 1, nargs, ufunc.ntypes) or not head.functions:
        return None
    if head.name != ufunc.__name__.encode() or not head.types:
        return None
    codes = ctypes.string_at(head.types, nargs * head.ntypes)
    want = bytes(np.dtype(c).num for sig in ufunc.types for c in sig.replace("->", ""))
    sig = "d" * ufunc.nin + "->d"
    if codes != want or sig not in ufunc.types:
        return None
    k = ufunc.types.index(sig)
    size = ctypes.sizeof(ctypes.c_void_p)
    fn = ctypes.c_void_p.from_address(head.functions + size * k).value
    data = (ctypes.c_void_p.from_address(head.data + size * k).value if head.data else None) or 0
    if not fn:
        return None
    probe = _probe(ufunc)
    probes = [probe] if ufunc.nin == 1 else [probe, np.roll(probe[::-1], 7)]
    with np.errstate(all="ignore"):
        want = ufunc(*probes).view(np.int64)
    whole, single = np.empty_like(probe), np.empty(64)
    apply_py(fn, data, *probes, whole, probe.size)                   # one long contiguous call
    for i in range(64):                                              # single numbers, as `numba_scalar` calls it
        apply_py(fn, data, *(p[i:i + 1] for p in probes), single[i:i + 1], 1)
    inplace = probe[:4099].copy()                                    # in place on the same row, as `exp_row`
    apply_py(fn, data, inplace, *(p[:4099] for p in probes[1:]), inplace, 4099)
    same = all(np.array_equal(got.view(np.int64), want[:got.size]) for got in (whole, single, inplace))
    return (fn, data) if same else None


def _probe(ufunc) -> np.ndarray:
    """Probe values: the ranges the kernels feed (softmax exponents ≤ 0, probabilities), edges and random draws."""
    rng = np.random.default_rng(20261126)
    parts = [np.linspace(-750.0, 710.0, 4099), -rng.exponential(3.0, 20000), rng.standard_normal(20000),
             np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 5e-324, 2.2e-308])]
    if ufunc is np.log:
        parts = [np.abs(p) for p in parts] + [rng.random(20000), np.geomspace(1e-300, 1e300, 4099)]
    if ufunc is np.log1p:
        parts = [np.maximum(p, -1.0) for p in parts] + [-rng.random(20000)]
    return np.ascontiguousarray(np.concatenate(parts))


def apply_py(fn: int, data: int, *rows_and_n) -> None:
    """``apply_py(fn, data, src, dst, n)``: dst[:n] = f(src[:n]); ``apply_py(fn, data, a, b, dst, n)``: dst[:n] =
    f(a[:n], b[:n]), through numpy's loop ``fn`` (plain Python, through ctypes: the doctest and `loop_of`)."""
    *rows, n = rows_and_n
    args = (ctypes.c_void_p * len(rows))(*(row.ctypes.data for row in rows))
    dims = (ctypes.c_ssize_t * 1)(n)
    steps = (ctypes.c_ssize_t * len(rows))(*(row.strides[0] for row in rows))
    _LOOP(int(fn))(ctypes.cast(args, ctypes.c_void_p), ctypes.cast(dims, ctypes.c_void_p),
                   ctypes.cast(steps, ctypes.c_void_p), ctypes.c_void_p(int(data) or None))


def scalar_py(fn: int, data: int, *xs: float) -> float:
    """numpy's loop ``fn`` on one number (or two): the plain-Python counterpart of `numba_scalar`."""
    rows = [np.array([x], dtype=float) for x in xs]
    out = np.empty(1)
    apply_py(fn, data, *rows, out, 1)
    return float(out[0])


def table() -> np.ndarray | None:
    """int64 [loop, data] pairs of `UFUNCS` for the kernels (positions `EXP`, `LOG`, `EXPM1`, `LOG1P`, `COS`,
    `SIN`, `ARCTAN2`), or None (once per process) when some loop cannot be read and checked here."""
    if not _TABLE:
        loops = [loop_of(getattr(np, name)) for name in UFUNCS]
        _TABLE.append(None if None in loops else np.array([v for pair in loops for v in pair], dtype=np.int64))
    return _TABLE[0]


def numba_apply(nin: int):
    """The compiled counterpart of `apply_py` for loops of ``nin`` inputs: a numba intrinsic ``apply(fn, data,
    src, dst, n)`` (``nin`` 1) or ``apply(fn, data, a, b, dst, n)`` (``nin`` 2) on C-contiguous 1-D float64 rows
    (a strided row does not type), n clamped to the shortest row.  numba is imported here, at the first kernel's
    binding, never at import."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def codegen(context, builder, signature, args):
        intp, i8p = context.get_value_type(types.intp), ir.IntType(8).as_pointer()
        arrays = zip(signature.args[2:-1], args[2:-1], strict=True)
        rows = [context.make_array(t)(context, builder, v) for t, v in arrays]
        count = context.cast(builder, args[-1], signature.args[-1], types.intp)
        for row in rows:                     # never past a row's end: n is clamped to the shortest row
            length = cgutils.unpack_tuple(builder, row.shape, 1)[0]
            count = builder.select(builder.icmp_signed(">", count, length), length, count)
        argv = cgutils.alloca_once(builder, i8p, size=len(rows))
        steps = cgutils.alloca_once(builder, intp, size=len(rows))
        for k, row in enumerate(rows):
            slot = ir.Constant(ir.IntType(32), k)
            builder.store(builder.bitcast(row.data, i8p), builder.gep(argv, [slot]))
            builder.store(cgutils.unpack_tuple(builder, row.strides, 1)[0], builder.gep(steps, [slot]))
        dims = cgutils.alloca_once(builder, intp)
        builder.store(count, dims)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.as_pointer(), intp.as_pointer(), intp.as_pointer(), i8p])
        fn, data = (context.cast(builder, v, t, types.int64) for v, t in zip(args[:2], signature.args[:2], strict=True))
        builder.call(builder.inttoptr(fn, fnty.as_pointer()), [argv, dims, steps, builder.inttoptr(data, i8p)])
        return context.get_dummy_value()

    def typed(fn, data, rows, n):
        if not all(isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.float64 and a.layout == "C"
                   for a in rows):
            return None
        return types.void(fn, data, *rows, n), codegen

    if nin == 1:
        return intrinsic(lambda typingctx, fn, data, src, dst, n: typed(fn, data, (src, dst), n))
    return intrinsic(lambda typingctx, fn, data, a, b, dst, n: typed(fn, data, (a, b, dst), n))


def numba_scalar(nin: int):
    """A numba intrinsic ``f(fn, data, x)`` (``nin`` 1) or ``f(fn, data, y, x)`` (``nin`` 2) → float64: numpy's
    loop ``fn`` on single numbers kept on the stack (no array allocated per call)."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def codegen(context, builder, signature, args):
        intp, i8p, dbl = context.get_value_type(types.intp), ir.IntType(8).as_pointer(), ir.DoubleType()
        cells = [cgutils.alloca_once(builder, dbl) for _ in range(nin + 1)]
        for cell, v, t in zip(cells, args[2:], signature.args[2:], strict=False):
            builder.store(context.cast(builder, v, t, types.float64), cell)
        argv = cgutils.alloca_once(builder, i8p, size=nin + 1)
        steps = cgutils.alloca_once(builder, intp, size=nin + 1)
        for k, cell in enumerate(cells):
            slot = ir.Constant(ir.IntType(32), k)
            builder.store(builder.bitcast(cell, i8p), builder.gep(argv, [slot]))
            builder.store(ir.Constant(intp, 8), builder.gep(steps, [slot]))
        dims = cgutils.alloca_once_value(builder, ir.Constant(intp, 1))
        fnty = ir.FunctionType(ir.VoidType(), [i8p.as_pointer(), intp.as_pointer(), intp.as_pointer(), i8p])
        fn, data = (context.cast(builder, v, t, types.int64) for v, t in zip(args[:2], signature.args[:2], strict=True))
        builder.call(builder.inttoptr(fn, fnty.as_pointer()), [argv, dims, steps, builder.inttoptr(data, i8p)])
        return builder.load(cells[-1])

    def typed(fn, data, xs):
        if not all(isinstance(x, (types.Float, types.Integer)) for x in xs):
            return None
        return types.float64(fn, data, *xs), codegen

    if nin == 1:
        return intrinsic(lambda typingctx, fn, data, x: typed(fn, data, (x,)))
    return intrinsic(lambda typingctx, fn, data, y, x: typed(fn, data, (y, x)))
