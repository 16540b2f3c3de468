"""The iterative top-k eigenvalue sum (onlinelab.geometry.topk) row by row: a replicate's sum and warm basis are
those it gets alone, and the sum is numpy's eigvalsh to the solver's tolerance."""
import numpy as np
import pytest

from onlinelab.geometry.topk import LowerSymmetric, top_k_sum


def _grams(R=6, d=160, seed=0):
    """Gram matrices of very different spectra (a strong spike, a flat one, ...): their rows converge at different
    sweeps and want different filter degrees."""
    rs = np.random.default_rng(seed)
    X = rs.normal(size=(R, d, 40)) * rs.exponential(1.0, size=(R, 1, 40)) ** rs.uniform(0.5, 4, size=(R, 1, 1))
    return X @ np.swapaxes(X, 1, 2)


@pytest.mark.parametrize("wrap", [False, True], ids=["dense", "lower-symmetric"])
def test_a_row_is_solved_as_it_would_be_alone(wrap):
    """Before, every row took one filter degree (the largest any row needed) and every row kept iterating until
    the last converged, so replicate 0's comparator changed with R in the last bits."""
    G, k = _grams(), 3
    make = (lambda g: LowerSymmetric(np.tril(g))) if wrap else (lambda g: g)
    sums, basis = top_k_sum(make(G), k, None)
    for r in range(G.shape[0]):
        alone, alone_basis = top_k_sum(make(G[r:r + 1].copy()), k, None)
        assert sums[r] == alone[0]
        np.testing.assert_array_equal(basis[r], alone_basis[0])
    warm, _ = top_k_sum(make(G), k, basis)                       # a warm start: still row by row
    for r in range(G.shape[0]):
        assert warm[r] == top_k_sum(make(G[r:r + 1].copy()), k, basis[r:r + 1].copy())[0][0]


def test_the_sum_is_the_top_eigenvalues():
    G, k = _grams(seed=1), 3
    want = np.linalg.eigvalsh(G)[:, -k:].sum(axis=1)
    np.testing.assert_allclose(top_k_sum(G, k, None)[0], want, rtol=1e-10)
