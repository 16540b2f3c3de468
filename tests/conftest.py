"""Shared test set-up: a non-interactive matplotlib backend, and small generators of random instances."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402


def random_spectraplex_eig(rng, R, d, spread=1.0):
    """Random eigenpairs (lam, U) of trace-one PD matrices; lam spread over ``spread`` decades."""
    lam = 10.0 ** (-spread * rng.random((R, d)))
    lam /= lam.sum(axis=1, keepdims=True)
    U = np.linalg.qr(rng.standard_normal((R, d, d)))[0]
    return lam, U


def random_symmetric(rng, d, norm=1.0):
    a = rng.standard_normal((d, d))
    a = a + a.T
    return norm * a / np.abs(np.linalg.eigvalsh(a)).max()
