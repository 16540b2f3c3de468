"""The constrained quadratic minimiser under the comparators (onlinelab.losses.quadratic_solve): each replicate's row
is solved as it would be alone, and the solution is the constrained minimiser (checked by its optimality)."""
import numpy as np
import pytest

from onlinelab.geometry.domains import Ball, Box, Simplex
from onlinelab.losses.quadratic_solve import quadratic_argmin


def _problems(seed, R=6, n=5):
    """R convex quadratics ½xᵀAx + bᵀx of very different scales (so their rows converge at different steps)."""
    rs = np.random.default_rng(seed)
    M = rs.normal(size=(R, n, n)) * rs.exponential(1.0, size=(R, 1, 1)) ** 1.5
    A = M @ np.swapaxes(M, 1, 2) + np.eye(n) * rs.uniform(0.001, 1.0, size=(R, 1, 1))
    b = rs.normal(size=(R, n)) * rs.exponential(5.0, size=(R, 1)) ** 3
    return A, b


@pytest.mark.parametrize("domain", [Simplex(5), Box(5), Ball(5, radius=0.5)], ids=["simplex", "box", "ball"])
def test_a_row_is_solved_as_it_would_be_alone(domain):
    """Momentum restarts and the stopping test are per row (FISTA: simplex, box), and so is the ball's bisection on
    the multiplier: before, one row's restart reset every row's momentum and all rows ran until the slowest stopped,
    so replicate 0's comparator changed with R (by up to 5e-15; on the ball 42 of 64 rows, by up to 3e-16)."""
    A, b = _problems(0, R=64)
    together = quadratic_argmin(A, b, domain)
    alone = np.stack([quadratic_argmin(A[i:i + 1], b[i:i + 1], domain)[0] for i in range(len(b))])
    np.testing.assert_array_equal(together, alone)


@pytest.mark.parametrize("domain", [Simplex(5), Box(5)], ids=["simplex", "box"])
def test_the_solution_is_the_constrained_minimiser(domain):
    """Projected-gradient fixed point: x = Π(x − (Ax + b)/L) to rounding, and no feasible vertex or random
    feasible point does better."""
    A, b = _problems(1)
    x = quadratic_argmin(A, b, domain)
    L = np.linalg.eigvalsh(A)[:, -1][:, None]
    np.testing.assert_allclose(domain.project(x - (np.einsum("rij,rj->ri", A, x) + b) / L), x, atol=1e-9)
    value = 0.5 * np.einsum("ri,rij,rj->r", x, A, x) + np.einsum("ri,ri->r", b, x)
    rs = np.random.default_rng(2)
    for _ in range(200):
        z = domain.project(x + rs.normal(size=x.shape))
        assert (0.5 * np.einsum("ri,rij,rj->r", z, A, z) + np.einsum("ri,ri->r", b, z) >= value - 1e-9).all()
