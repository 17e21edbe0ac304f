"""Judging one case, in stages: oracle (`verdicts`, `oracle`, `metadata`: ULP errors, the oracle's rule, the
metadata check), execute (`compiled`, `execute`, `second_size`: runs judged by the oracle), locate (`localize`),
explain (`evidence`, `causes`), measure (`rounding_error`, `gradient_rounding`, the probes), the findings a
cause decides whole (`stale_scalar`, `position_analysis`, `gradient_analysis`: each locates, explains and
measures its own kind), `cause_tests` (every cause's test, cost and stage, in order), rules (`rules`: the
final verdict), record (`signature`, `table`). The records every stage fills or reads come first:
`cause` (each cause), `bounds` and `rounding_record` (the documented bounds, and the typed rounding-error
record judged against them) and `facts` (the typed analysis a finding carries in its outcome). `analysis`
runs the stages after the oracle in that order; no module imports from a later stage."""
