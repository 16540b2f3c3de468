"""Geometry: decision domains, mirror maps, projections, eigen-helpers and subspace metrics (theory §2–§4)."""
