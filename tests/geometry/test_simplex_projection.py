"""The simplex projection's two threshold rules (theory §2, §5.6) against a sort reference and the KKT conditions.

Rows of NEWTON_FROM or more coordinates go through Michelot's iteration; the tests use such rows
(random, tied, constant, one dominant coordinate, all far below or above the simplex) and check them
against a reference written here and against the optimality conditions of the projection."""
from __future__ import annotations

import numpy as np
import pytest

from onlinelab.geometry import simplex_projection as sp
from onlinelab.geometry.domains import Simplex


def _reference(y):
    """Sort rule written out per row: the largest index ρ with u_ρ − (Σ_{i≤ρ} u_i − 1)/ρ > 0."""
    u = np.sort(y)[::-1]
    best = 0
    for j in range(1, len(u) + 1):
        if u[j - 1] - (u[:j].sum() - 1) / j > 0:
            best = j
    return np.maximum(y - (u[:best].sum() - 1) / best, 0.0)


def _assert_kkt(y, p, tol):
    """p ≥ 0, Σp = 1, and y − p = τ on the support, y ≤ τ off it (the projection's optimality conditions).

    Each p_i = y_i − τ carries a rounding error of order ε·|y_i|, hence the tolerance scaled by max |y|."""
    scale = 1 + np.abs(y).max()
    assert p.min() >= 0 and abs(p.sum() - 1) <= tol * scale
    on = p > 0
    tau = (y - p)[on]
    assert np.ptp(tau) <= tol * scale
    assert (y[~on] <= tau.mean() + tol * scale).all()


def _cases(n, rng):
    base = rng.standard_normal(n) / np.sqrt(n)
    yield "random", base
    yield "sparse step", np.where(rng.random(n) < 0.15, rng.random(n) / 100, 0.0) - 2e-3 * rng.random(n)
    yield "ties", np.round(base * 20) / 20
    yield "constant", np.full(n, 0.3)
    yield "one dominant", np.r_[5.0, np.zeros(n - 1)]
    yield "two tied leaders", np.r_[2.0, 2.0, -np.ones(n - 2)]
    yield "far below", base - 1e3
    yield "far above", base + 1e3
    yield "already on the simplex", rng.dirichlet(np.ones(n))
    yield "geometric", 2.0 ** -np.arange(n, dtype=float)


@pytest.mark.parametrize("n", [sp.NEWTON_FROM, 3000])
def test_newton_rule_matches_the_sort_reference_and_kkt(n):
    rng = np.random.default_rng(n)
    for name, y in _cases(n, rng):
        p = Simplex(n).project(y[None])[0]
        assert np.abs(p - _reference(y)).max() <= 1e-15 * (1 + np.abs(y).max()), name
        _assert_kkt(y, p, 1e-12)
        tau_sort = sp.sorted_threshold(y[None])[0, 0]                  # a running sum: rounding grows like n·ε
        assert abs(sp.newton_threshold(y) - tau_sort) <= n * 2.3e-16 * (1 + np.abs(y).max()), name


def test_rows_and_leading_axes_are_projected_independently():
    rng = np.random.default_rng(1)
    y = rng.standard_normal((2, 3, sp.NEWTON_FROM + 5)) / 30
    p = Simplex(y.shape[-1]).project(y)
    assert p.shape == y.shape
    for idx in np.ndindex(2, 3):
        assert np.abs(p[idx] - _reference(y[idx])).max() <= 1e-15


def test_sort_rule_finishes_when_the_step_cap_is_hit(monkeypatch):
    """After NEWTON_STEPS steps the sort rule on the remaining candidates gives the same, exact threshold."""
    rng = np.random.default_rng(2)
    y = rng.standard_normal(4000) / 40
    want = _reference(y)
    for cap in (0, 1, 2):
        monkeypatch.setattr(sp, "NEWTON_STEPS", cap)
        assert np.abs(Simplex(len(y)).project(y[None])[0] - want).max() <= 1e-15


def test_short_rows_use_the_sort_rule_and_match_the_reference():
    rng = np.random.default_rng(3)
    y = rng.standard_normal((200, 12))
    y[::4, :6] = y[::4, 6:]                                           # ties
    p = Simplex(12).project(y)
    for row, got in zip(y, p, strict=True):
        assert np.abs(got - _reference(row)).max() <= 1e-15
        _assert_kkt(row, got, 1e-12)


@pytest.mark.parametrize("n", [sp.NEWTON_FROM, 3000])
def test_a_guess_changes_no_threshold(n):
    """Guesses below the root, just above it, far above every coordinate, NaN or None: the unguessed τ."""
    rng = np.random.default_rng(n + 7)
    for name, y in _cases(n, rng):
        tau = sp.newton_threshold(y)
        for guess in (None, tau - 1.0, tau - 1e-6, tau, tau + 1e-9, tau + 1e-3, y.max() + 1.0, np.nan, np.inf):
            assert sp.newton_threshold(y, guess) == tau, (name, guess)
    y = np.r_[np.nan, rng.standard_normal(n - 1)]
    assert np.isnan(sp.newton_threshold(y, 0.0)) == np.isnan(sp.newton_threshold(y))


def test_a_simplex_reused_for_a_sequence_of_rows_projects_each_exactly():
    """The simplex guesses each row's τ from the last two (as the embedding game's OMD steps do): still exact."""
    rng = np.random.default_rng(5)
    n = 2000
    simplex, lam = Simplex(n), np.full(n, 1 / n)
    for step in range(30):
        y = lam - 1e-3 * rng.random(n) * (1 + step % 2)                # thresholds alternating between two levels
        lam = simplex.project(y[None])[0]
        assert np.abs(lam - _reference(y)).max() <= 1e-15
        _assert_kkt(y, lam, 1e-12)
