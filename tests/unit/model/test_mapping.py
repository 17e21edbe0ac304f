"""Captured calls onto the op table: each op's templates recognise the calls a model's graph makes, with the right
attributes, and a region of a module becomes a numfuzz program on the values eager gave it, cut around what has no op."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from numfuzz.model.coverage import coverage
from numfuzz.model.mapping import Mapped, PassThrough, map_node, parse_template
from numfuzz.model.region import capture_values, extract_region
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import OPS


def _captured(fn, *args):
    (gm, values), *_ = capture_values(fn, args, {})
    return [n for n in gm.graph.nodes if n.op in ("call_function", "call_method")], values


def _mapped(fn, *args):
    nodes, _ = _captured(fn, *args)
    return [map_node(n) for n in nodes]


def test_every_template_that_is_one_call_parses_to_a_pattern():
    single = [name for name, spec in OPS.items() if spec.call and parse_template(name, spec.call, spec.arity) is not None]
    assert {"exp", "gelu", "mean", "linear", "cat", "reshape", "add_scalar", "embedding", "softmax"} <= set(single)
    assert parse_template("where", OPS["where"].call, 3) is None  # `{0} > 0` computes: more than one call


def test_calls_map_with_their_attributes_by_signature():
    x = torch.randn(2, 8, dtype=torch.bfloat16)
    found = _mapped(lambda x: (x.pow(2).mean(-1, keepdim=True) + 1e-6, F.gelu(x, approximate="tanh"), torch.cat((-x, x), dim=-1)), x)
    assert [(m.op, m.attrs) for m in found] == [
        ("pow_scalar", {"exponent": 2}),
        ("mean", {"dim": -1, "keepdim": True}),
        ("add_scalar", {"value": 1e-6}),
        ("gelu", {"approximate": "tanh"}),
        ("neg", {}),
        ("cat", {"dim": -1}),
    ]


def test_a_tensor_argument_is_not_taken_for_an_attribute():
    x, y = torch.randn(4), torch.randn(4)
    (power,) = _mapped(lambda x, y: torch.pow(x, y), x, y)
    (scaled,) = _mapped(lambda x: x * 3.0, x)
    assert (power.op, scaled.op, scaled.attrs) == ("pow", "mul_scalar", {"value": 3.0})


def test_casts_views_slices_and_pass_throughs():
    x = torch.randn(2, 3, 4, dtype=torch.bfloat16)
    found = _mapped(lambda x: (x.float().view(6, -1), x[..., 1:3], x.contiguous() * 2), x)
    assert (found[0].op, found[0].attrs) == ("cast", {"dtype": "fp32"})
    assert (found[1].op, found[1].attrs) == ("reshape", {"shape": (6, 4)})  # the -1 as it came out
    assert (found[2].op, found[2].attrs) == ("slice", {"dim": 2, "start": 1, "stop": 3, "step": 1})
    assert isinstance(found[3], PassThrough) and isinstance(found[4], Mapped)


def test_a_call_with_an_argument_the_op_does_not_take_does_not_map():
    x = torch.randn(4, 8)
    (softmax,) = _mapped(lambda x: F.softmax(x, dim=-1, dtype=torch.float64), x)  # the op has no dtype argument
    (norm,) = _mapped(lambda x, w: F.layer_norm(x, (8,), w, None), x, torch.ones(8))  # nor a weight
    assert softmax is None and norm is None


def test_coverage_names_what_does_not_map():
    nodes, _ = _captured(lambda x: torch.sort(x).values.exp() + torch.cumsum(x, 0), torch.randn(8))
    found = coverage(nodes)
    assert (found.calls, found.mapped, dict(found.missing)) == (5, 3, {"sort": 1, "getitem": 1})  # the values of sort's tuple: no op
    assert found.describe().endswith("floating calls with no op: sort, getitem")


class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.sort(self.proj(x), dim=-1).values  # no op for sort: the region is cut there
        return F.silu(h) * x


def test_a_region_runs_as_eager_ran_it_and_is_cut_around_what_has_no_op():
    torch.manual_seed(0)
    block, x = _Block().to(torch.bfloat16), torch.randn(2, 8, dtype=torch.bfloat16)
    region = extract_region(block, (x,), {})
    assert [n.op for n in region.graph.nodes] == ["linear", "silu", "mul"] and region.cut == {"sort": 1, "getitem": 1}
    assert all("test_mapping.py" in line for line in region.sources)
    outputs = compile_source(lower(region.graph))(*region.samples[0])
    with torch.no_grad():
        assert torch.equal(outputs[-1], block(x))  # the region's last output is the block's result, bit for bit


def test_under_autocast_the_region_s_ops_carry_it_and_run_as_eager_ran_them():
    torch.manual_seed(0)
    block, x = _Block(), torch.randn(2, 8)

    def run(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return block(x)

    region = extract_region(run, (x,), {})
    assert [(n.op, n.attr("autocast")) for n in region.graph.nodes] == [("linear", "bf16"), ("silu", "bf16"), ("mul", "bf16")]
    outputs = compile_source(lower(region.graph))(*region.samples[0])
    with torch.no_grad():
        assert torch.equal(outputs[-1], run(x))


def test_in_place_calls_map_and_the_values_recorded_before_them_stay_as_they_were():
    def fn(x, y):
        h = F.relu(x, inplace=True)
        h += y
        return h * 2

    x, y = torch.randn(16), torch.randn(16)
    region = extract_region(fn, (x.clone(), y), {})
    assert [n.op for n in region.graph.nodes] == ["relu", "add", "mul_scalar"]
    assert torch.equal(region.samples[0][0], x)  # x as it came in, not as relu_ left it
    assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], (x.relu() + y) * 2)


def test_a_region_inside_a_nested_autocast_region_with_autocast_off_comes_back_to_the_outer_one():
    """transformers' rotary embeddings turn autocast off inside the model's region; the ops after it are in bf16 again."""
    torch.manual_seed(0)
    block, x = _Block(), torch.randn(2, 8)

    def run(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            with torch.autocast("cpu", enabled=False):
                x = x * 2.0
            return F.linear(x, block.proj.weight)

    region = extract_region(run, (x,), {})
    assert [(n.op, n.attr("autocast")) for n in region.graph.nodes] == [("mul_scalar", None), ("linear", "bf16")]


def test_a_convolution_module_maps_to_conv2d_with_its_sizes_as_pairs():
    conv = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1, bias=True)
    depthwise = torch.nn.Conv2d(8, 8, 1, groups=8, bias=False)
    x = torch.randn(1, 4, 9, 9)
    found = _mapped(lambda x: depthwise(conv(x)), x)
    assert [(m.op, m.attrs["stride"], m.attrs["groups"]) for m in found] == [("conv2d", (2, 2), 1), ("conv2d", (1, 1), 8)]


def test_pooling_and_upsampling_modules_map_with_their_sizes_and_the_program_gives_the_module_s_values():
    """nn.MaxPool2d calls F.max_pool2d, whose signature is (*args, **kwargs) (it dispatches on return_indices): it maps
    by the plain branch's parameters; a None output size and a scale factor come through as the module passes them."""
    model = torch.nn.Sequential(
        torch.nn.MaxPool2d((2, 3), ceil_mode=True),
        torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        torch.nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False),
        torch.nn.AdaptiveAvgPool2d((None, 2)),
    )
    x = torch.randn(1, 2, 7, 8)
    found = _mapped(model, x)
    assert [m.op for m in found] == ["max_pool2d", "interpolate", "avg_pool2d", "adaptive_avg_pool2d"]
    assert found[0].attrs == {"kernel_size": (2, 3), "stride": (2, 3), "padding": 0, "ceil_mode": True}
    assert (found[1].attrs["scale_factor"], found[3].attrs["output_size"]) == (2.0, (None, 2))
    assert _mapped(lambda x: F.max_pool2d(x, 2, return_indices=True)[0], x)[0] is None  # the indices' branch is no op
    region = extract_region(model, (x,), {})
    with torch.no_grad():
        assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], model(x))


def test_the_pieces_of_a_split_or_chunk_map_to_slices_and_the_split_passes_its_argument():
    x = torch.randn(2, 10, dtype=torch.bfloat16)
    found = _mapped(lambda x: [p * 2 for p in x.split(4, dim=1)] + [p * 2 for p in torch.chunk(x, 2, dim=-1)], x)
    split, pieces = found[0], [m for m in found if isinstance(m, Mapped) and m.op == "slice"]
    assert isinstance(split, PassThrough)
    assert [(m.attrs["start"], m.attrs["stop"]) for m in pieces] == [(0, 4), (4, 8), (8, 10), (0, 5), (5, 10)]
    assert {m.attrs["dim"] for m in pieces} == {1}  # chunk's -1, made non-negative as the slice op insists


def test_an_index_with_none_is_an_unsqueeze_and_flatten_a_reshape():
    x = torch.randn(2, 3, 4, 5, dtype=torch.bfloat16)
    found = _mapped(lambda x: (x[:, :, None, :, :] * 2, x[..., None, :] * 2, x.flatten(2) * 2, x[:, 0, :] * 2), x)
    assert (found[0].op, found[0].attrs) == ("unsqueeze", {"dim": 2})
    assert (found[2].op, found[2].attrs) == ("unsqueeze", {"dim": 3})
    assert (found[4].op, found[4].attrs) == ("reshape", {"shape": (2, 3, 20)})
    assert found[6] is None  # an integer index selects: no op


def test_a_region_through_split_pieces_gives_eager_s_bits():
    torch.manual_seed(0)
    x = torch.randn(2, 12, dtype=torch.bfloat16)

    def fn(x):
        q, k, v = (x * 1.5).split(4, dim=-1)
        return q[:, None] * k[:, None] + v[:, None]

    region = extract_region(fn, (x,), {})
    assert [n.op for n in region.graph.nodes] == ["mul_scalar", "slice", "slice", "slice", "unsqueeze", "unsqueeze", "mul", "unsqueeze", "add"]
    assert not region.cut
    assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], fn(x))


def test_layer_norm_maps_with_its_weight_and_bias_and_its_sizes_must_be_the_last_dim():
    x, w, b = torch.randn(2, 3, 8, dtype=torch.bfloat16), torch.randn(8, dtype=torch.bfloat16), torch.randn(8, dtype=torch.bfloat16)
    ln = torch.nn.LayerNorm(8, eps=1e-12).to(torch.bfloat16)
    found = _mapped(lambda x, w, b: (F.layer_norm(x, (8,), w, b, 1e-5), ln(x), F.layer_norm(x, (8,)), F.layer_norm(x, (3, 8))), x, w, b)
    assert [(m.op, len(m.tensors), m.attrs) for m in found[:3]] == [
        ("layer_norm_affine", 3, {"eps": 1e-5}),
        ("layer_norm_affine", 3, {"eps": 1e-12}),
        ("layer_norm", 1, {"eps": 1e-5}),
    ]
    assert found[3] is None  # over the last two dims: the ops normalise the last one only
    region = extract_region(lambda x: ln(x) * 2, (x,), {})
    assert [n.op for n in region.graph.nodes] == ["layer_norm_affine", "mul_scalar"]
    with torch.no_grad():
        assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], ln(x) * 2)


def test_attention_with_a_float_mask_or_a_boolean_mask_maps_with_its_scale():
    q, k, v = (torch.randn(1, 2, 4, 8, dtype=torch.bfloat16) for _ in range(3))
    bias, keep = torch.randn(1, 2, 4, 4, dtype=torch.bfloat16), torch.ones(1, 1, 4, 4, dtype=torch.bool).tril()

    def attend(q, k, v, bias, keep):
        with_bias = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=0.0, scale=1.0, is_causal=False)  # T5's call
        return with_bias, F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.25)

    masked, boolean = _mapped(attend, q, k, v, bias, keep)
    assert (masked.op, len(masked.tensors), masked.attrs) == ("sdpa_masked", 4, {"scale": 1.0})
    assert (boolean.op, boolean.attrs) == ("sdpa_bool_masked", {"scale": 0.25})  # the mask: an index of 0s and 1s
    region = extract_region(lambda q, k, v, bias: F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=1.0) * 2, (q, k, v, bias), {})
    assert [n.op for n in region.graph.nodes] == ["sdpa_masked", "mul_scalar"]
    assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=1.0) * 2)


def test_repeat_maps_with_its_sizes_as_one_tuple():
    x = torch.randn(2, 3, dtype=torch.bfloat16)
    found = _mapped(lambda x: (x.repeat(1, 2) * 2, x.repeat((4, 1, 1)) * 2), x)
    assert [(m.op, m.attrs) for m in found[::2]] == [("repeat", {"repeats": (1, 2)}), ("repeat", {"repeats": (4, 1, 1)})]


def test_a_region_holds_a_boolean_mask_as_0s_and_1s_and_gives_eager_s_bits():
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, 2, 5, 8, dtype=torch.bfloat16) for _ in range(3))
    keep = torch.rand(1, 1, 5, 5) > 0.4

    def attend(q, k, v, keep):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.25) * 2

    region = extract_region(attend, (q, k, v, keep), {})
    assert [n.op for n in region.graph.nodes] == ["sdpa_bool_masked", "mul_scalar"] and region.graph.inputs[3].dtype == "i64"
    assert torch.equal(region.samples[0][3], keep.long())
    assert torch.equal(compile_source(lower(region.graph))(*region.samples[0])[-1], attend(q, k, v, keep))


def test_a_division_by_a_scalar_maps_to_div_scalar_not_to_a_multiplication():
    x = torch.randn(4, dtype=torch.bfloat16)
    found = _mapped(lambda x: (x / 50.0, 50.0 / x), x)
    assert (found[0].op, found[0].attrs) == ("div_scalar", {"value": 50.0})
    assert found[1] is None  # a scalar over a tensor: no op
