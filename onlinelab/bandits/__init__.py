"""The bandit family: experiments on bandits and delayed feedback (theory §8);
the bandit learners live in onlinelab.learners."""
