"""The experiment layer: TOML configs, preflight, run kinds, sweeps, durable runs, plugins and conformance checks."""
