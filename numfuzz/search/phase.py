"""The search as a phase after judging: a clean verdict buys extra runs of the same compile on worse inputs.

What the search finds is only a proposal. The outcome is judged again with the found samples
by the usual rule, and they are kept (in `Outcome.searched`, for the case to store bit for bit)
only if that makes a finding.
"""

from __future__ import annotations

import numpy as np
import torch

from numfuzz.judge.compiled import CompiledProgram
from numfuzz.judge.execute import Outcome, Runs, judge_outputs
from numfuzz.judge.oracle import combine
from numfuzz.search.worst_inputs import Found, search_worst


def search_phase(program: CompiledProgram, samples: list[list[torch.Tensor]], outcome: Outcome, budget: int, rng: np.random.Generator) -> Outcome:
    """`outcome`, or the finding that `budget` more runs of `program` found; a non-clean outcome passes through."""
    if not budget or not outcome.clean or outcome.runs is None:
        return outcome
    found = search_worst(program, [program.on_device(sample) for sample in samples], budget, rng)
    outcome.run_s = program.run_s
    return with_found(program, outcome, found)


def with_found(program: CompiledProgram, outcome: Outcome, found: Found) -> Outcome:
    """`outcome` judged again with the samples a search found; unchanged unless they make a finding."""
    if not found.samples or outcome.runs is None:
        return outcome
    runs = outcome.runs
    more = Runs(runs.eager + found.eager, runs.reference + found.reference, runs.target + found.target)
    outputs = judge_outputs(more, program.out_dtypes)
    verdict = combine(outputs)
    if not verdict.is_finding:
        return outcome
    return Outcome(verdict, "", outputs, outcome.compile_s, outcome.run_s, outcome.trace, runs=more, searched=found.samples)
