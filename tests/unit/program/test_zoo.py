"""Windows of real models' graphs (`--models-share`): drawn from the zoo, well typed, in the case's dtype, with their origin."""

from __future__ import annotations

from numfuzz.program.generator import generate_with_origin
from numfuzz.program.ops import OPS, infer_specs
from numfuzz.program.space import GenConfig
from numfuzz.program.zoo import load_zoo


def test_the_zoo_holds_ten_architectures_forward_and_training_step():
    models = {z.model for z in load_zoo()}
    assert len({m for m in models if m.startswith("hf:")}) >= 10 and any("vision" in m or "vit" in m for m in models)
    assert {z.name.rsplit("-", 1)[1] for z in load_zoo()} == {"forward", "train"}
    assert all(len(z.modules) == len(z.graph.nodes) for z in load_zoo())


def test_a_models_share_of_one_starts_every_graph_from_a_window_that_type_checks():
    drawn = [generate_with_origin(seed, GenConfig(models=1.0)) for seed in range(60)]
    windows = [(graph, origin["zoo"]) for graph, _, origin in drawn if origin]
    assert len(windows) >= 45  # a window may not fit (an op outside --ops, a value too large)
    for graph, origin in windows:
        infer_specs(graph)  # well typed
        start, stop = origin["nodes"]
        assert 2 <= stop - start <= 12 and origin["model"] and origin["graph"]
    assert len({o["graph"] for _, o in windows}) >= 8  # many models, not one


def test_a_window_is_kept_within_the_ops_asked_for():
    allowed = ("add", "mul", "linear", "silu", "cast", "reshape", "transpose")
    for seed in range(40):
        graph, _, origin = generate_with_origin(seed, GenConfig(models=1.0, ops=allowed))
        assert {n.op for n in graph.nodes} <= set(allowed)


def test_a_window_takes_the_case_s_dtype():
    dtypes = set()
    for seed in range(60):
        graph, _, origin = generate_with_origin(seed, GenConfig(models=1.0))
        if origin:
            specs = infer_specs(graph)
            dtypes |= {s.dtype for s in specs} - {"i64"}
    assert {"bf16", "fp16"} <= dtypes and set(OPS)  # windows in fp16 too, not only the zoo's bf16
