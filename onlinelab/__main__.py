"""``python -m onlinelab``: the same command line as ``onlinelab``."""
import sys

from onlinelab.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
