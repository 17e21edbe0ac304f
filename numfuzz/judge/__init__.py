"""Judging one case: running it on eager, float64 and a target; the oracle, verdicts and signatures."""
