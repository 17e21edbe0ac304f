"""The cross product of 3-vectors, `torch.linalg.cross(a, b, dim)`: geometry, rotations, surface normals in a model.

Each element is a difference of two products, a[i+1] b[i+2] - a[i+2] b[i+1]: it cancels where the vectors are near
parallel, and cross(x, x) is 0 exactly in exact arithmetic. A kernel that fuses one product into the subtraction (an
FMA) leaves that product's rounding error there instead: eager's CPU kernel gives cross(x, x) of about 1e-8 in fp32.
The float64 reference is torch's float64 kernel: products of bf16, fp16 or fp32 values are exact in float64, so each
element of an input's cross product is rounded once; on values computed in float64 the kernel's own FMA leaves at most
a float64 ULP of the products, far below any program dtype's. Its family, `vec3`, finds the operands: a dim of length 3 in both, one rank, and a partner
that broadcasts against the first off that dim (torch's rule: no broadcasting along it, none across ranks).
"""

from __future__ import annotations

from typing import Any

from numfuzz.program.families import Builder, register
from numfuzz.program.ir import GraphError, TensorSpec
from numfuzz.program.op_spec import OpSpec, broadcast_shapes, norm_dim

SAME_SHARE = 0.3  # how often the partner is a value already drawn of the first's shape (the first itself among them)
KEEP_SHARE = 0.7  # how often a new partner keeps each of the first's dims off the vectors' dim (else 1: broadcast)


def _cross(specs: list[TensorSpec], attrs: dict) -> TensorSpec:
    a, b = specs[0].shape, specs[1].shape
    if len(a) != len(b):
        raise GraphError(f"cross takes operands of one rank, got {a} and {b}")
    dim = norm_dim(attrs["dim"], len(a))
    if a[dim] != 3 or b[dim] != 3:
        raise GraphError(f"cross needs length 3 along dim {dim}, got {a} and {b}")
    return TensorSpec(broadcast_shapes(a, b), specs[0].dtype)


def _draw_vectors(b: Builder, op: OpSpec, first: int, attrs: dict[str, Any]) -> tuple[list[int], dict[str, Any]]:
    """A dim of length 3 in the first (where it has none, a new input of its shape with one dim made 3 stands in its
    place), and a partner of its rank: a value of its shape, or a new input with some dims off that one made 1."""
    rng, spec = b.draw("attrs"), b.specs[first]
    shape = spec.shape
    threes = [d for d, n in enumerate(shape) if n == 3]
    if threes:
        dim = rng.choice(threes)
    else:
        dim = rng.randrange(len(shape))
        shape = shape[:dim] + (3,) + shape[dim + 1 :]
        first = b.new_input(shape, spec.dtype)
    same = [i for i in b.floats() if b.specs[i].shape == shape and b.specs[i].dtype == spec.dtype]
    if same and b.rng.random() < SAME_SHARE:  # the first itself among them: cross(x, x), 0 but for a fused rounding
        other = b.rng.choice(same)
    else:
        shapes = b.draw("shapes")
        other = b.new_input(tuple(n if d == dim or shapes.random() < KEEP_SHARE else 1 for d, n in enumerate(shape)), spec.dtype)
    return [first, other], {"dim": dim - len(shape) if rng.random() < 0.5 else dim}


register("vec3", _draw_vectors)

SPECS: list[OpSpec] = [
    # two products and their difference per element; autocast leaves it alone on CPU (on neither of its lists)
    OpSpec(
        "cross",
        2,
        "vec3",
        _cross,
        same_dtype=True,
        weight=0.5,
        terms=lambda specs, attrs: 2,
        bound="undocumented",
        call="torch.linalg.cross({0}, {1}, dim={dim})",
        captured=("torch.cross({0}, {1}, dim={dim})",),
    ),
]
