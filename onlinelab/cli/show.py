"""``onlinelab show NAME``: a learner's, environment's or run-kind entry's parameters, defaults, docstring, bounds.

>>> print(show("meg").splitlines()[0])
learner 'meg' (onlinelab.learners.meg.MEG)
"""
from __future__ import annotations

import inspect

from onlinelab.errors import UnknownNameError, did_you_mean


def _params(cls) -> list[str]:
    sig = inspect.signature(cls.__init__)
    rows = []
    for p in sig.parameters.values():
        if p.name == "self" or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue
        if p.default is inspect.Parameter.empty:
            default = "required"
        else:
            default = "auto" if p.default is None else repr(p.default)
        rows.append(f"  {p.name:16s} {default}")
    return rows or ["  (none)"]


def _learner_bounds(cls) -> list[str]:
    """The bounds the default learner states on the first environment it fits (name, reference, holds?)."""
    from onlinelab.core.compat import declarer, mismatch
    from onlinelab.core.protocol import Context
    from onlinelab.core.registry import environment_class, environment_names, make_environment
    reference = getattr(declarer(cls), "reference_environment", None)
    if isinstance(reference, property):   # a property of an instance (delay copies: its inner learner's)
        try:
            reference = cls().reference_environment
        except Exception:  # noqa: BLE001
            reference = None
    names = [reference, "spiked-covariance"] + environment_names()
    env_name = next((n for n in names if n and mismatch(cls, environment_class(n)) is None), None)
    if env_name is None:
        return ["  (no registered environment fits it)"]
    env = make_environment(env_name)
    ctx = Context(d=env.d, T=1000, replicates=1, loss_bound=env.loss_bound, psd=env.psd, adaptive=env.adaptive,
                  fro_sq_mean=env.fro_sq_mean, domain=getattr(env, "domain", "spectraplex"))
    try:
        bounds = cls().bounds(ctx)
    except Exception as exc:  # a learner whose defaults need more context says why
        return [f"  (on {env_name!r}: {exc})"]
    rows = [f"  on {env_name!r} (d = {env.d}, T = 1000):"]
    for b in bounds:
        holds = "assumptions hold" if getattr(b, "holds", True) else "n/a here (an assumption fails)"
        rows.append(f"    {b.name}  [{getattr(b, 'ref', '')}]  {holds}")
    return rows if bounds else ["  (states no bound)"]


def _declarations(cls, kind: str) -> list[str]:
    if kind == "learner":
        from onlinelab.core.compat import DECLARATIONS, declarer
        keys, cls = DECLARATIONS, declarer(cls)   # declarations that are properties are read from a default instance
    else:
        keys = ("domain", "psd", "loss_bound", "adaptive", "history_window")
    out = []
    for key in keys:
        val = getattr(cls, key, None)
        if key == "domain":
            from onlinelab.core.compat import env_domain
            val = env_domain(cls)
        out.append(f"  {key:16s} {sorted(val) if isinstance(val, frozenset) else val!r}")
    return out


def show(name: str) -> str:
    """Describe the registered learner, environment or run-kind entry ``name``.

    Parameters
    ----------
    name : str
        A name printed by ``onlinelab list``.
    """
    from onlinelab.core.registry import environment_class, environment_names, learner_class, learner_names
    from onlinelab.experiment.kinds import listings
    if name in learner_names() or name in environment_names():
        kind = "learner" if name in learner_names() else "environment"
        cls = learner_class(name) if kind == "learner" else environment_class(name)
        lines = [f"{kind} {name!r} ({cls.__module__}.{cls.__qualname__})", "", inspect.getdoc(cls) or "(no docstring)",
                 "", "parameters (default):", *_params(cls), "", "declares:", *_declarations(cls, kind)]
        if kind == "learner":
            lines += ["", "bounds:", *_learner_bounds(cls)]
        return "\n".join(lines)
    entries = {n: (title, text) for title, rows in listings() for n, text in rows}
    if name in entries:
        title, text = entries[name]
        return f"{title} entry {name!r}\n\n{text}"
    known = learner_names() + environment_names() + list(entries)
    raise UnknownNameError(f"unknown name {name!r}{did_you_mean(name, known)}; `onlinelab list` prints the names")
