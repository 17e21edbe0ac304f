"""A transformers model type built small, with random weights, and its inputs made from its main input names.

The class is the type's causal language model where transformers registers one (its loss takes the
ids as labels), else its base model, else the one model class of its module whose configuration is the
type's (a sub-model such as `blip_vision_model`). The configuration is the type's default shrunk by
`shrink` (nothing is downloaded). The inputs are the model's main input (`main_input_name`: token ids,
pixel values, audio features or samples) and what its forward needs beside it: an encoder-decoder's
decoder ids, a multimodal model's image, with as many image tokens in its ids as its image gives
features. `ZooModel` calls the model with them by name and returns plain tensors, so every target
(Thunder's jit included) is given a function of tensors to tensors.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any

import torch

from numfuzz.model.hf_zoo import ZooBuildError, line
from numfuzz.model.hf_zoo.inputs import Inputs, make_inputs
from numfuzz.model.hf_zoo.shrink import SMALL, WIDE, Sizes, move_special_tokens, shrink_dict
from numfuzz.model.hf_zoo.wrapper import ZooModel


@dataclass
class Built:
    model: torch.nn.Module  # the ZooModel
    inputs: tuple[torch.Tensor, ...]
    model_type: str
    class_name: str
    modality: str  # text, vision, audio, multimodal
    input_names: tuple[str, ...]
    labelled: bool  # its training step is its own loss with the ids as labels
    parameters: int
    notes: list[str] = field(default_factory=list)
    sizes: str = "small"  # which `Sizes` built it


def _registered(mapping: dict[str, Any], model_type: str) -> str | None:
    name = mapping.get(model_type)
    return name[0] if isinstance(name, (tuple, list)) else name


def model_class(model_type: str, encoder_decoder: bool = False) -> tuple[type, bool]:
    """The class built for a type, and whether its loss takes the (decoder's) ids as labels: a causal language model, or
    for an encoder-decoder its sequence-to-sequence model (its causal one is its decoder alone: Whisper's takes no audio)."""
    import transformers
    from transformers.models.auto import modeling_auto as auto
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    labelled = (
        (auto.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES, auto.MODEL_FOR_SPEECH_SEQ_2_SEQ_MAPPING_NAMES)
        if encoder_decoder
        else (auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,)
    )
    for mapping, own_loss in [*((m, True) for m in labelled), (auto.MODEL_MAPPING_NAMES, False)]:
        name = _registered(mapping, model_type)
        if name is not None and hasattr(transformers, name):
            return getattr(transformers, name), own_loss
    config_class = CONFIG_MAPPING[model_type]
    try:
        module = importlib.import_module(config_class.__module__.replace(".configuration_", ".modeling_"))
    except ImportError as exc:
        raise ZooBuildError(f"no model class: {exc}") from None
    found = [
        c for c in vars(module).values()
        if inspect.isclass(c) and getattr(c, "config_class", None) is config_class and not c.__name__.endswith("PreTrainedModel")
        and issubclass(c, transformers.PreTrainedModel)
    ]  # fmt: skip
    if not found:
        raise ZooBuildError("no model class takes its configuration (a part of another model's configuration)")
    return min(found, key=lambda c: (not c.__name__.endswith("Model"), len(c.__name__))), False


def small_config(model_type: str, sizes: Sizes = SMALL) -> tuple[Any, int]:
    """The type's default configuration shrunk to `sizes`, and how many token ids are left for drawn text."""
    import transformers
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    transformers.logging.set_verbosity_error()  # defaults warn of their own token ids past their vocabulary: moved below
    config_class = CONFIG_MAPPING[model_type]
    try:
        default = config_class()
    except Exception as exc:  # a configuration with no default: nothing to shrink
        raise ZooBuildError(f"no default configuration: {line(exc)}") from None
    small = shrink_dict(default.to_dict(), dict(getattr(config_class, "attribute_map", {}) or {}), sizes)
    vocab = _text_vocab(small, sizes.vocab)
    small, text_ids = move_special_tokens(small, vocab)
    for key in ("use_cache", "return_dict"):
        small[key] = key == "return_dict"  # one forward, no cache carried; outputs by name
    try:
        return config_class.from_dict(small), text_ids
    except Exception as exc:  # the shrunk sizes break one of its own checks
        raise ZooBuildError(f"the small configuration is refused: {line(exc)}") from None


def _text_vocab(config: dict[str, Any], default: int) -> int:
    for d in (config, config.get("text_config") or {}, config.get("decoder") or {}):
        if type(d.get("vocab_size")) is int and d["vocab_size"] > 0:
            return d["vocab_size"]
    return default


def modality(config: Any, names: tuple[str, ...]) -> str:
    """text, vision, audio, or multimodal: by the model's inputs, and by its sub-configurations where it has several."""
    subs = {k for k in ("text_config", "vision_config", "audio_config", "speech_config") if getattr(config, k, None) is not None}
    kinds = {"input_ids": "text", "pixel_values": "vision", "input_values": "audio", "input_features": "audio"}
    found = {kinds[n] for n in names if n in kinds}
    if len(subs) > 1 or len(found) > 1:
        return "multimodal"
    return next(iter(found), "text")


MAX_PARAMETERS = 20_000_000  # a shrunk model past this kept a size the rules do not name (a codebook, a table)


def build(model_type: str, positions: int = 32, seed: int = 0) -> Built:
    """The type built small with random weights (seeded), its inputs, and what they are: at `SMALL` sizes, or where those
    fail, with a head's dimensions as shipped (`WIDE`: code that splits a head by fixed sizes); the first reason where neither builds."""
    try:
        return _build(model_type, positions, seed, SMALL)
    except ZooBuildError as first:
        try:
            built = _build(model_type, positions, seed, WIDE)
        except ZooBuildError:
            raise first from None
        built.notes.insert(0, f"{WIDE.label}: small heads fail ({first})")
        return built


def _build(model_type: str, positions: int, seed: int, sizes: Sizes) -> Built:
    config, text_ids = small_config(model_type, sizes)
    cls, labelled = model_class(model_type, bool(getattr(config, "is_encoder_decoder", False)))
    torch.manual_seed(seed)
    try:
        model = cls._from_config(config) if hasattr(cls, "_from_config") else cls(config)
    except Exception as exc:  # the shrunk configuration builds no model
        raise ZooBuildError(f"the model does not build from its small configuration: {line(exc)}") from None
    model.eval()
    parameters = sum(p.numel() for p in model.parameters())
    if parameters > MAX_PARAMETERS:
        raise ZooBuildError(f"still {parameters / 1e6:.0f}M parameters at the small configuration")
    made: Inputs = make_inputs(model, config, positions, text_ids, seed)
    wrapped = ZooModel(model, made.names, made.prefix, labelled=False)
    return Built(wrapped, made.tensors, model_type, cls.__name__, modality(config, made.names), made.names, labelled, parameters, made.notes, sizes.label)
