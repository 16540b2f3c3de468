"""The core layer: the protocol nouns, the Learner/Environment bases, random streams, recording, the registry.

Nothing here imports any other onlinelab layer (docs/architecture.md).
"""
