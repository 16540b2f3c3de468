"""How `Result.concat` joins results that differ in horizon, seed or number of replicates.

Two results of different seeds both have a "replicate 0"; pooled naively, one table would mix
two different runs under one key, and two horizons would put curves of different runs on one
axis.  ``align_results`` refuses that unless told how to align:

* ``"replicates"`` — the parts are more replicates of one experiment (same T): replicate
  numbers are shifted so that they stay distinct, and the seeds are listed in the metadata;
* ``"label"`` — the parts are different runs to compare: every learner label gets the suffix
  ``[T=…, seed=…]`` (plus the run's name when given), so each run keeps its own rows.

>>> import onlinelab as ol
>>> a = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, seed=1)
>>> b = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, seed=2)
>>> ol.Result.concat([a, b], align="replicates").metrics.replicate.nunique()
2
"""
from __future__ import annotations

from onlinelab.errors import ConfigError

ALIGN = (None, "replicates", "label")


def _key(result) -> tuple:
    m = result.meta
    seed = m.get("seed")
    return m.get("T"), tuple(seed) if isinstance(seed, list) else seed, m.get("replicates")


def relabel(result, suffix: str):
    """A copy of ``result`` with every learner label ``x`` renamed ``x + suffix`` (metrics and metadata)."""
    meta = dict(result.meta)
    rename = {label: f"{label}{suffix}" for label in meta.get("learners", {})}
    metrics = result.metrics.copy()
    metrics["learner"] = metrics["learner"].map(lambda x: rename.get(x, f"{x}{suffix}"))
    meta["learners"] = {rename[k]: val for k, val in meta.get("learners", {}).items()}
    meta["bounds"] = [{**b, "learner": rename.get(b["learner"], b["learner"])} for b in meta.get("bounds", [])]
    meta["timings"] = {env: {**tm, "learner_s": {rename.get(k, k): x for k, x in tm.get("learner_s", {}).items()}}
                       for env, tm in meta.get("timings", {}).items()}
    meta["pseudo_regret"] = {env: {rename.get(k, k): x for k, x in pr.items()}
                             for env, pr in meta.get("pseudo_regret", {}).items()}
    return type(result)(metrics, meta)


def align_results(results: list, align: str | None, names: list[str] | None = None) -> list:
    """Check that ``results`` may be concatenated as they are, or align them as ``align`` says."""
    if align not in ALIGN:
        raise ConfigError(f"align must be one of None, 'replicates', 'label', got {align!r}")
    if not results:
        raise ConfigError("Result.concat needs at least one result")
    keys = [_key(r) for r in results]
    if align is None:
        if len(set(keys)) > 1:
            raise ConfigError("cannot concatenate results with different horizons, seeds or replicate counts "
                              f"((T, seed, replicates) = {sorted(set(keys), key=repr)}); pass align='replicates' "
                              "to pool them as more replicates (same T) or align='label' to keep each run apart")
        return results
    if align == "label":
        out = []
        for i, (r, (T, seed, _)) in enumerate(zip(results, keys, strict=True)):
            tag = f"{names[i]}: " if names else ""
            out.append(relabel(r, f" [{tag}T={T}, seed={seed}]"))
        return out
    if len({k[0] for k in keys}) > 1:
        raise ConfigError(f"align='replicates' pools runs of one horizon, got T = {sorted({k[0] for k in keys})}; "
                          "use align='label' to compare runs of different horizons")
    out, offset = [], 0
    seeds = [k[1] for k in keys]
    total = sum(int(r.metrics.replicate.max()) + 1 if len(r.metrics) else 0 for r in results)
    for r in results:
        metrics = r.metrics.copy()
        metrics["replicate"] = metrics["replicate"] + offset
        offset += int(r.metrics.replicate.max()) + 1 if len(r.metrics) else 0
        out.append(type(r)(metrics, {**r.meta, "seed": seeds, "replicates": total}))
    return out
