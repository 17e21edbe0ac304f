"""The zoo built from transformers itself: a type of each modality builds small from its own configuration (nothing
downloaded), its inputs made from its main input names, a multimodal model given its image with as many image tokens as
its image gives features; the wrapper returns plain tensors; a type that cannot be built says why in one line."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("transformers")

from numfuzz.model.hf_zoo import ZooBuildError  # noqa: E402
from numfuzz.model.hf_zoo.build import build  # noqa: E402
from numfuzz.model.hf_zoo.catalog import describe_catalog, load_catalog  # noqa: E402
from numfuzz.model.spec import ModelSpecError, load_model  # noqa: E402


@pytest.mark.parametrize(
    ("model_type", "modality", "inputs", "labelled"),
    [
        ("olmo", "text", ("input_ids",), True),
        ("bart", "text", ("input_ids", "decoder_input_ids"), True),  # its sequence-to-sequence model: its causal one is its decoder alone
        ("resnet", "vision", ("pixel_values",), False),
        ("wav2vec2", "audio", ("input_values",), False),
        ("llava", "multimodal", ("input_ids", "pixel_values"), False),
    ],
)
def test_a_type_of_each_modality_builds_small_and_runs(model_type, modality, inputs, labelled):
    built = build(model_type, positions=8)
    assert (built.modality, built.input_names, built.labelled) == (modality, inputs, labelled)
    assert built.parameters < 2_000_000  # small: a cell compiles it in seconds
    with torch.no_grad():
        out = built.model(*built.inputs)
    assert isinstance(out, tuple) and out and all(isinstance(t, torch.Tensor) and t.is_floating_point() for t in out)  # plain tensors
    if "input_ids" in inputs:
        assert built.inputs[0].shape == (1, 8)


def test_a_multimodal_model_gets_as_many_image_tokens_as_its_image_gives_features_and_drawn_text_holds_none():
    built = build("llava", positions=8)
    prefix, config = built.model.prefix, built.model.model.config
    assert prefix is not None and bool((prefix == config.image_token_id).all()) and prefix.shape[1] > 0
    assert int(built.inputs[0].max()) < config.image_token_id  # special tokens sit above every drawn id


def test_a_training_step_uses_the_models_own_loss_where_it_has_one():
    step, (ids,), loss = load_model("hf:olmo", "fp32", train=True, positions=8)
    value = loss(step(ids))
    assert value.dim() == 0 and torch.isfinite(value) and value.requires_grad
    net, inputs, loss = load_model("hf:resnet", "fp32", train=True)
    assert loss is None  # no loss of its own: the sweep's default, the mean square of its outputs


def test_a_type_that_cannot_be_built_says_why_in_one_line():
    with pytest.raises(ZooBuildError, match="no model class takes its configuration"):
        build("sam2_video_mask_decoder")
    with pytest.raises(ModelSpecError, match="not a model type transformers registers"):
        load_model("hf:no_such_type")


def test_the_shipped_table_lists_every_type_with_a_reason_for_each_one_not_built():
    catalog = load_catalog()
    assert len(catalog.built) >= 150 and all(r.get("reason") for r in catalog.rows if not r["built"])
    text = describe_catalog(catalog)
    assert text.startswith(f"{len(catalog.built)} of {len(catalog.rows)} model types built") and "| sam2_video_mask_decoder | no |" in text
