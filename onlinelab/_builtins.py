"""What ships with onlinelab, imported on the first registry lookup
(see `onlinelab.core.registry.set_builtin_loader`).

Importing a module registers what it defines: the built-in learners, every module of the environment
package (a user's file dropped there included) and the run kinds with their result classes.
"""
from __future__ import annotations


def load() -> None:
    """Import the built-in learners, environments and run kinds."""
    import onlinelab.environments  # noqa: F401
    import onlinelab.experiment.kinds  # noqa: F401
    import onlinelab.learners  # noqa: F401
