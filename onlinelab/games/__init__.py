"""The Fenchel-game family: two no-regret players whose averaged play minimises f,
and the recoveries (theory §3.3–3.5)."""
