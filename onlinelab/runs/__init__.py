"""Runs: the Result of a run, its run directory, checkpoints, reports, figures, tables and compare."""
