"""Feedback timing: delayed feedback and asynchronous arrivals, as events of the one simpy loop (theory §8)."""
