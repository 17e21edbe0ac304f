"""Judging one case, in stages: execute (`compiled`, `execute`), oracle (`oracle`, `verdicts`), localise
(`localize`, `gradient_analysis`), explain (`evidence`, `causes`), measure (`rounding_error`,
`gradient_rounding`, the probes), rules (`facts`, `rules`: the final verdict), record (`signature`, `table`).
`analysis` runs the stages after the oracle in that order."""
