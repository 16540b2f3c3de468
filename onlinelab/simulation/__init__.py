"""The simulation layer: ``simulate`` (learners against environments) and the ordered-players loop of games."""
