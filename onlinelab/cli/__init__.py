"""``onlinelab`` on the command line (``onlinelab.cli:main`` is the console script)."""
from onlinelab.cli.main import main

__all__ = ["main"]
