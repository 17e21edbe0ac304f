#!/usr/bin/env python3
"""Rerun the survey of 26 upstream numerics bugs: can a default campaign draw each one's program?

    python scripts/upstream_reach.py > runs/upstream-reach.md

Each row of the survey (docs/upstream.md, "What the surveyed bugs need") names the ops, the shares
and the program features its program needs. A row is expressible when every op is in the table,
every share it needs is on by default (`numfuzz fuzz`'s defaults), and no limit of the program space
rules it out (sizes past a value's largest, dtypes numfuzz does not draw); a CUDA-only row counts when
its program can be drawn. Each need is printed with where it lives, file:line, found in the tree,
so a row whose op or option has moved or gone says so instead of passing.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from numfuzz.campaign.shares import SHARES
from numfuzz.program.dtypes import PROGRAM_DTYPES
from numfuzz.program.model_scale import LARGE_ELEMENTS
from numfuzz.program.ops import OPS

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = {share.field: share.default for share in SHARES}


@dataclass
class Row:
    issue: str
    needs: str
    ops: tuple[str, ...] = ()
    shares: tuple[str, ...] = ()  # share fields that must be on by default
    where: tuple[tuple[str, str], ...] = ()  # other features: (file, pattern) each must be found
    elements: int = 0  # the largest value's elements the program needs
    dtypes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


ROWS = [
    Row("#186577", "layer_norm then reciprocal/rsqrt of abs plus a constant, fp32", ("layer_norm", "abs", "add_scalar", "reciprocal", "rsqrt")),
    Row("#179561", "matmul, an fp32-bf16-fp32 round trip, sigmoid, mul, sum", ("matmul", "cast", "sigmoid", "mul", "sum")),
    Row("#181568", "matmul cast to bf16, added in fp32, mean", ("matmul", "cast", "add", "mean")),
    Row(
        "#185337",
        "an fp16 round trip under emulate_precision_casts (CPU)",
        ("cast",),
        ("config",),
        (("numfuzz/data/compiler_configs.toml", r"emulate_precision_casts = true"),),
    ),
    Row("#195214", "bf16 div, max, == against it, sum (the argmax mask)", ("div", "amax", "mul_mask_eq", "sum")),
    Row("#183605", "var + 1e-10 then rsqrt and mul, fp16 (CPU)", ("var", "add_scalar", "rsqrt", "mul"), (), (("numfuzz/program/scalars.py", r"^TINY = "),)),
    Row("#173793", "layer_norm of values near 8.5e37", ("mul_scalar", "layer_norm"), (), (("numfuzz/program/scalars.py", r"^HUGE = "),)),
    Row("#163932, #161150", "softmax of x * 1e14, or of +-inf", ("mul_scalar", "softmax"), (), (("numfuzz/program/scalars.py", r"^HUGE = "),)),
    Row("#198183", "vectorised erf and atanh at 1e-7 (CPU)", ("erf", "atanh"), (), (("numfuzz/program/values.py", r'recipe.kind == "tiny"'),)),
    Row("#198133", "erfinv near +-1 (CPU)", ("erfinv",)),
    Row("#189804, #189808", "gelu's sign; sqrt of a negative, its NaN's sign (CPU)", ("gelu", "sign", "sqrt", "copysign"), ("out_of_domain",)),
    Row("#189801, #189803", "elu, exp, reciprocal; expm1's cancellation (CPU)", ("elu", "exp", "reciprocal", "expm1")),
    Row("#154703", "a mean of 3e9 elements on one thread (CPU)", ("mean",), elements=3 * 10**9),
    Row("#145401", "var_mean over 112958 x 384, fp16 (CUDA; a replay case in corpus/upstream)", ("var_mean",), elements=112958 * 384),
    Row(
        "#168126, #168186",
        "LayerNorm, Linear, sigmoid, chunk, einsum under bf16 autocast",
        ("layer_norm", "linear", "sigmoid", "chunk", "einsum"),
        ("autocast",),
    ),
    Row("#191433", "embedding, Linear, RMSNorm under autocast, about 11 ops at 768 x 192", ("embedding", "linear", "rms_norm"), ("autocast", "models")),
    Row(
        "#163449",
        "addmm, norm, var, relu, pow; dynamic sizes, emulate_precision_casts, a 0-d input",
        ("addmm", "vector_norm", "var", "relu", "pow"),
        ("dynamic", "config", "zero_dim"),
    ),
    Row("#164484", "full, relu, matmul, div, reshape; dynamic sizes, odd strides", ("full_like", "relu", "matmul", "div", "reshape"), ("dynamic", "layouts")),
    Row("#163435", "t - t of a tanh of 0-d values, emulate_precision_casts, fp16", ("tanh", "add", "mul", "sub"), ("repeat", "zero_dim", "config")),
    Row("#149472, #156301", "conv2d under max-autotune", ("conv2d",), ("config",), (("numfuzz/data/compiler_configs.toml", r"max_autotune = true"),)),
    Row("#172062", "cumprod's backward in float64", ("cumprod",), ("grad",), dtypes=("fp64",)),
    Row(
        "#182012, #185509",
        "gradients of diagonal_scatter; of interpolate, conv and pooling",
        ("diagonal_scatter", "interpolate", "conv2d", "max_pool2d", "where"),
        ("grad",),
    ),
    Row(
        "#185517",
        "margin_ranking_loss with a bf16-inexact Python float margin, its gradient (CPU)",
        ("margin_ranking_loss",),
        ("grad", "scalar_args"),
        (("numfuzz/program/op_table/losses.py", r'draw_float\("margin"'),),
    ),
    Row(
        "#194976",
        "silu, clamp at a Python float bound, chunk; the bound changed at a second call under dynamic=None, with its backward",
        ("silu", "clamp_scalar", "chunk"),
        ("scalar_args", "automatic", "grad"),
        (("numfuzz/runner/case_runner.py", r"second_grad_tensors\(\)\)"),),
    ),
    Row("Thunder #1713, #2153", "rms_norm in bf16 through Thunder", ("rms_norm",), (), (("numfuzz/targets/thunder.py", r"torchcompile"),)),
    Row("Fuser #5346, #4740", "a broadcast mul then sum through nvFuser (CUDA)", ("mul", "sum"), (), (("numfuzz/targets/thunder.py", r"nvfuser"),)),
]


def locate(path: str, pattern: str) -> str | None:
    """path:line of the first line matching `pattern`, or None."""
    file = ROOT / path
    if not file.exists():
        return None
    for number, line in enumerate(file.read_text().splitlines(), 1):
        if re.search(pattern, line):
            return f"{path}:{number}"
    return None


def op_place(name: str) -> str | None:
    """Where the op's entry is: the first line of the op table naming it."""
    for module in sorted((ROOT / "numfuzz/program/op_table").glob("*.py")):
        found = locate(str(module.relative_to(ROOT)), rf'"{re.escape(name)}"')
        if found:
            return found
    return None


def judge(row: Row) -> tuple[bool, list[str], list[str]]:
    """Whether the row is expressible by default, where each need lives, and what is missing."""
    places, missing = [], []
    for op in row.ops:
        place = op_place(op) if op in OPS else None
        (places if place else missing).append(f"`{op}` {place}" if place else f"no op `{op}`")
    for share in row.shares:
        default = DEFAULTS.get(share)
        where = locate("numfuzz/campaign/shares.py", rf'"{share}", ')
        (places if default else missing).append(f"`{share}` {default} ({where})" if default else f"share `{share}` off by default")
    for path, pattern in row.where:
        place = locate(path, pattern)
        (places if place else missing).append(place or f"nothing matches {pattern!r} in {path}")
    if row.elements > LARGE_ELEMENTS:
        missing.append(f"{row.elements:.2e} elements, past a value's {LARGE_ELEMENTS} ({locate('numfuzz/program/model_scale.py', '^LARGE_ELEMENTS')})")
    for dtype in row.dtypes:
        if dtype not in PROGRAM_DTYPES:
            missing.append(f"{dtype} programs are not drawn ({locate('numfuzz/program/dtypes.py', '^PROGRAM_DTYPES')})")
    return not missing, places, missing


def main() -> None:
    print("| issue | the program needs | by default | how numfuzz draws it | missing |")
    print("| --- | --- | --- | --- | --- |")
    expressible = 0
    for row in ROWS:
        ok, places, missing = judge(row)
        expressible += ok
        print(f"| {row.issue} | {row.needs} | {'yes' if ok else 'no'} | {'; '.join(places)} | {'; '.join(missing)} |")
    print(f"\n{expressible} of {len(ROWS)} expressible by default.")
    sys.exit(0)


if __name__ == "__main__":
    main()
