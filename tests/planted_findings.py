"""Findings of the planted executors, found by the fuzzer's own loop and minimised once per test run.

Each planted executor breaks one op in its own way; the generator draws that op among a few
others, so that there is something to minimise away. Thunder's cheap executors keep it fast.
A finding is the first drawn case that holds what its bug needs (`planted_bug_shows`) and shows the
symptom: whichever stream the cases come from, not the cases one stream once drew.
"""

from __future__ import annotations

from functools import cache

from helpers import PLANTED_BUGS, planted_bug_shows

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
SEARCH = 3000  # graphs to draw before giving up (only those that hold the planted op with what it needs are run)


def planted_target(executor: str):
    from numfuzz.cli.setup import import_user_code
    from numfuzz.targets import resolve

    import_user_code(str(PLANTED_BUGS))
    return resolve(f"thunder:{executor}")


def _one_cause(executor: str, graph) -> bool:
    """Whether the graph leaves the planted bug one cause to be found: a narrow sum of a value a narrowing cast made could as
    well be that cast dropped (where the sum cancels after, the target is as far from the program with the cast as without)."""
    from numfuzz.judge.cast_dropped import narrowing_casts

    n_in = len(graph.inputs)
    sums = [n for n in graph.nodes if n.op == "sum"]
    return executor != "bug_sum" or all(n.args[0] < n_in or not narrowing_casts(graph, n.args[0]) for n in sums)


@cache
def found(executor: str) -> Case:
    """The first finding of `executor` with its expected symptom, as the campaign would save it."""
    from numfuzz.address import case_seed
    from numfuzz.corpus.make import make_case
    from numfuzz.program.generator import GenConfig, generate
    from numfuzz.run_spec import RunSpec
    from numfuzz.runner.case_runner import run_case

    op, symptom = PLANTED[executor]
    target = planted_target(executor)
    config = GenConfig(max_nodes=6, max_dim=6, ops=tuple(sorted(set(AROUND) | {op})))
    for index in range(SEARCH):
        graph = generate(case_seed(11, index), config)[0]  # the case's graph, drawn without its samples
        if len(graph.nodes) < 3 or not planted_bug_shows(executor, graph) or not _one_cause(executor, graph):
            continue
        case = make_case(case_seed(11, index), RunSpec(target.name, "cpu", 8, imports=(str(PLANTED_BUGS),)), config)
        outcome = run_case(case, target, "cpu")
        if outcome.verdict.value == symptom:
            case.result = outcome.to_json()
            return case
    raise AssertionError(f"no {symptom} finding for {executor} in {SEARCH} graphs")


@cache
def minimized(executor: str):
    from numfuzz.reduce.minimize import minimize_case

    return minimize_case(found(executor), planted_target(executor), "cpu")
