"""A transformers configuration made small by its own attribute names: width, depth, heads, experts, vocabulary, image and audio sizes.

One table of rules, keyed by the names configurations use (`hidden_size`, and each model's own spelling
of it that its `attribute_map` points to: GPT-2's `n_embd`, BART's `d_model`), applies to every model
type and to every sub-configuration inside it (a multimodal model's `text_config` and `vision_config`).
No rule names a model. A rule only ever makes a value smaller, so a model that is already small keeps
its sizes, and a value the rules do not name keeps the model's default. Lists indexed by layer
(`layer_types`, `mlp_only_layers`, a `per_layer_config` keyed by layer) follow the layers kept: one of
each distinct layer type, so a hybrid model keeps each kind of layer it has (Gemma-3's sliding and
full attention). An identity between sizes that held in the default (Mamba-2's `expand * hidden_size
== num_heads * head_dim`) is made to hold again.

`Sizes` are the targets; `WIDE` keeps a head's dimensions as shipped (128), for models whose code
hard-codes a split of them (Qwen2-VL's multimodal RoPE sections).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sizes:
    width: int = 64
    ffn: int = 128
    heads: int = 4
    kv_heads: int = 2
    head_dim: int = 16
    vocab: int = 256
    experts: int = 4
    per_token: int = 2
    image: int = 32
    patch: int = 8
    mel_bins: int = 16
    source_positions: int = 16
    label: str = "small"


SMALL = Sizes()
WIDE = Sizes(width=512, ffn=1024, head_dim=128, label="head dimensions as shipped")

_WIDTHS = (
    "hidden_size", "d_model", "n_embd", "n_embed", "embed_dim", "dim", "hidden_dim", "embedding_size", "embedding_dim", "projection_dim",
    "word_embed_proj_dim", "router_hidden_size", "codebook_dim", "codevector_dim", "classifier_proj_size", "xvector_output_dim", "output_dim",
    "output_channels", "latent_channels", "base_channels", "subsampling_conv_channels", "bottleneck_features", "d_inner", "d_latents",
    "quantization_dim", "hidden_size_global",
)  # fmt: skip
_WIDTH_SUFFIXES = ("_hidden_size", "_hidden_dim", "_embed_dim")  # text_hidden_size, audio_hidden_size, vision_embed_dim, ...
_FFNS = ("intermediate_size", "ffn_dim", "d_ff", "n_inner", "mlp_dim")
_FFN_SUFFIXES = ("_intermediate_size", "_ffn_dim")
_HEADS = (
    "num_attention_heads", "n_head", "n_heads", "num_heads", "encoder_attention_heads", "decoder_attention_heads", "attention_heads",
    "decoder_num_attention_heads", "encoder_num_attention_heads", "index_n_heads", "resampler_n_heads", "linear_num_value_heads", "linear_num_heads",
)  # fmt: skip
_HEAD_DIMS = (
    "head_dim", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "linear_key_head_dim", "linear_value_head_dim", "d_kv", "dim_head",
    "index_head_dim", "swa_head_dim", "linear_head_dim", "resampler_head_dim", "mamba_d_head", "mamba_head_dim", "mamba_headdim", "rotary_dim",
)  # fmt: skip
_LAYERS = (
    "num_hidden_layers", "n_layer", "n_layers", "num_layers", "encoder_layers", "decoder_layers", "num_decoder_layers", "depth",
    "decoder_num_layers", "num_encoder_blocks", "resampler_depth", "num_lstm_layers", "num_layers_per_stack",
)  # fmt: skip
# how many times a model runs its layers again (HRM's high- and low-level cycles: 128 layers as shipped, 600 s a cell)
_REPEATS = ("H_cycles", "L_cycles", "n_recurrent_loops", "max_recycles", "num_loops")
_EXPERTS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts", "num_experts_routed")
_PER_TOKEN = ("num_experts_per_tok", "moe_topk", "num_experts_per_token", "moe_k", "top_k_experts")
_ONE = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts", "n_group", "topk_group", "num_expert_group", "n_groups")


def _at_most(limit: int) -> Callable[[int], int]:
    return lambda v: min(v, limit)


def _heads_of(sizes: Sizes) -> Callable[[int], int]:
    """At most `sizes.heads`, and a power of two, so that the width divides by it (3 heads become 2)."""
    return lambda v: 1 << (min(v, sizes.heads).bit_length() - 1) if v > 0 else v


def _rules(sizes: Sizes) -> dict[str, Callable[[int], int]]:
    """Scalars, by the names configurations give them (each model's own names, not only the standard ones)."""
    return {
        **dict.fromkeys(_WIDTHS, _at_most(sizes.width)),
        **dict.fromkeys(_FFNS, _at_most(sizes.ffn)),
        **dict.fromkeys(_HEADS, _heads_of(sizes)),
        **dict.fromkeys(_HEAD_DIMS, _at_most(sizes.head_dim)),
        **dict.fromkeys(("kv_lora_rank", "q_lora_rank"), _at_most(2 * sizes.head_dim)),
        "linear_num_key_heads": _at_most(sizes.kv_heads),
        **dict.fromkeys(_LAYERS + _REPEATS, _at_most(1)),
        **dict.fromkeys(_EXPERTS, _at_most(sizes.experts)),
        **dict.fromkeys(_PER_TOKEN, _at_most(sizes.per_token)),
        **dict.fromkeys(_ONE, _at_most(1)),
        "first_k_dense_replace": _at_most(0),  # every layer kept is a mixture of experts, as the model's later layers are
        **dict.fromkeys(("image_size", "pretrain_image_size", "img_size"), _at_most(sizes.image)),
        "patch_size": _at_most(sizes.patch),
        "window_size": _at_most(sizes.image // sizes.patch),  # a window no wider than a small image's patches
        **dict.fromkeys(("num_mel_bins", "feature_size", "mel_dim"), _at_most(sizes.mel_bins)),
        "max_source_positions": _at_most(sizes.source_positions),
        "index_topk": _at_most(8),
        # the image tokens a multimodal model pools its image to: at most the patches a small image gives
        **dict.fromkeys(("mm_tokens_per_image", "image_seq_length"), _at_most((sizes.image // sizes.patch) ** 2)),
    }


def _rule_of(key: str, rules: dict[str, Callable[[int], int]], sizes: Sizes) -> Callable[[int], int] | None:
    if key in rules:
        return rules[key]
    if key.endswith("vocab_size") and key != "type_vocab_size":  # an entity vocabulary, a hash table of byte groups
        return _at_most(sizes.vocab)
    if key.endswith(_WIDTH_SUFFIXES):
        return _at_most(sizes.width)
    if key.endswith(_FFN_SUFFIXES):
        return _at_most(sizes.ffn)
    return None


# Lists: stage depths become one block each; stage widths scale down together so that the widest is the width.
_DEPTH_LISTS = ("depths", "stage_num_blocks", "stage_numb_of_layers", "blocks_per_stage", "num_block_repeats")
_WIDTH_LISTS = (
    "hidden_sizes", "embed_dims", "embed_dim", "conv_dim", "tdnn_dim", "stage_out_channels", "stage_in_channels", "stage_mid_channels",
    "neck_hidden_sizes", "encoder_in_channels", "decoder_in_channels", "downsample_channels", "in_channels", "out_channels", "stem_channels",
)  # fmt: skip
_HEAD_LISTS = ("num_heads", "num_attention_heads_per_stage", "attention_heads_per_stage")
_LAYER_COUNTS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")  # how many layers a configuration has, by its name
_BACKBONE_OUTPUTS = ("out_features", "out_indices")  # a backbone's stages by name or number: its last stage, once layers go


def _int_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(type(v) is int for v in value)


def _scaled_widths(config: dict[str, Any], width: int) -> None:
    """Every width list scaled by one factor, so that one stage's output stays the next one's input; the widest becomes `width`."""
    lists = [k for k in _WIDTH_LISTS if _int_list(config.get(k))]
    top = max((max(config[k]) for k in lists), default=0)
    if top <= width:
        return
    for key in lists:  # each width a multiple of 8 (channel groups, heads) and at least 8; an input of 3 channels (RGB) stays 3
        config[key] = [v if v <= 4 else max(8, round(v * width / top / 8) * 8) for v in config[key]]


def _kept_layers(config: dict[str, Any], layers: int) -> list[int]:
    """Which of the model's layers the small one keeps: the first of each distinct layer type, or the first."""
    types = config.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        firsts: dict[str, int] = {}
        for k, kind in enumerate(types):
            firsts.setdefault(str(kind), k)
        return sorted(firsts.values())
    return [0]


def _follow_layers(config: dict[str, Any], before: int, kept: list[int]) -> None:
    """Every list indexed by layer keeps the layers kept; every list of layer numbers, and every dict keyed by them, names
    them by their new number; a backbone's chosen outputs go (its last stage is the default)."""
    renumber = {old: new for new, old in enumerate(kept)}
    for key in _BACKBONE_OUTPUTS:
        config.pop(key, None)
    for key, value in list(config.items()):
        if isinstance(value, dict) and value and all(str(k).isdigit() for k in value):
            config[key] = {renumber[int(k)]: v for k, v in value.items() if int(k) in renumber}
        if not isinstance(value, list) or key in _DEPTH_LISTS + _WIDTH_LISTS + _HEAD_LISTS:
            continue
        if len(value) == before and before > 1:
            config[key] = [value[k] for k in kept]
        elif _int_list(value) and key.endswith(("_layers", "_indexes", "_indices", "_layer_ids", "_layer_idx")):
            config[key] = [renumber[v] for v in value if v in renumber]


def _layer_count(config: dict[str, Any]) -> tuple[str, int] | None:
    if any(isinstance(config.get(name), list) for name in _DEPTH_LISTS):  # stages: their count is the depth list's length
        return None
    for name in _LAYER_COUNTS:
        if type(config.get(name)) is int and config[name] > 1:
            return name, config[name]
    return None


def shrink_dict(config: dict[str, Any], attribute_map: dict[str, str] | None = None, sizes: Sizes = SMALL) -> dict[str, Any]:
    """A configuration's dictionary (`to_dict()`) with its sizes made small, sub-configurations included; a new dict."""
    small = dict(config)
    counted = _layer_count(small)
    if counted is not None:
        name, before = counted
        kept = _kept_layers(small, before)
        small[name] = len(kept)
        _follow_layers(small, before, kept)
    rules = _rules(sizes)
    for own, standard in {v: k for k, v in (attribute_map or {}).items()}.items():  # a model's own spelling of a standard name
        if standard in rules and own not in rules:
            rules[own] = rules[standard]
    for key, value in small.items():
        rule = _rule_of(str(key), rules, sizes)
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            small[key] = shrink_dict(value, None, sizes)
        elif type(value) is int and rule is not None and not (counted is not None and key == counted[0]) and not _counts_stages(small, key):
            small[key] = rule(value)
        elif _int_list(value) and key in _DEPTH_LISTS:
            small[key] = [min(v, 1) for v in value]
        elif _int_list(value) and key in _HEAD_LISTS:
            small[key] = [_heads_of(sizes)(v) for v in value]
    _scaled_widths(small, sizes.width)
    _key_value_heads(small, config)
    _derived(small, config)
    return small


def _counts_stages(config: dict[str, Any], key: str) -> bool:
    """A layer count that is the length of a stage list (Swin's `num_layers`): it follows the list, not a rule."""
    return key in _LAYER_COUNTS and any(isinstance(config.get(name), list) for name in _DEPTH_LISTS)


def _key_value_heads(small: dict[str, Any], before: dict[str, Any]) -> None:
    """As many key-value heads as query heads where the model had as many (multi-head attention stays so), else fewer."""
    kv, heads = small.get("num_key_value_heads"), small.get("num_attention_heads")
    if type(kv) is int and type(heads) is int:
        small["num_key_value_heads"] = heads if before.get("num_key_value_heads") == before.get("num_attention_heads") else min(kv, 2, heads)


def _ints(d: dict[str, Any], *keys: str) -> bool:
    return all(type(d.get(k)) is int for k in keys)


def _derived(small: dict[str, Any], before: dict[str, Any]) -> None:
    """Sizes that are others' sums or products, where the default's were: DeepSeek's query head (its non-rotary part and
    its rotary part); a Mamba-2 mixer's heads (`expand * hidden_size == num_heads * head_dim`); a multimodal RoPE's sections
    (time, height, width), which split half a head's dimensions."""
    if _ints(small, "qk_head_dim", "qk_nope_head_dim", "qk_rope_head_dim"):
        small["qk_head_dim"] = small["qk_nope_head_dim"] + small["qk_rope_head_dim"]
    for heads, dim, expand in (("num_heads", "head_dim", "expand"), ("mamba_n_heads", "mamba_d_head", "mamba_expand")):
        if _ints(before, heads, dim, expand, "hidden_size") and before[heads] * before[dim] == before[expand] * before["hidden_size"]:
            small[heads] = max(1, small[expand] * small["hidden_size"] // small[dim])
    head = small.get("head_dim")
    if type(head) is not int and _ints(small, "hidden_size", "num_attention_heads"):
        head = small["hidden_size"] // small["num_attention_heads"]
    for rope in (small.get("rope_parameters"), small.get("rope_scaling")):
        sections = rope.get("mrope_section") if isinstance(rope, dict) else None
        if type(head) is int and _int_list(sections) and sum(sections) > head // 2:
            rope["mrope_section"] = _split(head // 2, sections)


def _split(total: int, weights: list[int]) -> list[int]:
    """`total` split in proportion to `weights`, each part at least 1, the parts summing to `total`."""
    parts = [max(1, w * total // sum(weights)) for w in weights]
    parts[-1] += total - sum(parts)
    return parts


def _is_token_key(key: Any) -> bool:
    return str(key).endswith(("_token_id", "_token_index", "_token_ids"))


def special_token_ids(config: dict[str, Any]) -> set[int]:
    """Every special token id a configuration names (`pad_token_id`, `image_token_index`, a list of `eos_token_id`s), sub-configurations included."""
    found: set[int] = set()
    for key, value in config.items():
        if isinstance(value, dict):
            found |= special_token_ids(value)
        elif _is_token_key(key):
            found |= {v for v in (value if isinstance(value, list) else [value]) if type(v) is int and v >= 0}
    return found


def move_special_tokens(config: dict[str, Any], vocab: int) -> tuple[dict[str, Any], int]:
    """Every special token id moved to the top of a vocabulary of `vocab`, each distinct id to its own place (an image
    token stays apart from padding, padding stays where bos is if they were one), and how many ids below them are left
    for drawn text: text drawn there never holds a special token, whatever its range. A new dict."""
    moved = {old: vocab - 1 - k for k, old in enumerate(sorted(special_token_ids(config)))}

    def apply(d: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in d.items():
            if isinstance(value, dict):
                out[key] = apply(value)
            elif _is_token_key(key) and isinstance(value, list):
                out[key] = [moved.get(v, v) if type(v) is int else v for v in value]
            elif _is_token_key(key) and type(value) is int:
                out[key] = moved.get(value, value)
            else:
                out[key] = value
        return out

    return apply(config), vocab - len(moved)
