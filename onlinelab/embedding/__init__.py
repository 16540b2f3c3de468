"""The near-isometric embedding family: Lagrange duality played as a game (theory §5, docs/theory/05-near-isometric.md).

``NearIsometricEmbedding`` (`onlinelab.embedding.embed`) is the estimator; the dual, the pairs, the game,
the baselines, the guarantees and the result each have a module of their own.
"""
from onlinelab.embedding.embed import NearIsometricEmbedding, resolve_eta
from onlinelab.embedding.pairs import unit_differences

__all__ = ["NearIsometricEmbedding", "resolve_eta", "unit_differences"]
