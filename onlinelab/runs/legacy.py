"""Module paths of the layout before 0.2 (flat ``onlinelab/*.py``), for reading checkpoints written then.

A checkpoint names each object's class as ``"module:qualname"``; `onlinelab.runs.checkpoint` maps an old
path through this table and then looks the new path up in its allowlist (`onlinelab.runs._allowlist`), so run
directories interrupted under the old layout still resume (tests/runs/test_legacy_runs.py resumes the fixtures in
tests/fixtures/legacy_runs/, written by that code).  A rename only rewrites a string: an old path that maps to
something off the allowlist is refused like any other name, never imported.

>>> renamed("onlinelab.rng:BatchRNG")
'onlinelab.core.rng:BatchRNG'
"""
from __future__ import annotations

# old module → new module (the defining file, for packages that re-export)
MODULES = {
    "onlinelab.align": "onlinelab.runs.align",
    "onlinelab.arrivals": "onlinelab.feedback.arrivals",
    "onlinelab.bandit_delay_experiments": "onlinelab.bandits.delay_experiments",
    "onlinelab.base": "onlinelab.core.base",
    "onlinelab.blocks": "onlinelab.core.blocks",
    "onlinelab.bounds": "onlinelab.bounds.base",
    "onlinelab.bregman.config": "onlinelab.experiment.kinds.bregman",
    "onlinelab.bregman.momentum": "onlinelab.geometry.momentum",
    "onlinelab.checkpoint": "onlinelab.runs.checkpoint",
    "onlinelab.checks": "onlinelab.experiment.checks",
    "onlinelab.cli": "onlinelab.cli.main",
    "onlinelab.cli_errors": "onlinelab.cli.errors",
    "onlinelab.compare": "onlinelab.runs.compare",
    "onlinelab.compat": "onlinelab.core.compat",
    "onlinelab.config": "onlinelab.experiment.config",
    "onlinelab.data_losses": "onlinelab.losses.data",
    "onlinelab.datasets": "onlinelab.losses.datasets",
    "onlinelab.delay_bounds": "onlinelab.bounds.delay",
    "onlinelab.delays": "onlinelab.feedback.delays",
    "onlinelab.domains": "onlinelab.geometry.domains",
    "onlinelab.durable": "onlinelab.experiment.durable",
    "onlinelab.embedding": "onlinelab.embedding.embed",
    "onlinelab.embedding_baselines": "onlinelab.embedding.baselines",
    "onlinelab.embedding_bounds": "onlinelab.embedding.bounds",
    "onlinelab.embedding_config": "onlinelab.experiment.kinds.embedding",
    "onlinelab.embedding_dual": "onlinelab.embedding.dual",
    "onlinelab.embedding_game": "onlinelab.embedding.game",
    "onlinelab.embedding_pairs": "onlinelab.embedding.pairs",
    "onlinelab.embedding_result": "onlinelab.embedding.result",
    "onlinelab.experiments": "onlinelab.experiment.default",
    "onlinelab.fenchel": "onlinelab.losses.fenchel",
    "onlinelab.figures": "onlinelab.runs.figures",
    "onlinelab.game": "onlinelab.games.game",
    "onlinelab.game_config": "onlinelab.experiment.kinds.game",
    "onlinelab.game_result": "onlinelab.runs.game_result",
    "onlinelab.linalg": "onlinelab.geometry.linalg",
    "onlinelab.losses": "onlinelab.losses.matrix",
    "onlinelab.metrics": "onlinelab.core.metrics",
    "onlinelab.mirror": "onlinelab.geometry.mirror",
    "onlinelab.oco_bounds": "onlinelab.bounds.oco",
    "onlinelab.plugins": "onlinelab.experiment.plugins",
    "onlinelab.preflight": "onlinelab.experiment.preflight",
    "onlinelab.progress": "onlinelab.core.progress",
    "onlinelab.projection_losses": "onlinelab.losses.projection",
    "onlinelab.protocol": "onlinelab.core.protocol",
    "onlinelab.recoveries": "onlinelab.games.recoveries",
    "onlinelab.registry": "onlinelab.core.registry",
    "onlinelab.report": "onlinelab.runs.report",
    "onlinelab.result": "onlinelab.runs.result",
    "onlinelab.rng": "onlinelab.core.rng",
    "onlinelab.run_kinds": "onlinelab.experiment.kinds",
    "onlinelab.show": "onlinelab.cli.show",
    "onlinelab.simplex_projection": "onlinelab.geometry.simplex_projection",
    "onlinelab.simulator": "onlinelab.simulation.simulator",
    "onlinelab.slot": "onlinelab.core.slot",
    "onlinelab.spectral": "onlinelab.geometry.spectral",
    "onlinelab.storage": "onlinelab.runs.storage",
    "onlinelab.streaming": "onlinelab.learners.streaming_base",
    "onlinelab.streaming_losses": "onlinelab.losses.streaming",
    "onlinelab.subspace_metrics": "onlinelab.geometry.subspace_metrics",
    "onlinelab.sweeps": "onlinelab.experiment.sweeps",
    "onlinelab.tables": "onlinelab.runs.tables",
    "onlinelab.topk": "onlinelab.geometry.topk",
    "onlinelab.validation": "onlinelab.core.validation",
    "onlinelab.vector_losses": "onlinelab.losses.vector",
}

# old "module:name" → new "module:name", for names that moved on their own
NAMES = {
    "onlinelab.bregman.svm:hinge_argmin": "onlinelab.losses.hinge:hinge_argmin",
    "onlinelab.domains:make_domain": "onlinelab.geometry.specs:make_domain",
    "onlinelab.embedding_dual:unit_differences": "onlinelab.embedding.pairs:unit_differences",
    "onlinelab.game:_Player": "onlinelab.simulation.players:Player",
    "onlinelab.game:run_rounds": "onlinelab.simulation.players:run_rounds",
    "onlinelab.losses:DenseLoss": "onlinelab.losses.matrix:DenseLoss",
    "onlinelab.losses:FactoredLoss": "onlinelab.losses.matrix:FactoredLoss",
    "onlinelab.losses:MatrixLoss": "onlinelab.losses.matrix:MatrixLoss",
    "onlinelab.manifold.experiment:listing": "onlinelab.experiment.kinds.manifold:listing",
    "onlinelab.manifold.experiment:run_outcome": "onlinelab.experiment.kinds.manifold:run_outcome",
    "onlinelab.simulator:_checkpoints": "onlinelab.core.schedule:_checkpoints",
    "onlinelab.simulator:default_checkpoints": "onlinelab.core.schedule:default_checkpoints",
    "onlinelab.simulator:label_of": "onlinelab.core.base:label_of",
    "onlinelab.streaming:check_rank": "onlinelab.geometry.subspaces:check_rank",
    "onlinelab.streaming:orthonormalize": "onlinelab.geometry.subspaces:orthonormalize",
    "onlinelab.streaming:polar": "onlinelab.geometry.subspaces:polar",
    "onlinelab.streaming:random_basis": "onlinelab.geometry.subspaces:random_basis",
}


def renamed(name: str) -> str:
    """The current ``"module:qualname"`` of a path written under the old layout (unchanged if it is current)."""
    if name in NAMES:
        return NAMES[name]
    module, sep, qual = name.partition(":")
    return MODULES.get(module, module) + sep + qual
