"""Shape rules of the ops the 2026 survey's bugs need: index ops keep their dim, max_pool2d_indices pools as max_pool2d,
adaptive_avg_pool1d resizes the last dim, interpolation takes 5-d inputs (nearest, trilinear), affine_grid builds
(N, H, W, 2) from theta (N, 2, 3), and ldexp takes int8 exponents only."""

import pytest
import torch

from numfuzz.program.ir import GraphError, Node, TensorSpec
from numfuzz.program.ops import infer_node

F = torch.nn.functional


def _shape(op: str, specs: list[TensorSpec], **attrs) -> tuple[int, ...]:
    return infer_node(Node.make(op, list(range(len(specs))), **attrs), specs).shape


@pytest.mark.parametrize("op", ["argmax", "argmin", "max_dim"])
def test_an_index_op_keeps_its_dim(op):
    assert _shape(op, [TensorSpec((3, 5, 2), "bf16")], dim=1) == (3, 1, 2)
    with pytest.raises(GraphError):
        _shape(op, [TensorSpec((3,), "bf16")], dim=2)


def test_pooling_indices_adaptive_1d_and_5d_interpolation_match_torch():
    x = torch.zeros(2, 3, 7, 5)
    attrs = dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)
    assert _shape("max_pool2d_indices", [TensorSpec(tuple(x.shape), "fp32")], **attrs) == F.max_pool2d(x, 3, 2, 1, ceil_mode=True).shape
    assert _shape("adaptive_avg_pool1d", [TensorSpec((3, 10), "fp16")], output_size=4) == (3, 4)
    video = torch.zeros(1, 2, 3, 4, 5)
    for attrs in (
        dict(mode="trilinear", align_corners=True, size=(2, 6, 7), scale_factor=None),
        dict(mode="nearest", align_corners=None, size=None, scale_factor=1.5),
    ):
        want = F.interpolate(video, size=attrs["size"], scale_factor=attrs["scale_factor"], mode=attrs["mode"], align_corners=attrs["align_corners"]).shape
        assert _shape("interpolate", [TensorSpec(tuple(video.shape), "fp32")], **attrs) == want
    with pytest.raises(GraphError, match="none of"):  # bilinear refuses a 5-d input
        _shape("interpolate", [TensorSpec(tuple(video.shape), "fp32")], mode="bilinear", align_corners=False, size=None, scale_factor=2.0)


def test_affine_grid_and_ldexp_shapes_and_dtypes():
    spec = infer_node(Node.make("affine_grid", [0, 1], align_corners=False), [TensorSpec((2, 3, 4, 5), "fp16"), TensorSpec((2, 2, 3), "fp16")])
    assert spec == TensorSpec((2, 4, 5, 2), "fp16") and spec.shape == F.affine_grid(torch.zeros(2, 2, 3), (2, 3, 4, 5), align_corners=False).shape
    with pytest.raises(GraphError, match="theta"):
        _shape("affine_grid", [TensorSpec((2, 3, 4, 5), "fp16"), TensorSpec((1, 2, 3), "fp16")], align_corners=False)
    assert infer_node(Node.make("ldexp", [0, 1]), [TensorSpec((4, 3), "fp16"), TensorSpec((1, 3), "i8")]) == TensorSpec((4, 3), "fp16")
    with pytest.raises(GraphError, match="i8"):
        infer_node(Node.make("ldexp", [0, 1]), [TensorSpec((4, 3), "fp16"), TensorSpec((1, 3), "i64")])


def test_affine_grid_of_a_value_below_rank_4_is_one_image_of_its_last_two_dims():
    assert _shape("affine_grid", [TensorSpec((7, 3, 5), "fp32"), TensorSpec((1, 2, 3), "fp32")], align_corners=True) == (1, 3, 5, 2)


def test_the_generator_draws_affine_grid_on_cpu_in_the_dtypes_its_cpu_kernel_has():
    from numfuzz.program.generator import generate
    from numfuzz.program.ops import infer_specs
    from numfuzz.program.space import GenConfig

    config = GenConfig(ops=("affine_grid", "exp", "unsqueeze"))
    drawn = {"cpu": set(), "cuda": set()}
    for widths in drawn:
        for seed in range(300):
            graph, _ = generate(seed, config, widths)
            specs = infer_specs(graph)
            drawn[widths] |= {specs[node.args[0]].dtype for node in graph.nodes if node.op == "affine_grid"}
    assert drawn["cpu"] and drawn["cpu"] <= {"fp32", "fp64"}
    assert drawn["cuda"] & {"bf16", "fp16"}  # CUDA's kernel has them: the surveyed bug's dtypes
