#!/usr/bin/env python3
"""Rerun the survey of upstream numerics and correctness bugs: can a default campaign draw each one's program?

    python scripts/upstream_reach.py > runs/upstream-reach.md

Two surveys: 26 bugs of 2025-2026 (`FIRST_SURVEY`), and bugs reported in 2026 (`SURVEY_2026`), CPU
Inductor first, each reduced to its program.

Each row of the survey (docs/upstream.md, "What the surveyed bugs need") names the ops, the shares
and the program features its program needs. A row is expressible when every op is in the table,
every share it needs is on by default (`numfuzz fuzz`'s defaults), and no limit of the program space
rules it out (sizes past a value's largest, dtypes numfuzz does not draw); a CUDA-only row counts when
its program can be drawn. Each need is printed with where it lives, file:line, found in the tree,
so a row whose op or option has moved or gone says so instead of passing. A need that is not in the
tree yet is named as it would be (an op by its table name, a share by its field, a feature by the file
and definition that would hold it), so the row turns to yes once that lands.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from numfuzz.program.dtypes import INT_DTYPES, PROGRAM_DTYPES
from numfuzz.program.model_scale import LARGE_ELEMENTS
from numfuzz.program.ops import OPS
from numfuzz.share_table import SHARES

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


FIRST_SURVEY = [
    Row("#186577", "layer_norm then reciprocal/rsqrt of abs plus a constant, fp32", ("layer_norm", "abs", "add_scalar", "reciprocal", "rsqrt")),
    Row("#179561", "matmul, an fp32-bf16-fp32 round trip, sigmoid, mul, sum", ("matmul", "cast", "sigmoid", "mul", "sum")),
    Row("#181568", "matmul cast to bf16, added in fp32, mean", ("matmul", "cast", "add", "mean")),
    Row(
        "#185337",
        "an fp16 round trip under emulate_precision_casts (CPU)",
        ("cast",),
        ("config_share",),
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
        ("dynamic", "config_share", "zero_dim"),
    ),
    Row("#164484", "full, relu, matmul, div, reshape; dynamic sizes, odd strides", ("full_like", "relu", "matmul", "div", "reshape"), ("dynamic", "layouts")),
    Row("#163435", "t - t of a tanh of 0-d values, emulate_precision_casts, fp16", ("tanh", "add", "mul", "sub"), ("repeat", "zero_dim", "config_share")),
    Row("#149472, #156301", "conv2d under max-autotune", ("conv2d",), ("config_share",), (("numfuzz/data/compiler_configs.toml", r"max_autotune = true"),)),
    Row("#172062", "cumprod's backward in float64", ("cumprod",), ("grad_share",), dtypes=("fp64",)),
    Row(
        "#182012, #185509",
        "gradients of diagonal_scatter; of interpolate, conv and pooling",
        ("diagonal_scatter", "interpolate", "conv2d", "max_pool2d", "where"),
        ("grad_share",),
    ),
    Row(
        "#185517",
        "margin_ranking_loss with a bf16-inexact Python float margin, its gradient (CPU)",
        ("margin_ranking_loss",),
        ("grad_share", "scalar_args"),
        (("numfuzz/program/op_table/losses.py", r'draw_float\("margin"'),),
    ),
    Row(
        "#194976",
        "silu, clamp at a Python float bound, chunk; the bound changed at a second call under dynamic=None, with its backward",
        ("silu", "clamp_scalar", "chunk"),
        ("scalar_args", "automatic", "grad_share"),
        (("numfuzz/runner/case_runner.py", r"second_grad_tensors\(\)\)"),),
    ),
    Row("Thunder #1713, #2153", "rms_norm in bf16 through Thunder", ("rms_norm",), (), (("numfuzz/targets/thunder.py", r"torchcompile"),)),
    Row("Fuser #5346, #4740", "a broadcast mul then sum through nvFuser (CUDA)", ("mul", "sum"), (), (("numfuzz/targets/thunder.py", r"nvfuser"),)),
]

# Features a 2026 row needs that are named before they exist: each is where it would be defined.
METADATA = ("numfuzz/judge/metadata.py", r"^def metadata_differences")  # an oracle for output strides and aliasing
HUGE = ("numfuzz/program/scalars.py", r"^HUGE = ")
LOGMAG = ("numfuzz/program/values.py", r'recipe.kind == "logmag"')

SURVEY_2026 = [
    Row(
        "#183082, #174073",
        "argmax/argmin of a transposed view of an input mutated in place (sin_, tan_), fp32 (CPU); numfuzz writes into a clone of it",
        ("sin_inplace", "transpose", "argmax"),
        ("layouts",),
    ),
    Row("#178964", "(a + b).max(dim=1) and its indices, a transposed, 8 x 8 fp32", ("add", "max_dim"), ("layouts",)),
    Row(
        "#193492",
        "argmax of adaptive_avg_pool1d of a transposed 4 x 4 x 3 view, fp64 (CPU and CUDA)",
        ("adaptive_avg_pool1d", "argmax"),
        ("layouts",),
        dtypes=("fp64",),
    ),
    Row("#197434", "max_pool2d with return_indices on an input whose H and W are transposed: the indices", ("max_pool2d_indices",), ("layouts",)),
    Row("#185515", "x.t().contiguous().view(torch.uint8), a bitcast view: Inductor fails to lower it", ("transpose", "view_dtype")),
    Row(
        "#183771",
        "nearest F.interpolate of a channels-last 5-D input: the output's strides",
        ("interpolate",),
        ("blocks",),
        (
            METADATA,
            ("numfuzz/program/op_table/pooling.py", r"need_rank\(specs\[0\], \d, 5\)"),
            ("numfuzz/program/blocks.py", r"perm=\(0, 2, 3, 4, 1\)"),
        ),
    ),
    Row("#183770, #179442", "reflect and replicate F.pad of a channels-last input: the output's strides", ("pad",), ("layouts",), (METADATA,)),
    Row(
        "#172693",
        "reshape of a strided input under dynamic=True: the output's strides, wrong values downstream",
        ("reshape",),
        ("dynamic", "layouts"),
        (METADATA,),
    ),
    Row("#197431", "as_strided over a stepped slice of x.repeat((3, 2)): reads past the storage", ("repeat", "slice", "as_strided")),
    Row(
        "#182225",
        "RoPE in bf16: q * cos + cat(-q[..., h:], q[..., :h]) * sin, cos and sin unsqueezed, dynamic=True (CPU)",
        ("unsqueeze", "mul", "slice", "neg", "cat", "add"),
        ("dynamic",),
    ),
    Row("#183761", "where, full_like, an fp16 cast and add, then sum (CPU; the cast's elision is intended)", ("where", "full_like", "cast", "add", "sum")),
    Row("#172061", "affine_grid_generator in fp16 and bf16 (CUDA)", ("affine_grid",)),
    Row("#172068", "ldexp of fp16 by int8 exponents (CUDA)", ("ldexp",), dtypes=("i8",)),
    Row(
        "#173307",
        "infinitely_differentiable_gelu_backward in bf16 (CUDA), as eager runs it: erf, exp of -x*x/2, mul and add, each rounded",
        ("mul_scalar", "erf", "add_scalar", "square", "neg", "exp", "mul", "add"),
    ),
    Row(
        "#194329",
        "Linear under weight_norm, sum and backward under fp16 autocast, dynamic=True, sum as an ATen fallback (CUDA)",
        ("linear", "sum"),
        ("autocast", "dynamic", "grad_share"),
        (("numfuzz/data/compiler_configs.toml", r"make_fallback"),),
    ),
    Row("#178094", "BatchNorm2d(96) then Conv2d(96, 256, 5, padding=2), eval, dynamic=True (CUDA)", ("batch_norm", "conv2d"), ("dynamic",)),
    Row(
        "#196681",
        "erf-GELU of a channels-last 1 x 8 x 66 x 66 input, permuted, F.pad by 58, a 4-D matmul: a tiled reduction's tail stores a full vector (CPU)",
        ("mul_scalar", "erf", "add_scalar", "mul", "permute", "pad", "matmul_batched"),
        ("layouts", "odd_tail"),
    ),
    Row("#198134", "vectorised float64 acosh above 1.34e154, as of exp(x) for x in (355, 709) (CPU)", ("exp", "acosh"), dtypes=("fp64",)),
    Row(
        "#183768, #183767",
        "acosh and asinh of fp32 values past 1.8e19, as of x * 1e38: inf where eager is finite",
        ("mul_scalar", "acosh", "asinh"),
        (),
        (HUGE,),
    ),
    Row("#183765", "cosh of fp32 values near 89, finite, where exp(x) overflows", ("cosh",), (), (LOGMAG,)),
    Row(
        "#189518",
        "cumsum(dtype=bf16) of a constant ones tensor: the compiled result keeps the constant's dtype (fp32 from ones_like, checked on 2.9.1)",
        ("ones_like", "cumsum_dtype"),
    ),
    Row("#195066", "torch._int_mm of int8 inputs whose size-1 dim has stride 0 (CPU)", ("int_mm",), ("layouts",), dtypes=("i8",)),
    Row("#173885", "LayerNorm of fp16 values that overflow to inf: NaN (CPU)", ("mul_scalar", "layer_norm"), (), (HUGE,)),
    Row("#189787", "floor of sum(softmax(x)) along the softmax's dim: the sum folded to 1", ("softmax", "sum", "floor")),
    Row("#177657", "Conv2d of fp32 inputs near 3.4e38: inf and NaN where eager is finite (CUDA)", ("mul_scalar", "conv2d"), (), (HUGE,)),
]

ROWS = FIRST_SURVEY + SURVEY_2026


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
    """Where the op's entry is: the line of the op table holding its call, else the first line naming it."""
    modules = sorted((ROOT / "numfuzz/program/op_table").glob("*.py"))
    call = OPS[name].call if name in OPS else ""
    patterns = ([re.escape(call)] if call else []) + [rf'"{re.escape(name)}"']
    for pattern in patterns:  # a name alone may first appear in another op's list (losses name "sum")
        for module in modules:
            found = locate(str(module.relative_to(ROOT)), pattern)
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
        where = locate("numfuzz/share_table.py", rf'"{share}", ')
        if default:
            places.append(f"`{share}` {default} ({where})")
        else:
            missing.append(f"share `{share}` off by default ({where})" if share in DEFAULTS else f"no share `{share}`")
    for path, pattern in row.where:
        place = locate(path, pattern)
        (places if place else missing).append(place or f"nothing matches {pattern!r} in {path}")
    if row.elements > LARGE_ELEMENTS:
        missing.append(f"{row.elements:.2e} elements, past a value's {LARGE_ELEMENTS} ({locate('numfuzz/program/model_scale.py', '^LARGE_ELEMENTS')})")
    for dtype in row.dtypes:
        if dtype in INT_DTYPES:
            places.append(f"`{dtype}` inputs ({locate('numfuzz/program/dtypes.py', '^INT_DTYPES')})")
        elif dtype.startswith(("i", "u")):  # an integer dtype is an input's (indices, exponents), never a program's
            missing.append(f"{dtype} inputs are not drawn ({locate('numfuzz/program/dtypes.py', '^INT_DTYPES')})")
        elif dtype == "fp64":  # a float64 program: drawn at its share, over the ops the fine reference evaluates, with no gradients
            missing += _float64_missing(row)
            if not _float64_missing(row):
                share = locate("numfuzz/share_table.py", '"fp64", ')
                places.append(f"`fp64` {DEFAULTS.get('fp64')} ({share}); {locate('numfuzz/program/fine.py', '^def fine_ops')}")
        elif dtype not in PROGRAM_DTYPES:
            missing.append(f"{dtype} programs are not drawn ({locate('numfuzz/program/dtypes.py', '^PROGRAM_DTYPES')})")
    return not missing, places, missing


def _float64_missing(row: Row) -> list[str]:
    """What keeps a float64 row out of the float64 programs numfuzz draws."""
    from numfuzz.program.fine import fine_ops

    where = locate("numfuzz/program/fine.py", "^def fine_ops")
    missing = [f"`{op}` has no reference finer than float64 ({where})" for op in row.ops if op in OPS and op not in fine_ops()]
    if not DEFAULTS.get("fp64"):
        missing.append("share `fp64` off by default")
    if "grad_share" in row.shares:
        missing.append(f"a float64 program's gradients are not judged ({locate('numfuzz/corpus/make.py', 'run.grad and fine')})")
    return missing


def table(rows: list[Row]) -> int:
    """Print the rows as a markdown table; how many are expressible by default."""
    print("| issue | the program needs | by default | how numfuzz draws it | missing |")
    print("| --- | --- | --- | --- | --- |")
    expressible = 0
    for row in rows:
        ok, places, missing = judge(row)
        expressible += ok
        print(f"| {row.issue} | {row.needs} | {'yes' if ok else 'no'} | {'; '.join(places)} | {'; '.join(missing)} |")
    return expressible


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # no options: --help, and one line for a stray argument
    first = table(FIRST_SURVEY)
    print(f"\n{first} of {len(FIRST_SURVEY)} expressible by default.\n")
    recent = table(SURVEY_2026)
    print(f"\n{recent} of {len(SURVEY_2026)} expressible by default.")
    print(f"\nOver all {len(ROWS)} rows: {first + recent} expressible by default ({100 * (first + recent) / len(ROWS):.0f}%).")
    sys.exit(0)


if __name__ == "__main__":
    main()
