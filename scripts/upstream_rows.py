"""The surveyed upstream bugs as rows: what each one's program needs of numfuzz's program space (`upstream_reach.py`
judges them against the tree). Three surveys: 26 bugs of 2025-2026, bugs reported in 2026 (CPU Inductor first), and
CPU bugs of 2026 searched for by symptom rather than by the ops numfuzz draws."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


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
    Row("#197431", "as_strided over a stepped slice of x.repeat((3, 2)): reads past the storage", ("repeat", "slice", "db.as_strided")),
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

# The third survey: upstream CPU bugs of 2026 found by symptom (wrong values, dtypes, NaN, crashes), not by the ops numfuzz
# draws, none of them above. Its features, named where they would be defined where they are not yet.
EXACT = ("numfuzz/judge/exact_outputs.py", r"^def exact_difference")  # integer and bool outputs judged exactly
DTYPE_CHECK = ("numfuzz/judge/execute.py", r"^def unlike_runs")  # an output's dtype and shape as eager's
NAN_KEPT = ("numfuzz/judge/nonfinite_class.py", r"^def class_lost")  # a NaN eager and float64 agree on, lost
ERROR_PARITY = ("numfuzz/judge/error_parity.py", r"^def eager_raised_target_ran")  # eager raises, the target computes
LOWEST_INTEGER = ("numfuzz/program/values.py", r"edges = np.array\(\[low,")  # a signed dtype's lowest value drawn
DEFAULT_DTYPE_CHANGED = ("numfuzz/runner/case_runner.py", r"set_default_dtype")  # a global changed between calls
INPLACE_ON_VIEW = ("numfuzz/program/op_table/inplace.py", r"windows that overlap")  # an in-place op on a computed view whose elements overlap
DUPLICATE_INDEX_WRITE = ("numfuzz/program/op_table/scatter.py", r'OpSpec\("index_put_self"')  # x[i] += x[i] at repeated i
SELF_UPDATE = ("numfuzz/program/op_table/inplace.py", r"its own flip")  # x.add_(x.flip(0)): an in-place op reading its own target
COMPUTED_INDEX = ("numfuzz/program/op_table/scatter.py", r"at a computed index")  # indices a program computes (an index is an input)
TENSOR_LISTS = ("numfuzz/program/op_db/sources.py", r"^def _tensors")  # cat, stack: a list of tensors as the first argument
ZERO_TENSOR = ("numfuzz/program/values.py", r"_efficientzerotensor")  # a ZeroTensor input (an sgn gradient's)
MIXED_OPERANDS = ("numfuzz/program/op_db/family.py", r"^MIXED_FORMS = ")  # a bool or integer first operand beside a float one
INTEGER_GRADIENT = ("numfuzz/corpus/make.py", r"integer program's gradient")  # an aten backward op over integers

SURVEY_2026_SYMPTOMS = [
    Row("#175966, #183901", "int64 arange times an int64 value past 2**31: wraps as int32", ("db.mul",), ("integers",), (EXACT,), dtypes=("i64",)),
    Row(
        "#190421",
        "sum(log(zeros), dtype=torch.int32): -inf to an integer sum crashes index propagation",
        ("db.log", "db.sum"),
        (),
        (("numfuzz/data/op_db.json", r"torch\.sum\(\{0\}, dtype=torch\.int"),),
    ),
    Row(
        "#190764", "int32 (2, 2) matmuls added and summed along dim 1, edge values", ("db.matmul", "db.add", "db.sum"), ("integers",), (EXACT,), dtypes=("i32",)
    ),
    Row("#184406", "floor_divide of int32 -2**31 by -1: SIGFPE compiled, eager wraps", ("db.floor_divide",), ("integers",), (LOWEST_INTEGER,), dtypes=("i32",)),
    Row(
        "#191968",
        "int64 % a broadcast divisor of odd length: ZeroDivisionError from the vector tail's padding",
        ("db.remainder",),
        ("integers",),
        (EXACT,),
        dtypes=("i64",),
    ),
    Row("#183083", "remainder of fp16 by the Python float 3.14: the scalar kept in fp32", ("remainder",), ("scalar_args",)),
    Row(
        "#187018",
        "-x.abs() of uint8, cat with itself, sum: std::abs's integer promotion",
        ("db.abs", "db.neg", "db.sum"),
        ("integers",),
        (EXACT, TENSOR_LISTS),
        dtypes=("u8",),
    ),
    Row("#198081", "any of uint8 returns bool, then * 200 + 100", ("db.any", "db.mul", "db.add"), ("integers",), (EXACT, DTYPE_CHECK), dtypes=("u8",)),
    Row("#191499", "amin and argmin of 16 or more int8 or uint8 values: 0 and -1", ("db.amin", "db.argmin"), ("integers",), (EXACT,), dtypes=("i8", "u8")),
    Row(
        "#184893",
        "min(0) of a bool (n, 32): wrong indices on CPU (vectorised bool read as NaN)",
        ("db.argmin", "db.amin"),
        ("integers",),
        (EXACT,),
        dtypes=("bool",),
    ),
    Row("#185481", "argmax of a bool mask: eager raises, Inductor computes", ("argmax",), (), (ERROR_PARITY,)),
    Row("#197807", "logcumsumexp of a 0-d uint8: eager raises, Inductor computes", ("db.logcumsumexp",), ("zero_dim_ops",), (ERROR_PARITY,), dtypes=("u8",)),
    Row("#191308", "int8 batched matmul: an int64 result where eager's is int8", ("db.matmul",), ("integers",), (DTYPE_CHECK,), dtypes=("i8",)),
    Row("#197091", "ldexp of a bool by an fp16 tensor: the result's dtype", ("db.ldexp",), ("integers",), (DTYPE_CHECK, MIXED_OPERANDS)),
    Row("#184405", "ones(2) after set_default_dtype(float64) between calls: a stale float32 result", ("ones_like",), (), (DEFAULT_DTYPE_CHANGED,)),
    Row("#184089", "flip(0) of a 0-d value: IndexError in prims.rev's lowering", ("db.flip",), ("zero_dim",)),
    Row("#193265, #193263", "cumsum(0) of a 0-d value: IndexError", ("cumsum",), ("zero_dim_ops",)),
    Row(
        "#190418",
        "argmax of a 1-element value, cast, log_softmax(x * x, dim=-1): IndexError in the joint graph",
        ("argmax", "cast", "mul", "log_softmax"),
        ("zero_dim_ops",),
    ),
    Row("#197108", "var_mean and std_mean of an empty value: mean 0 where eager's is NaN", ("db.var_mean", "db.std_mean"), ("empty",), (NAN_KEPT,)),
    Row(
        "#185535",
        "cat of an empty 1-d bf16 value with a 4-d one (the legacy empty rule): a lowering assertion",
        ("db.cat",),
        ("empty",),
        (
            TENSOR_LISTS,
            ("numfuzz/data/op_db.json", re.escape('"shape":[0]},{"domain":"any","dtype":"fp32","kind":"value","shape":[5,5]}],"call":"torch.cat([')),
        ),
    ),
    Row(
        "#188225",
        "softmax(acosh(log2(atan2(ones, ones)))): NaN constant-folded, 'nan' is not comparable",
        ("ones_like", "atan2", "log2", "acosh", "softmax"),
        (),
        (NAN_KEPT,),
    ),
    Row(
        "#188217",
        "FractionalMaxPool2d, LocalResponseNorm, logsigmoid, Hardsigmoid in fp64: reduce() of an empty iterable",
        ("db.nn.functional.fractional_max_pool2d", "db.nn.functional.local_response_norm"),
    ),
    Row(
        "#188228",
        "arctanh_, gumbel_softmax, FeatureAlphaDropout in eval, addcdiv: a C++ codegen KeyError",
        ("db.nn.functional.gumbel_softmax", "addcdiv_inplace"),
    ),
    Row(
        "#183370",
        "InstanceNorm2d, RReLU in eval, flatten, exp of a clamp, BatchNorm1d: unexpected group",
        ("db.nn.functional.instance_norm", "db.rrelu", "exp", "batch_norm"),
    ),
    Row("#183888", "(x + x).unfold(1, 4, 2).abs_(): in place on an overlapping view", ("add", "db.unfold"), (), (INPLACE_ON_VIEW,)),
    Row("#174074", "x[[0, 0]] += x[[0, 0]], fp64: a duplicate index accumulated twice", ("index_put_self",), (), (DUPLICATE_INDEX_WRITE,)),
    Row(
        "#198270",
        "index_put_ at arange(n) of x * 2, then x.add_(x.flip(0)): wrong at every size",
        ("db.index_put", "db.flip", "add_inplace"),
        (),
        (SELF_UPDATE,),
    ),
    Row(
        "#197582",
        "v = x.view(-1); v[arange(4) % 2] = v[...] + 1: duplicate computed indices",
        ("index_put_self_computed",),
        (),
        (DUPLICATE_INDEX_WRITE, COMPUTED_INDEX),
    ),
    Row(
        "#174963",
        "as_strided of roll(x, -1, 0), int64 channels-last: 49 of 50 wrong",
        ("db.roll", "db.as_strided"),
        ("integers", "layouts"),
        (EXACT,),
        dtypes=("i64",),
    ),
    Row("#177839", "logit(x[:, :n - cut], eps=0.51) of a sliced (2, 17 or more) input", ("db.logit",), ("views",)),
    Row(
        "#185702",
        "a strided slice l_c[..., 16]; softplus, gammaln, erf, xlogy, stack(dim=-1)",
        ("softplus", "lgamma", "erf", "xlogy"),
        ("views",),
        (TENSOR_LISTS,),
    ),
    Row("#183898", "slice_scatter(x, y, dim=0, start=1, end=4).sum(), its backward: 1 in the overwritten slice", ("slice_scatter", "sum"), ("grad_share",)),
    Row("#172064", "aten.unfold_backward of an int64 (1, 64, 32): a shape mismatch", ("db.unfold",), ("integers",), (INTEGER_GRADIENT,), dtypes=("i64",)),
    Row("#197067", "t[-1] + 10 on a ZeroTensor (sgn's gradient): SIGSEGV", ("sgn", "select"), ("grad_share",), (ZERO_TENSOR,)),
]

ROWS = FIRST_SURVEY + SURVEY_2026 + SURVEY_2026_SYMPTOMS
