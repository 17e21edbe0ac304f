"""The words a finding's detail names its values by: each output by the op that makes it, what the target returned
unlike eager, which integer output differs and where a non-finite class is lost. The words stay the same from one
program to the next (a fingerprint keeps them), so one difference of policy is one group whatever the sizes.
"""

from __future__ import annotations

import torch

from numfuzz.judge.exact_outputs import exact_words
from numfuzz.judge.nonfinite_class import changes_text
from numfuzz.judge.oracle import OutputErrors
from numfuzz.judge.verdicts import Verdict
from numfuzz.program.ir import Graph
from numfuzz.program.values import dtype_name


def exact_mismatch_detail(graph: Graph, outputs: list[OutputErrors]) -> str:
    """Each integer output that differs from eager's, named by its op."""
    names = output_names(graph)
    return "; ".join(exact_words(names[o.index], o) for o in outputs if o.verdict == Verdict.EXACT_MISMATCH.value and o.index < len(names))


def class_lost_detail(graph: Graph, outputs: list[OutputErrors]) -> str:
    """Where the target loses a non-finite class, per value named by its op: `output 0 (mean): 3 elements where ...`."""
    label = lambda k: f"output {k} ({_value_name(graph, k)})" if k < len(graph.outputs) else _value_name(graph, k)  # noqa: E731
    return "; ".join(f"{label(o.index)}: {changes_text(o.class_changes)}" for o in outputs if o.class_lost)


def mismatch_text(graph: Graph, eager: tuple, got: tuple) -> str:
    """What the target returned unlike eager, per value and named by the op that made it: `nll_loss: bf16 where eager gives fp32`.

    The words stay the same from one program to the next (a crash's fingerprint keeps them), so one
    policy difference is one group whatever the sizes."""
    return mismatch_words(graph, [_described(e) for e in eager], [_described(g) for g in got])


Described = tuple[str, tuple[int, ...] | None]  # a returned value: its dtype's short name and shape, or a non-tensor's type and None


def mismatch_words(graph: Graph, eager: list[Described], got: list[Described]) -> str:
    """`mismatch_text` from the values described: also what a stored case recorded of them (`corpus.rejudge`)."""
    if len(got) != len(eager):
        return f"{len(got)} values where eager gives {len(eager)}"
    parts = []
    for k, ((g_kind, g_shape), (e_kind, e_shape)) in enumerate(zip(got, eager)):
        who = _value_name(graph, k)
        if g_shape is None:
            parts.append(f"{who}: {g_kind} where eager gives a tensor")
        elif g_kind != e_kind:
            parts.append(f"{who}: {g_kind} where eager gives {e_kind}")
        elif g_shape != e_shape:
            parts.append(f"{who}: shape {g_shape} where eager gives {e_shape}")
    return "; ".join(parts)


def _described(value: object) -> Described:
    return (short_dtype(value.dtype), tuple(value.shape)) if isinstance(value, torch.Tensor) else (type(value).__name__, None)


def short_dtype(dtype: torch.dtype) -> str:
    """A dtype as numfuzz names it (`bf16`), or torch's own name for one numfuzz never draws (float64, bool)."""
    try:
        return dtype_name(dtype)
    except ValueError:
        return str(dtype).removeprefix("torch.")


def output_names(graph: Graph) -> list[str]:
    """Each output's name: the op that makes it, or the input it returns (`input x0`)."""
    return [_value_name(graph, k) for k in range(len(graph.outputs))]


def _value_name(graph: Graph, k: int) -> str:
    """Judged value k: an output named by the op that makes it, or, after the outputs, an input's gradient."""
    if k >= len(graph.outputs):
        return f"the gradient of x{k - len(graph.outputs)}"
    value = graph.outputs[k]
    return graph.nodes[value - len(graph.inputs)].op if value >= len(graph.inputs) else f"input x{value}"
