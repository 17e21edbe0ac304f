"""Judging one case, in stages: oracle (`verdicts`, `oracle`: ULP errors and the oracle's rule), execute
(`compiled`, `execute`: runs judged by the oracle), locate (`localize`, `gradient_analysis`), explain
(`evidence`, `causes`), measure (`rounding_error`, `gradient_rounding`, the probes), rules (`rules`: the
final verdict), record (`signature`, `table`). The records every stage fills or reads come first:
`cause` (each cause), `bounds` and `rounding_record` (the documented bounds, and the typed rounding-error
record judged against them) and `facts` (the typed analysis a finding carries in its outcome). `analysis`
runs the stages after the oracle in that order; no module imports from a later stage."""
