"""Matrix products: linear, matmul, batched and fused products, einsum, attention."""

from __future__ import annotations

import math
import random
from typing import Any

from numfuzz.program.autocast import ATTR as AUTOCAST_ATTR
from numfuzz.program.autocast import LOWER
from numfuzz.program.families import Builder, register
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, broadcast_shapes, draw_choice, need_rank, terms_last_dim

FRESH_DIM = 8  # the largest new dim a fresh operand gets


def _linear(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    x, w = specs[0].shape, specs[1].shape
    if not x or len(w) != 2 or w[1] != x[-1]:
        raise GraphError(f"linear shapes {x} and {w} disagree")
    if len(specs) == 3 and specs[2].shape != (w[0],):
        raise GraphError("linear bias must have shape (out_features,)")
    return TensorSpec(x[:-1] + (w[0],), specs[0].dtype)


def _matmul(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) < 1 or len(b) != 2 or a[-1] != b[0]:
        raise GraphError(f"matmul shapes {a} and {b} disagree")
    return TensorSpec(a[:-1] + (b[1],), specs[0].dtype)


def _draw_linear(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """A new weight (out_features, the first's last dim) in its dtype, and sometimes a bias."""
    spec, shapes = b.specs[first], b.draw("shapes")
    w = b.new_input((shapes.randint(1, b.config.max_dim), spec.shape[-1]), spec.dtype)
    args = [first, w]
    if b.rng.random() < 0.3:
        args.append(b.new_input((b.specs[w].shape[0],), spec.dtype))
    return args, attrs


def _draw_matmul(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """A new matrix (the first's last dim, a new dim) in its dtype."""
    spec = b.specs[first]
    return [first, b.new_input((spec.shape[-1], b.draw("shapes").randint(1, b.config.max_dim)), spec.dtype)], attrs


register("linear", _draw_linear, terms=terms_last_dim)  # the products it sums: the last dim
register("matmul", _draw_matmul, terms=terms_last_dim)


def _matmul_batched(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    """torch.matmul's rule for any ranks: a 1-d operand is a row (first) or a column (second), dropped from the result;
    the dims before the last two broadcast."""
    a, b = specs[0].shape, specs[1].shape
    if not a or not b or a[-1] != (b[-2] if len(b) > 1 else b[0]):
        raise GraphError(f"matmul shapes {a} and {b} disagree")
    batch = broadcast_shapes(a[:-2], b[:-2])
    return TensorSpec(batch + a[-2:-1] + b[-1:] * (len(b) > 1), specs[0].dtype)


def _batched_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    """The second operand (..., k, m), 3-d or 4-d where the first is at most 2-d: its batch dims each the first's,
    1 (broadcast) or, against a 1 or past the first's rank, a small new size."""
    rank = rng.choice([r for r in (2, 3, 4) if max(r, len(spec.shape)) >= 3])
    lead = spec.shape[:-2]
    batch = []
    for i in range(rank - 2):
        j = len(lead) - (rank - 2) + i  # the first's dim it meets, counting from the right
        theirs = lead[j] if j >= 0 else 1
        batch.append(rng.choice([theirs, 1] if theirs > 1 else [1, rng.randint(2, 3)]))
    return [(*batch, spec.shape[-1], _new(rng))]


def _bmm(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) != 3 or len(b) != 3 or a[0] != b[0] or a[2] != b[1]:
        raise GraphError(f"bmm shapes {a} and {b} disagree")
    return TensorSpec((a[0], a[1], b[2]), specs[0].dtype)


def _with_addend(product):
    """baddbmm and addmm: the product of the first two arguments, plus the third broadcast to it."""

    def infer(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
        out = product(specs[:2], attrs)
        if broadcast_shapes(out.shape, specs[2].shape) != out.shape:
            raise GraphError(f"addend {specs[2].shape} does not broadcast to {out.shape}")
        return out

    return infer


def _mm(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) != 2 or len(b) != 2 or a[1] != b[0]:
        raise GraphError(f"mm shapes {a} and {b} disagree")
    return TensorSpec((a[0], b[1]), specs[0].dtype)


def _new(rng: random.Random) -> int:
    return rng.randint(1, FRESH_DIM)


def _addend(rng: random.Random, out: tuple[int, ...]) -> tuple[int, ...]:
    return rng.choice([out, out[-1:], (1,) * (len(out) - 1) + out[-1:]])


def _bmm_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 3, 3)
    b, n, k = spec.shape
    return [(b, k, _new(rng))]


def _baddbmm_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    (batch2,) = _bmm_operands(rng, spec, attrs)
    return [batch2, _addend(rng, (spec.shape[0], spec.shape[1], batch2[2]))]


def _addmm_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 2, 2)
    m = _new(rng)
    return [(spec.shape[1], m), _addend(rng, (spec.shape[0], m))]


def _draw_scales(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"beta": rng.choice([1.0, 0.5, -1.0]), "alpha": rng.choice([1.0, 2.0, 0.1])}


# einsum equations by the rank of the first operand; each has two operands
EQUATIONS = {
    1: ["i,i->", "i,j->ij"],
    2: ["ij,jk->ik", "ij,kj->ik", "ij,ij->i", "ij,j->i"],
    3: ["bij,bjk->bik", "bij,bkj->bik"],
    4: ["bhqd,bhkd->bhqk"],
}


def _draw_equation(rng: random.Random, specs: list[TensorSpec]) -> dict:
    if len(specs[0].shape) not in EQUATIONS:
        raise GraphError(f"no einsum equation for rank {len(specs[0].shape)}")
    return {"equation": rng.choice(EQUATIONS[len(specs[0].shape)])}


def _letters(equation: str) -> tuple[list[str], str]:
    inputs, out = equation.split("->")
    return inputs.split(","), out


def _einsum(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    terms, out = _letters(attrs["equation"])
    if len(terms) != len(specs):
        raise GraphError(f"einsum {attrs['equation']} takes {len(terms)} operands")
    sizes: dict[str, int] = {}
    for term, spec in zip(terms, specs):
        if len(term) != len(spec.shape):
            raise GraphError(f"einsum term {term} does not fit shape {spec.shape}")
        for letter, d in zip(term, spec.shape):
            if sizes.setdefault(letter, d) != d:
                raise GraphError(f"einsum index {letter} is {sizes[letter]} and {d}")
    contracted = math.prod(d for c, d in sizes.items() if c not in out)
    if attrs.get(AUTOCAST_ATTR) and contracted <= 1:
        # CPU autocast casts einsum's inner bmm; with nothing to contract torch multiplies instead, in fp32 (refused on
        # every device: the shape rule does not know it, and CUDA's autocast, which casts einsum itself, only loses a graph)
        raise GraphError(f"einsum {attrs['equation']} contracts nothing here: autocast leaves it in fp32 (not modelled)")
    return TensorSpec(tuple(sizes[c] for c in out), specs[0].dtype)


def _contracted(specs: list[TensorSpec], attrs: dict) -> int:
    """An einsum's terms per output element: the product of the sizes of the indices it sums over (none: one)."""
    terms, out = _letters(attrs["equation"])
    sizes = {letter: d for term, spec in zip(terms, specs) for letter, d in zip(term, spec.shape)}
    return math.prod(d for letter, d in sizes.items() if letter not in out)


def _keys(specs: list[TensorSpec], attrs: dict) -> int:
    """Attention's terms per output element: its weighted sum over the keys (as many as the softmax's row)."""
    return specs[1].shape[-2]


def _einsum_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    terms, _ = _letters(attrs["equation"])
    sizes = dict(zip(terms[0], spec.shape))
    return [tuple(sizes.setdefault(c, _new(rng)) for c in term) for term in terms[1:]]


def _attention(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    q, k, v = (s.shape for s in specs)
    if not 2 <= len(q) <= 4 or len(k) != len(q) or len(v) != len(q):
        raise GraphError("attention needs q, k, v of one rank in 2..4")
    if q[:-2] != k[:-2] or k[:-2] != v[:-2] or q[-1] != k[-1] or k[-2] != v[-2]:
        raise GraphError(f"attention shapes {q}, {k}, {v} disagree")
    return TensorSpec(q[:-1] + v[-1:], specs[0].dtype)


def _attention_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    need_rank(spec, 2, 4)
    lead, e = spec.shape[:-2], spec.shape[-1]
    s = spec.shape[-2] if attrs["is_causal"] and rng.random() < 0.5 else _new(rng)
    return [(*lead, s, e), (*lead, s, _new(rng))]


def _masked_attention(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    out = _attention(specs[:3], attrs)
    scores = specs[0].shape[:-1] + specs[1].shape[-2:-1]  # (..., L, S)
    if len(specs[3].shape) > len(scores) or broadcast_shapes(scores, specs[3].shape) != scores:
        raise GraphError(f"an attention mask {specs[3].shape} does not broadcast to the scores {scores}")
    return out


def _masked_attention_operands(rng: random.Random, spec: TensorSpec, attrs: dict) -> list[tuple[int, ...]]:
    k, v = _attention_operands(rng, spec, {"is_causal": False})
    scores = spec.shape[:-1] + k[-2:-1]
    return [k, v, rng.choice([scores, scores[-2:], (1,) * (len(scores) - 2) + scores[-2:]])]


def _keep_or_drop(spec: TensorSpec, attrs: dict) -> int:
    return 2  # a boolean mask's values as an index: 0 (drop) or 1 (keep)


def _draw_scale(rng: random.Random, specs: list[TensorSpec]) -> dict:
    return {"scale": rng.choice([None, None, 1.0, 0.125, 0.3])}  # None: 1/sqrt(E), as torch takes it


SPECS: list[OpSpec] = [
    OpSpec(
        "linear",
        2,
        "linear",
        _linear,
        same_dtype=True,
        optional=1,
        bound="table",
        autocast=LOWER,
        call="F.linear({args})",
        captured=("F.linear({0}, {1}, {2})",),
    ),
    OpSpec("matmul", 2, "matmul", _matmul, same_dtype=True, bound="table", autocast=LOWER, call="torch.matmul({0}, {1})", captured=("{0} @ {1}",)),
    # 3-d and 4-d operands on either side (matmul's second is 2-d): one element sums the shared dim's products
    OpSpec(
        "matmul_batched",
        2,
        "fresh",
        _matmul_batched,
        same_dtype=True,
        operands=_batched_operands,
        terms=terms_last_dim,
        weight=0.5,
        bound="table",
        autocast=LOWER,
        call="torch.matmul({0}, {1})",
        captured=("{0} @ {1}",),
    ),
    OpSpec(
        "bmm", 2, "fresh", _bmm, same_dtype=True, operands=_bmm_operands, terms=terms_last_dim, bound="undocumented", autocast=LOWER, call="torch.bmm({0}, {1})"
    ),
    OpSpec(
        "baddbmm",
        3,
        "fresh",
        _with_addend(_bmm),
        same_dtype=True,
        draw_attrs=_draw_scales,
        operands=_baddbmm_operands,
        terms=terms_last_dim,  # the products of the shared dim; as a linear's bias, the addend is not counted
        bound="undocumented",
        autocast=LOWER,
        call="torch.baddbmm({2}, {0}, {1}, beta={beta!r}, alpha={alpha!r})",
    ),
    OpSpec(
        "addmm",
        3,
        "fresh",
        _with_addend(_mm),
        same_dtype=True,
        draw_attrs=_draw_scales,
        operands=_addmm_operands,
        terms=terms_last_dim,
        bound="undocumented",
        autocast=LOWER,
        call="torch.addmm({2}, {0}, {1}, beta={beta!r}, alpha={alpha!r})",
    ),
    OpSpec(
        "einsum",
        2,
        "fresh",
        _einsum,
        same_dtype=True,
        draw_attrs=_draw_equation,
        operands=_einsum_operands,
        terms=_contracted,
        bound="undocumented",
        autocast=LOWER,
        call="torch.einsum({equation!r}, {0}, {1})",
    ),
    OpSpec(
        "sdpa",
        3,
        "fresh",
        _attention,
        same_dtype=True,
        draw_attrs=draw_choice("is_causal", [False, True]),
        operands=_attention_operands,
        terms=_keys,
        bound="undocumented",
        autocast=LOWER,
        call="F.scaled_dot_product_attention({0}, {1}, {2}, is_causal={is_causal})",
    ),
    # an additive float mask (T5's position bias, a padding mask as -inf) and a scale, as models pass them
    OpSpec(
        "sdpa_masked",
        4,
        "fresh",
        _masked_attention,
        weight=0.5,
        same_dtype=True,
        draw_attrs=_draw_scale,
        operands=_masked_attention_operands,
        terms=_keys,
        bound="undocumented",
        autocast=LOWER,
        call="F.scaled_dot_product_attention({0}, {1}, {2}, attn_mask={3}, scale={scale!r})",
    ),
    # a boolean mask (causal, padding: most models' call), held as an index of 0s and 1s; a row with none kept gives 0s
    OpSpec(
        "sdpa_bool_masked",
        4,
        "fresh",
        _masked_attention,
        weight=0.5,
        domains=("any", "any", "any", "index"),
        same_dtype=True,
        draw_attrs=_draw_scale,
        operands=_masked_attention_operands,
        terms=_keys,
        index_arg=3,
        index_bound=_keep_or_drop,
        bound="undocumented",
        autocast=LOWER,
        call="F.scaled_dot_product_attention({0}, {1}, {2}, attn_mask={3}.bool(), scale={scale!r})",
        captured=("F.scaled_dot_product_attention({0}, {1}, {2}, attn_mask={3}, scale={scale!r})",),
    ),
]
