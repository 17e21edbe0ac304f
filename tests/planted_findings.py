"""Findings of the planted executors, found by the fuzzer's own loop and minimised once per test run.

Each planted executor breaks one op in its own way; the generator draws that op among a few
others, so that there is something to minimise away. Thunder's cheap executors keep it fast.
"""

from __future__ import annotations

from functools import cache

from helpers import PLANTED_BUGS

from numfuzz.corpus.case import Case

# executor -> (the op it breaks, the symptom it shows)
PLANTED = {
    "bug_expm1": ("expm1", "less_accurate"),  # a cancelling approximation
    "bug_sum": ("sum", "less_accurate"),  # a low-precision accumulator
    "bug_silu": ("silu", "less_accurate"),  # one extra rounding
    "bug_softplus": ("softplus", "nonfinite"),  # overflow where eager is finite
    "bug_cast": ("cast", "less_accurate"),  # a round-trip cast elided
}
AROUND = ("add", "mul", "sub", "neg", "abs", "exp", "tanh", "cast", "unsqueeze", "cat", "maximum")
SEARCH = 300  # graphs to try before giving up


def planted_target(executor: str):
    from numfuzz.cli.setup import import_user_code
    from numfuzz.targets import resolve

    import_user_code(str(PLANTED_BUGS))
    return resolve(f"thunder:{executor}")


@cache
def found(executor: str) -> Case:
    """The first finding of `executor` with its expected symptom, as the campaign would save it."""
    from numfuzz.address import case_seed
    from numfuzz.corpus.make import make_case
    from numfuzz.program.generator import GenConfig
    from numfuzz.run_spec import RunSpec
    from numfuzz.runner.case_runner import run_case

    op, symptom = PLANTED[executor]
    target = planted_target(executor)
    config = GenConfig(max_nodes=6, max_dim=6, ops=tuple(sorted(set(AROUND) | {op})))
    for index in range(SEARCH):
        case = make_case(case_seed(11, index), RunSpec(target.name, "cpu", 8, imports=(str(PLANTED_BUGS),)), config)
        outcome = run_case(case, target, "cpu")
        if outcome.verdict.value == symptom and len(case.graph.nodes) >= 3:
            case.result = outcome.to_json()
            return case
    raise AssertionError(f"no {symptom} finding for {executor} in {SEARCH} graphs")


@cache
def minimized(executor: str):
    from numfuzz.reduce.minimize import minimize_case

    return minimize_case(found(executor), planted_target(executor), "cpu")
