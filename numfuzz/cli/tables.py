"""Human-readable tables of outcomes; they live in `numfuzz.judge.table`, which `numfuzz.check` uses too."""

from numfuzz.judge.table import outcome_table

__all__ = ["outcome_table"]
