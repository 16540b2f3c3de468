"""max_distortion_ on badly scaled data and the certificate's reported tolerance (issue 20 item 6).

Independent computation: the distortion of each pair, 1 − ‖Vᵀ(p_i − p_j)‖²/‖p_i − p_j‖², brute force in extended
precision (np.longdouble, 64-bit mantissa) from the points as given, not centred.  The tolerance: centring
and subtracting points of norm up to ρ·D_ij costs the unit difference about 2ε·ρ relative, its squared
projection twice that, plus (d + k)·ε for the products; 4ε·ρ_max + (d + k)·ε covers it (ρ_max ≈ 1.7e7 here).
"""
import warnings

import numpy as np
import pytest

from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.pairs import UnitPairs

EPS = np.finfo(float).eps


def _brute(points, V):
    P, W = points.astype(np.longdouble), V.astype(np.longdouble)
    i, j = np.triu_indices(len(P), 1)
    D = P[i] - P[j]
    return float(1 - (np.sum((D @ W) ** 2, axis=1) / np.sum(D * D, axis=1)).min())


def _rho_max(points):
    Pc = points - points.mean(axis=0)
    i, j = np.triu_indices(len(points), 1)
    n = np.linalg.norm(Pc, axis=1)
    return float(((n[i] + n[j]) / np.linalg.norm(points[i] - points[j], axis=1)).max())


@pytest.mark.parametrize("offset", [0.0, 1e4, 1e7])
def test_max_distortion_matches_extended_precision_brute_force_on_clusters_far_apart(offset):
    g = np.random.default_rng(0)
    pts = np.concatenate([g.normal(size=(8, 5)), g.normal(size=(8, 5)) + offset])
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # no "a bug" bracket breach from rounding
        emb = NearIsometricEmbedding(n_components=2, T=100).fit(pts)
    d, k = 5, 2
    tol = 4 * EPS * _rho_max(pts) + (d + k) * EPS
    assert abs(emb.max_distortion_ - _brute(pts, emb.components_)) <= tol
    # the pair path (used every round) agrees with the direct products to its reported rounding bound
    pairs = UnitPairs.from_points(pts)
    direct = np.sum((pairs.X @ emb.components_) ** 2, axis=1)
    assert np.max(np.abs(pairs.captured(emb.components_) - direct)) <= pairs.rounding(k)
    if offset == 1e7:   # clusters 10⁷ apart: the within-cluster pairs are the ones computed directly
        assert pairs.doubtful(k).size == 2 * 8 * 7 // 2


def test_at_k_at_least_the_rank_a_rounding_level_excess_is_reported_with_its_tolerance():
    g = np.random.default_rng(3)
    pts = g.normal(size=(10, 2)) @ g.normal(size=(2, 5))     # rank 2 in ℝ⁵: p⋆ = 0 for k ≥ 2
    emb = NearIsometricEmbedding(n_components=3, T=50).fit(pts)
    assert abs(_brute(pts, emb.components_)) <= 4 * EPS * _rho_max(pts) + 8 * EPS   # p⋆ = 0 reached
    cert = emb.certificate_
    assert cert["relative_tol"] == 1e-9 and 0 < cert["rounding"] < 1e-12
    assert cert["tol_there"] >= 1e-9 + 2 * cert["rounding"]
    assert 0 < cert["closest_excess"] <= cert["tol_there"]        # dual_bound_ > max_distortion_ by rounding
    assert emb.dual_bound_ - emb.max_distortion_ > 0
    notes = emb.result_.notes()
    assert emb.result_.alarms() == [] and len(notes) == 1        # a note, not an alarm (exit status stays 0)
    assert notes[0].startswith("note: the bracket holds only to rounding")
    assert f"{cert['closest_excess']:.2g}" in notes[0]
    assert notes[0] in emb.result_.summary_text()
