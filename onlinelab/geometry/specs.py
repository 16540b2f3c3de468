"""Decision domains from spec strings: ``"simplex"``, ``"ball:2"``, ``"box:-1:1"``, ``"fantope:3"`` (theory §2–§3).

>>> make_domain("ball:2", 3).kind
'ball'
"""
from __future__ import annotations

from onlinelab.errors import DomainError, UnknownNameError, did_you_mean
from onlinelab.geometry import spectral
from onlinelab.geometry.domains import (
    SPECTRAL_KINDS,
    VECTOR_KINDS,
    Ball,
    Box,
    CappedSimplex,
    Domain,
    Euclidean,
    Simplex,
)


def _numbers(spec: str, parts: list[str], count: int) -> list[float]:
    if len(parts) > count:
        raise DomainError(f"domain {spec!r} has {len(parts)} parameters, expected at most {count}")
    try:
        return [float(p) for p in parts]
    except ValueError:
        raise DomainError(f"domain {spec!r} has a non-numeric parameter; write e.g. 'ball:2' or 'box:-1:1'") from None


def make_domain(spec, n: int):
    """Build a domain from a spec string (or return a Domain unchanged after a dimension check).

    Vector: ``simplex``, ``ball[:radius]``, ``box[:lo:hi]``, ``euclidean``, ``capped-simplex[:cap[:total]]``.
    Spectral (d × d symmetric matrices): ``spectraplex``, ``fantope[:k]`` ({0 ⪯ P ⪯ I, tr P = k}),
    ``capped-density[:m]`` ({0 ⪯ W ⪯ I/m, tr W = 1}).

    Parameters
    ----------
    spec : str or Domain or SpectralDomain
        A spec string such as ``"simplex"``, ``"ball:2"``, ``"box:-1:1"``, ``"fantope:3"``, or a domain.
    n : int
        Dimension (of the vectors, or d of the d × d matrices).
    """
    if isinstance(spec, (Domain, spectral.SpectralDomain)):
        if spec.n != n:
            raise DomainError(f"domain {spec!r} has dimension {spec.n} but the environment has d = {n}")
        return spec
    if not isinstance(spec, str):
        raise DomainError(f"domain must be a string such as 'simplex' or 'ball:1', got {spec!r}")
    kind, *parts = spec.split(":")
    if kind == "simplex":
        _numbers(spec, parts, 0)
        return Simplex(n)
    if kind == "ball":
        return Ball(n, *_numbers(spec, parts, 1))
    if kind == "box":
        return Box(n, *_numbers(spec, parts, 2))
    if kind == "euclidean":
        _numbers(spec, parts, 0)
        return Euclidean(n)
    if kind == "capped-simplex":
        return CappedSimplex(n, *_numbers(spec, parts, 2))
    if kind in SPECTRAL_KINDS:
        return spectral.make_spectral(kind, _numbers(spec, parts, 1), n)
    raise UnknownNameError(f"unknown domain {spec!r}{did_you_mean(kind, VECTOR_KINDS + SPECTRAL_KINDS)}")
