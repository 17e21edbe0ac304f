"""Minimisation: the size order, the generic shrinker and its passes, and the minimiser that drives them on a target."""
