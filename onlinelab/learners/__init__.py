"""Built-in learners; importing this package registers them by name (see ``onlinelab list``).

Each module holds one family.  Add a module here and import it below to make it built in.
"""
from .logdet import LogDetOMD, LogDetState
from .meg import MEG, MEGState

__all__ = ["LogDetOMD", "LogDetState", "MEG", "MEGState"]
