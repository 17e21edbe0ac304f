"""Each op's float64 reference against known values: closed forms, and mpmath at 100 bits.

The bar is the reference's job: its error must be far below one ULP of fp32, the finest dtype
a program outputs (here 1e-3 fp32 ULP), also where torch's own float64 kernel is not
(sinc at integers, digamma near its roots, tanhshrink near 0: `numfuzz.program.exact`).
"""

import ast
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import torch

from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.lowering import compile_source, lower

# the ops whose float64 reference values this file checks beside its tables (UNARY, BINARY, REDUCTIONS, ...)
VALUES_TESTED = (
    "clamp_tensor", "where_lt", "count_ge", "vector_norm", "group_norm", "batch_norm", "bmm", "addmm", "baddbmm", "einsum", "sdpa", "cross_entropy",
    "ge_scalar_count", "lt_scalar_where", "arange", "conv2d", "layer_norm_affine", "sdpa_masked", "sdpa_bool_masked", "repeat", "div_scalar",
    "add_inplace", "mul_inplace", "slice_write", "diagonal_scatter", "select_scatter", "slice_scatter", "index_add", "scatter_add",
)  # fmt: skip
mp = mpmath.mp
mp.prec = 100
TOLERANCE = 1e-3  # fp32 ULPs


def reference(op: str, *inputs, **attrs) -> torch.Tensor:
    """The op's float64 reference on float64 inputs (given as nested lists)."""
    tensors = [torch.tensor(x, dtype=torch.float64) for x in inputs]
    graph = Graph(tuple(TensorSpec(tuple(t.shape), "fp32") for t in tensors), (Node.make(op, list(range(len(tensors))), **attrs),), (len(tensors),))
    (out,) = compile_source(lower(graph, reference=True))(*tensors)
    return out


def fp32_ulps(got: float, exact) -> float:
    """|got - exact| in ULPs of fp32 at the exact value (subnormal spacing near 0)."""
    exact = mpmath.mpf(exact)
    if mpmath.isinf(exact) or mpmath.isnan(exact):
        return 0.0 if got == float(exact) or (math.isnan(got) and mpmath.isnan(exact)) else math.inf
    _, e = math.frexp(float(abs(exact))) if exact != 0 else (0, -148)
    return float(abs(mpmath.mpf(got) - exact) / mpmath.mpf(2) ** max(e - 24, -149))


def assert_exact(got: torch.Tensor, expected) -> None:
    flat, want = got.reshape(-1).tolist(), np.asarray(expected, dtype=object).reshape(-1)
    assert len(flat) == len(want)
    errors = [fp32_ulps(g, w) for g, w in zip(flat, want)]
    assert max(errors) <= TOLERANCE, list(zip(flat, [float(w) for w in want], errors))


def f32(values) -> list[float]:
    """Values as an fp32 input would hold them."""
    return [float(np.float32(v)) for v in values]


ANY = f32([-3.7, -1.5, -0.3, -1e-5, 1e-7, 0.25, 0.5, 1.0, 2.0, 7.25, 30.0])
UNIT = f32([-0.999, -0.5, -1e-6, 0.3, 0.9, 0.99999])
POSITIVE = f32([1e-5, 0.3, 1.0, 7.0, 1e4])
ABOVE_ONE = f32([1.0000001, 1.5, 10.0, 1e4])
PROBABILITY = f32([1e-6, 0.3, 0.5, 0.5000001, 0.999])
pi = mpmath.pi
selu_a, selu_s = mpmath.mpf("1.6732632423543772848170429916717"), mpmath.mpf("1.0507009873554804934193349852946")


def softplus(v):
    return mpmath.log1p(mpmath.exp(v))


UNARY = {
    "tan": (mpmath.tan, ANY), "asin": (mpmath.asin, UNIT), "acos": (mpmath.acos, UNIT), "atan": (mpmath.atan, ANY),
    "sinh": (mpmath.sinh, ANY), "cosh": (mpmath.cosh, ANY), "asinh": (mpmath.asinh, ANY),
    "acosh": (mpmath.acosh, ABOVE_ONE), "atanh": (mpmath.atanh, UNIT), "exp2": (lambda v: mpmath.mpf(2) ** v, ANY),
    "log2": (lambda v: mpmath.log(v, 2), POSITIVE), "log10": (mpmath.log10, POSITIVE), "erfc": (mpmath.erfc, ANY),
    "erfinv": (mpmath.erfinv, UNIT), "lgamma": (lambda v: mpmath.log(abs(mpmath.gamma(v))), ANY + f32([1.0000001, 1.9999999, -2.457024, -0.5])),
    "digamma": (mpmath.digamma, ANY + [1.4616321325302124, -0.504082977771759, -1.5734984874725342, -2.6107208728790283]),
    "sign": (mpmath.sign, ANY), "floor": (mpmath.floor, ANY), "ceil": (mpmath.ceil, ANY), "trunc": (lambda v: int(v), ANY),
    "frac": (lambda v: v - int(v), ANY), "square": (lambda v: v * v, ANY),
    "sinc": (lambda v: 1 if v == 0 else 0 if v == int(v) else mpmath.sin(pi * v) / (pi * v), ANY + [0.0, 1.0, 3.0, -5.0, 1000.0, 1000.5, 4097.0]),
    "logit": (lambda v: mpmath.log(v / (1 - v)), PROBABILITY),
    "selu": (lambda v: selu_s * (v if v > 0 else selu_a * mpmath.expm1(v)), ANY),
    "hardswish": (lambda v: v * min(max(v + 3, 0), 6) / 6, ANY), "hardsigmoid": (lambda v: min(max(v + 3, 0), 6) / 6, ANY),
    "mish": (lambda v: v * mpmath.tanh(softplus(v)), ANY), "softsign": (lambda v: v / (1 + abs(v)), ANY),
    "tanhshrink": (lambda v: v - mpmath.tanh(v), ANY + f32([1e-6, 1e-3, 0.05, 0.07, -0.06])),
}  # fmt: skip
WITH_ATTRS = {
    "round": ({"decimals": 0}, lambda v: round(float(v)), ANY + [0.5, 1.5, 2.5, -0.5]),
    "clamp_scalar": ({"min": -0.5, "max": None}, lambda v: max(v, mpmath.mpf(-0.5)), ANY),
    "elu": ({"alpha": 0.5}, lambda v: v if v > 0 else 0.5 * mpmath.expm1(v), ANY),
    "celu": ({"alpha": 2.0}, lambda v: v if v > 0 else 2 * mpmath.expm1(v / 2), ANY),
    "leaky_relu": ({"negative_slope": 0.2}, lambda v: v if v > 0 else v * mpmath.mpf(0.2), ANY),
    "nan_to_num": ({"nan": 1.0, "posinf": 100.0, "neginf": None}, lambda v: v, ANY),
    # the scalar as the program states it, in float64: 0.7 is not bf16(0.7)
    "hardtanh": ({"min_val": -0.7, "max_val": 1.7}, lambda v: min(max(v, mpmath.mpf(-0.7)), mpmath.mpf(1.7)), ANY + [-0.7, 1.7, 0.69921875]),
    "threshold": ({"threshold": 0.1, "value": -2.0}, lambda v: v if v > mpmath.mpf(0.1) else -2, ANY + [0.1, float(np.float32(0.1))]),
    "relu6": ({}, lambda v: min(max(v, 0), 6), ANY + [6.0, 6.5, -0.0]),
    "hardshrink": ({"lambd": 0.5}, lambda v: v if abs(v) > 0.5 else 0, ANY + [0.5, -0.5]),
    "softshrink": ({"lambd": 0.5}, lambda v: v - 0.5 if v > 0.5 else v + 0.5 if v < -0.5 else 0, ANY + [0.5, -0.5]),
    "eq_scalar_cast": ({"value": 0.5}, lambda v: 1 if v == mpmath.mpf(0.5) else 0, ANY + [0.5]),
    "full_like": ({"value": 1.7, "dtype": "bf16"}, lambda v: 1.703125, ANY),  # the constant in its dtype, as eager makes it
    "zeros_like": ({"dtype": "fp16"}, lambda v: 0, ANY),
    "ones_like": ({"dtype": "bf16"}, lambda v: 1, ANY),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_reference_is_exact(name):
    fn, points = UNARY[name]
    assert_exact(reference(name, points), [fn(mpmath.mpf(p)) for p in points])


@pytest.mark.parametrize("name", sorted(WITH_ATTRS))
def test_unary_reference_with_attributes_is_exact(name):
    attrs, fn, points = WITH_ATTRS[name]
    assert_exact(reference(name, points, **attrs), [fn(mpmath.mpf(p)) for p in points])


def test_known_values():
    assert reference("atanh", [0.5]).item() == pytest.approx(math.log(3) / 2, rel=1e-15)
    assert reference("lgamma", [0.5]).item() == pytest.approx(math.log(math.sqrt(math.pi)), rel=1e-15)
    assert reference("erfinv", [math.erf(0.3)]).item() == pytest.approx(0.3, rel=1e-15)
    assert reference("digamma", [1.0]).item() == pytest.approx(-float(mpmath.euler), rel=1e-15)
    assert reference("sinc", [3.0, -7.0, 0.0]).tolist() == [0.0, 0.0, 1.0]  # torch's own gives ~1e-17 at integers
    assert reference("tanhshrink", [1e-6]).item() == pytest.approx(1e-18 / 3, rel=1e-12)
    assert reference("nan_to_num", [math.nan, math.inf, -math.inf], nan=1.0, posinf=100.0, neginf=None).tolist() == [
        1.0,
        100.0,
        -torch.finfo(torch.float64).max,
    ]
    assert reference("logit", [0.5]).item() == 0.0


A, B = f32([-3.5, -0.7, 0.3, 2.0, 5.0, 1e-4]), f32([1.25, -2.0, 0.3, -0.75, 3.0, -7.0])


def elementwise(fn, *columns):
    return [fn(*(mpmath.mpf(c) for c in row)) for row in zip(*columns)]


def _xlogy(a, b):
    return 0 if a == 0 else a * mpmath.log(b)


BINARY = {
    "atan2": (mpmath.atan2, A, B), "hypot": (mpmath.hypot, A, B),
    "logaddexp": (lambda a, b: mpmath.log(mpmath.exp(a) + mpmath.exp(b)), A, B),
    "logaddexp2": (lambda a, b: mpmath.log(2**a + 2**b, 2), A, B),
    "xlogy": (_xlogy, A + [0.0], [abs(b) for b in B] + [0.5]), "copysign": (lambda a, b: abs(a) * mpmath.sign(b), A, B),
    "fmod": (lambda a, b: a - b * int(a / b), A, B), "remainder": (lambda a, b: a - b * mpmath.floor(a / b), A, B),
    "div_trunc": (lambda a, b: int(a / b), A, B), "div_floor": (lambda a, b: mpmath.floor(a / b), A, B),
    "isfinite_where": (lambda a, b: a, A, B), "mul_mask_gt": (lambda a, b: a if a > b else 0, A, B), "mul_mask_eq": (lambda a, b: a if a == b else 0, A, [a + i % 2 for i, a in enumerate(A)]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_reference_is_exact(name):
    fn, a, b = BINARY[name]
    assert_exact(reference(name, a, b), elementwise(fn, a, b))


def test_selects_and_counts():
    lo, hi = [-1.0] * 6, [1.0, 1.0, 0.1, 1.0, 4.0, 0.0]
    assert_exact(reference("clamp_tensor", A, lo, hi), elementwise(lambda x, a, b: min(max(x, a), b), A, lo, hi))
    assert_exact(reference("where_lt", A, B, A, B), elementwise(lambda a, b, x, y: x if a < b else y, A, B, A, B))
    assert reference("isfinite_where", [math.inf, 1.0, math.nan], [2.0, 3.0, 4.0]).tolist() == [2.0, 1.0, 4.0]
    x = [[1.0, 2.0, 3.0], [4.0, 0.0, -1.0]]
    assert reference("count_ge", x, [2.0, 0.0, 3.0], dim=1, keepdim=False).tolist() == [2.0, 2.0]
    assert reference("count_ge", x, [2.0, 0.0, 3.0], dim=0, keepdim=True).tolist() == [[1.0, 2.0, 1.0]]
    assert reference("ge_scalar_count", x, value=2.0, dim=1, keepdim=False).tolist() == [2.0, 1.0]
    assert reference("lt_scalar_where", [0.1, 0.2, -1.0], [5.0, 6.0, 7.0], value=0.1).tolist() == [5.0, 6.0, -1.0]  # 0.1 is not < 0.1
    assert reference("arange", x, dtype="fp16").tolist() == [0.0, 1.0, 2.0]


def test_a_passed_scalar_is_an_argument_whose_default_is_the_stated_value():
    graph = Graph((TensorSpec((3,), "fp32"),), (Node.make("clamp_scalar", [0], min=-1.7, max=0.7, passed=(("max", 0.3),)),), (1,))
    fn = compile_source(lower(graph, reference=True))
    x = torch.tensor([-2.0, 0.5, 1.0], dtype=torch.float64)
    assert fn(x)[0].tolist() == [-1.7, 0.5, 0.7]  # tensors only: the program as stated
    assert fn(x, 0.3)[0].tolist() == [-1.7, 0.3, 0.3]  # the second call's value, passed


X = [f32([1.5, -0.25, 3.0, 0.125]), f32([-2.0, 0.5, 7.0, 1e-3]), f32([0.3, 0.3, -0.6, 4.0])]  # 3 x 4


def rows(fn, x=X):
    """fn over each row of x as mpf values: the reference along dim -1."""
    return [fn([mpmath.mpf(v) for v in row]) for row in x]


def _var(row, correction=1):
    mean = mpmath.fsum(row) / len(row)
    return mpmath.fsum((v - mean) ** 2 for v in row) / (len(row) - correction)


def _scan(step, row):
    out, acc = [], None
    for v in row:
        acc = v if acc is None else step(acc, v)
        out.append(acc)
    return out


REDUCTIONS = {
    "prod": ({"keepdim": False}, lambda r: mpmath.fprod(r)),
    "amin": ({"keepdim": True}, lambda r: [min(r)]),
    "logsumexp": ({"keepdim": False}, lambda r: mpmath.log(mpmath.fsum(mpmath.exp(v) for v in r))),
    "std": ({"keepdim": False, "correction": 1}, lambda r: mpmath.sqrt(_var(r))),
    "var_mean": ({"keepdim": False, "correction": 0, "which": 0}, lambda r: _var(r, 0)),
    "cumsum": ({}, lambda r: _scan(lambda a, b: a + b, r)),
    "cumprod": ({}, lambda r: _scan(lambda a, b: a * b, r)),
    "logcumsumexp": ({}, lambda r: _scan(lambda a, b: mpmath.log(mpmath.exp(a) + mpmath.exp(b)), r)),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_reference_is_exact(name):
    attrs, fn = REDUCTIONS[name]
    assert_exact(reference(name, X, dim=-1, **attrs), rows(fn))


@pytest.mark.parametrize("ord_", [1, 2, "inf"])
def test_vector_norm_reference_is_exact(ord_):
    norm = {1: lambda r: mpmath.fsum(abs(v) for v in r), 2: lambda r: mpmath.sqrt(mpmath.fsum(v * v for v in r)), "inf": lambda r: max(abs(v) for v in r)}
    assert_exact(reference("vector_norm", X, dim=1, keepdim=False, ord=ord_), rows(norm[ord_]))
    assert reference("var_mean", X, dim=1, keepdim=False, correction=0, which=1).tolist() == pytest.approx([sum(r) / 4 for r in X], rel=1e-15)


def _normalise(values, eps):
    mean = mpmath.fsum(values) / len(values)
    var = mpmath.fsum((v - mean) ** 2 for v in values) / len(values)
    return [(v - mean) / mpmath.sqrt(var + mpmath.mpf(eps)) for v in values]


def test_group_norm_and_batch_norm_references_are_exact():
    x = [X, [[v * 2 - 1 for v in r] for r in X]]  # (N=2, C=3, 4)
    got = reference("group_norm", x, num_groups=3, eps=1e-5)  # a group per channel: each row normalised alone
    assert_exact(got, [_normalise([mpmath.mpf(v) for v in row], 1e-5) for sample in x for row in sample])
    mean, var, weight, bias = [0.5, -1.0, 2.0], [0.25, 4.0, 1e-3], [1.0, -2.0, 0.5], [0.0, 0.1, -3.0]
    expected = [
        [(mpmath.mpf(v) - mean[c]) / mpmath.sqrt(mpmath.mpf(var[c]) + mpmath.mpf(1e-5)) * weight[c] + mpmath.mpf(bias[c]) for v in row]
        for sample in x
        for c, row in enumerate(sample)
    ]
    assert_exact(reference("batch_norm", x, mean, var, weight, bias, eps=1e-5), expected)


def test_layer_norm_with_weight_and_bias_reference_is_exact():
    weight, bias = f32([1.5, -0.25, 3.0, 0.1]), f32([0.0, 1e-3, -2.0, 0.7])
    expected = [[n * mpmath.mpf(w) + mpmath.mpf(b) for n, w, b in zip(_normalise([mpmath.mpf(v) for v in row], 1e-5), weight, bias)] for row in X]
    assert_exact(reference("layer_norm_affine", X, weight, bias, eps=1e-5), expected)


def test_division_by_a_scalar_reference_is_exact():
    assert_exact(reference("div_scalar", ANY, value=2.772588722239781), [mpmath.mpf(v) / mpmath.mpf(2.772588722239781) for v in ANY])


def test_repeat_reference_copies_the_value():
    row = f32([1.5, -0.25, 1e-7])
    assert_exact(reference("repeat", [row], repeats=(2, 2, 1)), [[row, row]] * 2)  # a leading new dim of 2, the rows twice


def matmul(a, b):
    return [[mpmath.fsum(mpmath.mpf(a[i][k]) * mpmath.mpf(b[k][j]) for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


M = [f32([0.5, -1.25, 3.0]), f32([2.0, 0.1, -0.7])]  # 2 x 3
N = [f32([1.0, 0.3]), f32([-2.0, 4.0]), f32([0.25, -0.5])]  # 3 x 2


def test_matrix_product_references_are_exact():
    assert_exact(reference("bmm", [M, M], [N, N]), [matmul(M, N)] * 2)
    bias = [0.5, -1.0]
    mn = matmul(M, N)
    assert_exact(
        reference("addmm", M, N, bias, beta=0.5, alpha=2.0), [[2 * mn[i][j] + mpmath.mpf(0.25) * (1 if j == 0 else -2) for j in range(2)] for i in range(2)]
    )
    assert_exact(reference("baddbmm", [M], [N], [[bias]], beta=-1.0, alpha=0.1), [[[mpmath.mpf(0.1) * mn[i][j] - bias[j] for j in range(2)] for i in range(2)]])
    assert_exact(reference("einsum", M, N, equation="ij,jk->ik"), mn)
    assert_exact(reference("einsum", M, M, equation="ij,ij->i"), [mpmath.fsum(mpmath.mpf(v) ** 2 for v in row) for row in M])
    assert_exact(reference("einsum", M[0], N[0] + [1.0], equation="i,i->"), mpmath.fsum(mpmath.mpf(a) * b for a, b in zip(M[0], N[0] + [1.0])))


@pytest.mark.parametrize("causal", [False, True])
def test_attention_reference_is_exact(causal):
    q, k, v = M, [M[1], M[0], f32([1.0, 1.0, -1.0])], N  # L=2, S=3, E=3, Ev=2
    scores = [[s / mpmath.sqrt(3) for s in row] for row in matmul(q, [list(c) for c in zip(*k)])]
    expected = []
    for i, row in enumerate(scores):
        keep = [j for j in range(3) if not causal or j <= i]
        weights = [mpmath.exp(row[j]) for j in keep]
        total = mpmath.fsum(weights)
        expected.append([mpmath.fsum(w * mpmath.mpf(v[j][c]) for w, j in zip(weights, keep)) / total for c in range(2)])
    assert_exact(reference("sdpa", q, k, v, is_causal=causal), expected)


def test_attention_with_an_additive_mask_and_a_scale_reference_is_exact():
    q, k, v = M, [M[1], M[0], f32([1.0, 1.0, -1.0])], N
    mask = [f32([0.0, -1.5, 0.25]), f32([-1e4, 3.0, 0.0])]  # L x S, added to the scores
    scores = [[s * mpmath.mpf(0.3) + mpmath.mpf(mask[i][j]) for j, s in enumerate(row)] for i, row in enumerate(matmul(q, [list(c) for c in zip(*k)]))]
    expected = []
    for row in scores:
        weights = [mpmath.exp(s) for s in row]
        expected.append([mpmath.fsum(w * mpmath.mpf(v[j][c]) for j, w in enumerate(weights)) / mpmath.fsum(weights) for c in range(2)])
    assert_exact(reference("sdpa_masked", q, k, v, mask, scale=0.3), expected)


def test_attention_with_a_boolean_mask_reference_is_exact_and_a_row_with_none_kept_is_zero():
    q, k, v = M, [M[1], M[0], f32([1.0, 1.0, -1.0])], N
    keep = [[1, 0, 1], [0, 0, 0]]  # the mask as the program holds it: an index of 0s and 1s
    scores = matmul(q, [list(c) for c in zip(*k)])
    weights = [mpmath.exp(scores[0][j] * mpmath.mpf(0.125)) if keep[0][j] else 0 for j in range(3)]
    first = [mpmath.fsum(w * mpmath.mpf(v[j][c]) for j, w in enumerate(weights)) / mpmath.fsum(weights) for c in range(2)]
    assert_exact(reference("sdpa_bool_masked", q, k, v, keep, scale=0.125), [first, [0, 0]])


P, T = f32([-3.0, -0.5, 0.2, 1.5, 40.0, -40.0]), f32([0.2, 0.9, 0.5, 1.0, 1.0, 0.0])
SIGNS = [1.0, -1.0, 1.0, -1.0, 1.0, -1.0]


def _mean(terms):
    return mpmath.fsum(terms) / len(terms)


def _smooth_l1(d, beta):
    return d * d / 2 / beta if abs(d) < beta else abs(d) - beta / 2


def _huber(d, delta):
    return d * d / 2 if abs(d) < delta else delta * (abs(d) - delta / 2)


LOSSES = {
    "mse_loss": ({}, lambda x, t: (x - t) ** 2, [P, T]),
    "smooth_l1_loss": ({"beta": 0.5}, lambda x, t: _smooth_l1(x - t, mpmath.mpf(0.5)), [P, T]),
    "huber_loss": ({"delta": 2.0}, lambda x, t: _huber(x - t, 2), [P, T]),
    "kl_div": ({}, lambda x, t: t * (mpmath.log(t) - x), [P, [t or 0.5 for t in T]]),
    "bce_with_logits": ({}, lambda x, t: -(t * mpmath.log(1 / (1 + mpmath.exp(-x))) + (1 - t) * mpmath.log(1 - 1 / (1 + mpmath.exp(-x)))), [P, T]),
    "soft_margin_loss": ({}, lambda x, y: mpmath.log1p(mpmath.exp(-y * x)), [P + [-1000.0], SIGNS + [1.0]]),
    "margin_ranking_loss": ({"margin": 0.5}, lambda a, b, y: max(0, -y * (a - b) + mpmath.mpf(0.5)), [P, T, SIGNS]),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_loss_reference_is_exact(name, reduction):
    attrs, fn, inputs = LOSSES[name]
    if name == "kl_div" and reduction == "mean":
        reduction = "batchmean"  # over a 1-d input the two agree; "mean" warns
    terms = elementwise(fn, *inputs)
    expected = terms if reduction == "none" else mpmath.fsum(terms) if reduction == "sum" else _mean(terms)
    assert_exact(reference(name, *inputs, reduction=reduction, **attrs), expected)


def test_cross_entropy_with_probability_targets_is_exact():
    x, t = [P[:3], P[3:]], [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]
    per_row = []
    for row, target in zip(x, t):
        lse = mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(v)) for v in row))
        smoothed = [mpmath.mpf(p) * (1 - mpmath.mpf(0.1)) + mpmath.mpf(0.1) / 3 for p in target]
        per_row.append(-mpmath.fsum(p * (mpmath.mpf(v) - lse) for p, v in zip(smoothed, row)))
    assert_exact(reference("cross_entropy", x, t, reduction="none", label_smoothing=0.1), per_row)
    assert_exact(reference("cross_entropy", x, t, reduction="mean", label_smoothing=0.1), _mean(per_row))


def test_torch_float64_alone_misses_where_the_helpers_step_in():
    """Why `numfuzz.program.exact` exists: at these points torch's float64 kernels fail the bar above."""
    d = torch.float64
    assert torch.sinc(torch.tensor(3.0, dtype=d)).item() != 0.0
    for near_root in (1.4616321325302124, -2.6107208728790283):  # fp32 values next to digamma's roots
        assert fp32_ulps(torch.digamma(torch.tensor(near_root, dtype=d)).item(), mpmath.digamma(near_root)) > 0.1
        assert fp32_ulps(reference("digamma", [near_root]).item(), mpmath.digamma(near_root)) < TOLERANCE
    assert fp32_ulps(torch.nn.functional.tanhshrink(torch.tensor(1e-6, dtype=d)).item(), mpmath.mpf(1e-6) - mpmath.tanh(1e-6)) > 1
    x, zero, one = torch.tensor([-40.0], dtype=d), torch.tensor([0.0], dtype=d), torch.tensor([1.0], dtype=d)
    assert torch.nn.functional.binary_cross_entropy_with_logits(x, zero).item() == 0.0  # e^-40 lost
    assert torch.nn.functional.soft_margin_loss(torch.tensor([-1000.0], dtype=d), one).item() == math.inf


def values_tested_by_modules() -> set[str]:
    """The ops every test module under tests/ names in its `VALUES_TESTED` (a literal tuple): a new op's test says it."""
    found: set[str] = set()
    for path in sorted(Path(__file__).parents[2].rglob("test_*.py")):
        for stmt in ast.parse(path.read_text()).body:
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "VALUES_TESTED" for t in stmt.targets):
                found |= set(ast.literal_eval(stmt.value))
    return found


def test_every_op_added_to_the_first_fifty_has_a_value_test():
    from helpers import FIRST_FIFTY_OPS

    from numfuzz.program.ops import OPS

    tested = set(UNARY) | set(WITH_ATTRS) | set(BINARY) | set(REDUCTIONS) | set(LOSSES) | values_tested_by_modules()
    assert {"nll_loss", "pad", "adaptive_avg_pool1d"} <= tested  # found in other modules (a misread file would lose them)
    own = {name for name, spec in OPS.items() if spec.family != "database"}  # a database op's reference is its own call in float64
    assert own - set(FIRST_FIFTY_OPS) - tested == set()


def test_conv2d_reference_is_exact():
    """A 3x3 kernel over a padded 2-channel image, and a depthwise one with stride 2: sums of products at 100 bits."""
    image = [[f32([0.5, -1.25, 3.0, 0.1]), f32([2.0, 0.1, -0.7, 1.5]), f32([1.0, 0.3, -2.0, 4.0])], [f32([0.25, -0.5, 7.0, -3.0])] * 3]
    kernel = [[[f32([0.3, -1.0, 2.5])] * 3, [f32([1.5, 0.7, -0.2])] * 3]]  # (1 out, 2 in, 3, 3)

    def at(c: int, i: int, j: int) -> mpmath.mpf:
        return mpmath.mpf(image[c][i][j]) if 0 <= i < 3 and 0 <= j < 4 else mpmath.mpf(0)

    want = [
        [
            [mpmath.fsum(at(c, i + a - 1, j + b - 1) * kernel[0][c][a][b] for c in range(2) for a in range(3) for b in range(3)) for j in range(4)]
            for i in range(3)
        ]
    ]
    assert_exact(reference("conv2d", image, kernel, stride=1, padding=1, dilation=1, groups=1), want)
    depthwise = [[[f32([2.0])]], [[f32([-0.3])]]]  # (2 out, 1 in, 1, 1), groups 2
    want = [[[mpmath.mpf(image[c][i][j]) * depthwise[c][0][0][0] for j in range(0, 4, 2)] for i in range(0, 3, 2)] for c in range(2)]
    assert_exact(reference("conv2d", image, depthwise, stride=2, padding=0, dilation=1, groups=2), want)


def test_in_place_ops_and_a_write_through_a_view_give_the_written_clone():
    x, y = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[0.5, -1.0, 2.0]]
    assert_exact(reference("add_inplace", x, y), [[1.5, 1.0, 5.0], [4.5, 4.0, 8.0]])
    assert_exact(reference("mul_inplace", x, y), [[0.5, -2.0, 6.0], [2.0, -5.0, 12.0]])
    written = reference("slice_write", x, [[9.0], [8.0]], dim=1, start=1, length=1)
    assert_exact(written, [[1.0, 9.0, 3.0], [4.0, 8.0, 6.0]])  # the whole clone, the slice overwritten, the input untouched


GRID = [f32([1.5, -0.25, 3.0, 0.1]), f32([-2.0, 0.3, 7.0, 1e-3]), f32([0.7, 1e4, -0.6, 4.0])]  # 3 x 4


def _written(x: list[list[float]], at: dict[tuple[int, ...], float]) -> list:
    """x (nested lists, any rank) with the elements at these positions replaced."""
    out = np.array(x, dtype=object)
    for position, value in at.items():
        out[position] = value
    return out.tolist()


def test_scatter_copies_write_their_source_exactly():
    src = f32([10.1, -20.2, 30.3])
    want = _written(GRID, {(0, 1): src[0], (1, 2): src[1], (2, 3): src[2]})  # offset 1: above the diagonal
    assert_exact(reference("diagonal_scatter", GRID, src, offset=1, dim1=0, dim2=1), want)
    want = _written(GRID, {(1, 0): src[0], (2, 1): src[1]})  # offset -1: below it, dims written from the end
    assert_exact(reference("diagonal_scatter", GRID, src[:2], offset=-1, dim1=-2, dim2=-1), want)
    cube = [[f32([1.0, 2.0]), f32([3.0, 4.0]), f32([5.0, 6.0])], [f32([7.0, 8.0]), f32([9.0, 10.0]), f32([11.0, 12.0])]]  # 2 x 3 x 2
    diagonals = [f32([0.1, 0.2]), f32([0.3, 0.4]), f32([0.5, 0.6])]  # dims 0 and 2: the middle dim, then the diagonal
    want = _written(cube, {(i, j, i): diagonals[j][i] for i in range(2) for j in range(3)})
    assert_exact(reference("diagonal_scatter", cube, diagonals, offset=0, dim1=0, dim2=2), want)
    row = f32([9.5, -8.25, 1e-5, 6.0])
    assert_exact(reference("select_scatter", GRID, row, dim=0, index=-1), GRID[:2] + [row])
    assert_exact(reference("select_scatter", GRID, src, dim=1, index=2), _written(GRID, {(i, 2): src[i] for i in range(3)}))
    columns = [f32([0.5, 0.25]), f32([-1.0, 2.0]), f32([3.5, 1e-6])]  # columns 0 and 2 of a step-2 slice
    want = _written(GRID, {(i, j): columns[i][k] for i in range(3) for k, j in enumerate((0, 2))})
    assert_exact(reference("slice_scatter", GRID, columns, dim=1, start=0, stop=4, step=2), want)


def indexed_reference(op: str, x, index, src, **attrs) -> torch.Tensor:
    """The float64 reference of an op that takes (x, i64 index, src), handed its indices as int64 and, as the analysis
    hands every input, as float64: both give one result."""
    values, indices, source = torch.tensor(x, dtype=torch.float64), torch.tensor(index), torch.tensor(src, dtype=torch.float64)
    specs = (TensorSpec(tuple(values.shape), "fp32"), TensorSpec(tuple(indices.shape), "i64"), TensorSpec(tuple(source.shape), "fp32"))
    fn = compile_source(lower(Graph(specs, (Node.make(op, [0, 1, 2], **attrs),), (3,)), reference=True))
    (out,), (again,) = fn(values, indices, source), fn(values, indices.double(), source)
    assert torch.equal(out, again)
    return out


def test_scatter_sums_add_every_term_at_its_index():
    """A repeated index adds both terms; 1e4 + 0.3 - 1e4 keeps the 0.3 that fp32 would round away."""
    rows = [f32([0.25, 1e-3, -3.0, 2.0]), f32([-1e4, 0.5, 0.125, -4.0]), f32([0.3, -7.0, 1.0, 1e-7])]
    m = mpmath.mpf
    want = [
        [m(GRID[0][j]) + m(-0.5) * m(rows[1][j]) for j in range(4)],
        [m(v) for v in GRID[1]],
        [m(GRID[2][j]) - m(0.5) * (m(rows[0][j]) + m(rows[2][j])) for j in range(4)],
    ]
    assert_exact(indexed_reference("index_add", GRID, [2, 0, 2], rows, dim=0, alpha=-0.5), want)
    assert_exact(indexed_reference("index_add", GRID, [1, 1], [[-1e4, 1e4]] * 3, dim=-1, alpha=1), [[m(v) for v in row] for row in GRID])
    src = [f32([-1e4, 0.3]), f32([3.0, 4.0]), f32([5.5, 1e-3])]
    want = [[m(v) for v in row] for row in GRID]
    want[0][1] += m(src[0][0]) + m(src[0][1])  # 1e4 - 1e4 + 0.3 in row 0: both terms at column 1
    want[1][0] += m(src[1][0])
    want[1][3] += m(src[1][1])
    want[2][2] += m(src[2][0]) + m(src[2][1])
    assert_exact(indexed_reference("scatter_add", GRID, [[1, 1], [0, 3], [2, 2]], src, dim=1), want)


def test_digamma_near_its_roots_is_corrected_once_per_value_and_keeps_its_gradient():
    """A campaign's model-sized value next to digamma's root, with gradients, kept a worker in mpmath for over ten
    minutes element by element; the helper corrects each distinct value once, out of place, the gradient trigamma."""
    import time

    root = 1.4616321325302124
    x = torch.full((1 << 20,), root, dtype=torch.float64)
    x[::2] = -2.6107208728790283
    x[1] = 7.25  # far from a root: torch's own value
    x.requires_grad_(True)
    graph = Graph((TensorSpec(tuple(x.shape), "fp32"),), (Node.make("digamma", [0]),), (1,))
    start = time.perf_counter()
    (out,) = compile_source(lower(graph, reference=True))(x)
    out.sum().backward()
    assert time.perf_counter() - start < 10  # about 0.1 s; element by element, minutes
    assert fp32_ulps(out[0].item(), mpmath.digamma(-2.6107208728790283)) < TOLERANCE
    assert fp32_ulps(out[3].item(), mpmath.digamma(root)) < TOLERANCE
    assert out[1].item() == torch.digamma(torch.tensor(7.25, dtype=torch.float64)).item()
    trigamma = torch.polygamma(1, x.detach()[:4])
    assert torch.equal(x.grad[:4], trigamma)
