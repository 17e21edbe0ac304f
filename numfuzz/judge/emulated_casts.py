"""Is a finding the work of Inductor's `emulate_precision_casts`? The option should round where eager rounds, and nowhere else.

The option adds a rounding to bf16/fp16 after the ops of the user's program, so that fused
code rounds as eager does (the pointwise nodes that decompositions emit are meant to be left
alone, PR #131595). Where a finding disappears when the same program is compiled without the
option, the option rounds a value that eager keeps in fp32: a decomposition's intermediate,
such as `x * 10**d` in `round(x, decimals=d)`, the quotient of a truncating division, or the
products of an einsum lowered to a multiply and a sum. That is a finding whatever the bound
(`judge.cause.EMULATED_ROUNDING`, kept), and one root cause whatever the op. One compile: the case's program on
the target without the option, in the case's size mode and with its other options, whether the
option came with the target spec or was drawn from the configuration space.
"""

from __future__ import annotations

import copy

import torch

from numfuzz.judge.bounds import FP32_MANTISSA
from numfuzz.judge.execute import evaluate
from numfuzz.program.dtypes import check_dtype, is_integer
from numfuzz.program.ir import Graph
from numfuzz.program.ops import infer_specs
from numfuzz.targets import Target, TargetError, resolve

OPTION = "emulate_precision_casts"


def without_option(spec: str) -> str | None:
    """The target spec with the option turned on removed; None where the spec does not turn it on."""
    family, sep, arg = spec.partition(":")
    options = [item for item in arg.split(",") if item] if sep else []
    ours = [item for item in options if item.partition("=")[0] == OPTION]
    if not any(item.partition("=")[2].lower() in ("1", "true", "yes") for item in ours):
        return None
    rest = [item for item in options if item.partition("=")[0] != OPTION]
    return family + (":" + ",".join(rest) if rest else "")


def target_without_option(target: Target) -> Target | None:
    """`target` as it compiles, less the option; None where it does not turn the option on.

    A target with an `options` dict (the spec's, with a case's drawn configuration over them) is
    copied with the option taken out, keeping its size mode; any other is resolved from its spec."""
    options = getattr(target, "options", None)
    if isinstance(options, dict):
        if options.get(OPTION) not in (True, 1, "1", "true"):
            return None
        plain = copy.copy(target)
        plain.options = {k: v for k, v in options.items() if k != OPTION}
        plain.name = without_option(target.name) or target.name
        return plain
    spec = without_option(getattr(target, "name", ""))
    try:
        return resolve(spec) if spec is not None else None
    except TargetError:
        return None


def without_option_evidence(graph: Graph, samples: list[list[torch.Tensor]], target: Target, device: str, node: int, dtype: str) -> str | None:
    """Evidence that the option makes the finding: the target turns it on, node `node` works in bf16/fp16
    (its output `dtype` or an input), and without the option the program is as accurate as eager. None otherwise."""
    specs = infer_specs(graph)
    dtypes = [d for d in [specs[a].dtype for a in graph.nodes[node].args] + [dtype] if not is_integer(d)]  # class targets, indices
    if all(check_dtype(d).mantissa_bits >= FP32_MANTISSA for d in dtypes):  # it rounds to bf16/fp16 only
        return None
    plain = target_without_option(target)
    if plain is None:
        return None
    got = evaluate(graph, samples, plain, device)
    if not got.verdict.is_clean:
        return None
    return (
        f"compiled without {OPTION}, the same program is {got.verdict.value} against eager; with it, the program from "
        f"`{graph.nodes[node].op}` ({dtype}) on is rounded to its narrow dtype where eager keeps fp32"
    )
