"""Hints for passes, read from the current case: which output, element and sample are worst.

Hints only order the candidates; the predicate decides. They come from `case.result` (the outcome
of the last accepted candidate) and `case.extra["signature"]` (the culprit op).
"""

from __future__ import annotations

import math

from numfuzz.corpus.case import Case, recorded_outcome
from numfuzz.judge.execute import flagged_output
from numfuzz.program.ops import infer_specs


def flagged_element(case: Case) -> tuple[int, tuple[int, ...], int] | None:
    """(output position, output shape, flat index of the worst element in its sample), from the hint."""
    if not case.result:
        return None
    errors = flagged_output(recorded_outcome(case))
    if errors is None or errors.index >= len(case.graph.outputs):
        return None
    shape = infer_specs(case.graph)[case.graph.outputs[errors.index]].shape
    numel = math.prod(shape)
    return errors.index, shape, (errors.worst_element % numel if numel and errors.worst_element >= 0 else -1)


def worst_sample(case: Case) -> int | None:
    errors = flagged_output(recorded_outcome(case)) if case.result else None
    if errors is None or errors.worst_element < 0 or errors.index >= len(case.graph.outputs):
        return None
    numel = math.prod(infer_specs(case.graph)[case.graph.outputs[errors.index]].shape)
    sample = errors.worst_element // numel if numel else -1
    return sample if 0 <= sample < len(case.samples) else None
