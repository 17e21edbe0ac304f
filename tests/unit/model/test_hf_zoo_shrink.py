"""The zoo's shrinking rules: by the names configurations use, never growing a value, layers kept one per kind with
the lists indexed by layer following them, identities between sizes kept, special tokens moved out of drawn text."""

from __future__ import annotations

from numfuzz.model.hf_zoo.shrink import SMALL, WIDE, move_special_tokens, shrink_dict, special_token_ids


def test_the_standard_names_and_each_models_own_spelling_shrink_and_no_value_grows():
    llama = {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
             "vocab_size": 32000, "head_dim": 128, "max_position_embeddings": 4096}  # fmt: skip
    small = shrink_dict(llama)
    assert {k: small[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads")} == {
        "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
    }  # fmt: skip
    assert (small["vocab_size"], small["head_dim"], small["max_position_embeddings"]) == (256, 16, 4096)  # positions: not a rule's
    # a model's own spelling the rules do not list gets its standard name's rule through the attribute map
    assert shrink_dict({"width_of_it": 1024}, {"hidden_size": "width_of_it"})["width_of_it"] == 64
    assert shrink_dict({"hidden_size": 32, "num_attention_heads": 2})["hidden_size"] == 32  # already small: kept
    assert shrink_dict({"num_attention_heads": 3})["num_attention_heads"] == 2  # a power of two, so the width divides by it


def test_multi_head_attention_stays_so_and_grouped_query_attention_stays_grouped():
    assert shrink_dict({"num_attention_heads": 16, "num_key_value_heads": 16})["num_key_value_heads"] == 4
    assert shrink_dict({"num_attention_heads": 16, "num_key_value_heads": 1})["num_key_value_heads"] == 1


def test_a_hybrid_model_keeps_one_layer_of_each_kind_and_its_per_layer_lists_follow():
    types = ["sliding_attention"] * 5 + ["full_attention"]
    config = {"num_hidden_layers": 6, "layer_types": types, "no_rope_layers": [1, 1, 1, 0, 1, 0], "mlp_only_layers": [0, 5],
              "per_layer_config": {"2": {"x": 1}, "5": {"x": 2}}, "out_features": ["stage6"]}  # fmt: skip
    small = shrink_dict(config)
    assert small["num_hidden_layers"] == 2 and small["layer_types"] == ["sliding_attention", "full_attention"]
    assert small["no_rope_layers"] == [1, 0] and small["mlp_only_layers"] == [0, 1]  # layers 0 and 5, renumbered 0 and 1
    assert small["per_layer_config"] == {1: {"x": 2}} and "out_features" not in small  # a backbone's default: its last stage


def test_a_recurrent_model_runs_its_layers_once():
    """HRM's text model repeats its stacks of layers in cycles: 16 layers a stack, 2 high-level cycles of 3 low-level
    ones each, 128 layers as shipped (its cells ran past 600 s); a stack of one layer, run once per level, is small."""
    hrm = {"num_hidden_layers": 128, "num_layers_per_stack": 16, "H_cycles": 2, "L_cycles": 3, "hidden_size": 1536}
    small = shrink_dict(hrm)
    assert (small["num_hidden_layers"], small["num_layers_per_stack"], small["H_cycles"], small["L_cycles"]) == (1, 1, 1, 1)


def test_sub_configurations_shrink_and_stage_lists_scale_together():
    config = {"text_config": {"hidden_size": 2048}, "vision_config": {"hidden_size": 1152, "image_size": 384, "patch_size": 14}}
    small = shrink_dict(config)
    assert small["text_config"]["hidden_size"] == 64 and small["vision_config"] == {"hidden_size": 64, "image_size": 32, "patch_size": 8}
    stages = shrink_dict({"depths": [3, 4, 6, 3], "num_layers": 4, "in_channels": [32, 16, 24], "out_channels": [16, 24, 320], "num_heads": [3, 6, 12]})
    assert stages["depths"] == [1, 1, 1, 1] and stages["num_layers"] == 4  # a stage count follows its list
    # one factor for every width list: a stage's output stays the next stage's input
    assert stages["in_channels"][1:] == stages["out_channels"][:-1] and max(stages["out_channels"]) == 64
    assert stages["num_heads"] == [2, 4, 4]


def test_identities_between_sizes_hold_again():
    mamba2 = {"hidden_size": 4096, "expand": 2, "num_heads": 128, "head_dim": 64}
    small = shrink_dict(mamba2)
    assert small["expand"] * small["hidden_size"] == small["num_heads"] * small["head_dim"]
    deepseek = shrink_dict({"qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "qk_head_dim": 192})
    assert deepseek["qk_head_dim"] == deepseek["qk_nope_head_dim"] + deepseek["qk_rope_head_dim"] == 32
    mrope = shrink_dict({"hidden_size": 8192, "num_attention_heads": 64, "rope_parameters": {"mrope_section": [16, 24, 24]}})
    assert sum(mrope["rope_parameters"]["mrope_section"]) == 8  # half of a 16-wide head
    assert shrink_dict({"hidden_size": 8192, "num_attention_heads": 64, "head_dim": 128}, sizes=WIDE)["head_dim"] == 128


def test_special_tokens_move_to_the_top_of_the_vocabulary_each_apart_and_drawn_text_stays_below():
    config = {"vocab_size": SMALL.vocab, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": [2, 128001], "text_config": {"image_token_id": 151655}}
    moved, text_ids = move_special_tokens(config, SMALL.vocab)
    ids = special_token_ids(moved)
    assert len(ids) == 5 and min(ids) == text_ids == SMALL.vocab - 5 and max(ids) == SMALL.vocab - 1
    assert moved["text_config"]["image_token_id"] == SMALL.vocab - 5  # the largest id, at the bottom of the moved block
