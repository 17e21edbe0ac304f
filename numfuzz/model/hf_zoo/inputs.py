"""A small model's inputs, made from its main input name and its forward's parameters, and tried in eager.

Each kind of main input has candidate shapes, tried in order until the model runs on them in eager:
token ids of `positions` (and an encoder-decoder's decoder ids alike), an image of the configuration's
channels and size (a video's frames where it takes frames), audio samples, audio features in either
layout (mel bins by frames, frames by features). A model whose forward takes an image beside its ids
gets one, and as many image tokens before the ids as its image gives features (`get_image_features`);
where that fails it runs on its ids alone, and the notes say so.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._pytree import tree_flatten

from numfuzz.model.hf_zoo import ZooBuildError, line
from numfuzz.model.hf_zoo.wrapper import ZooModel

AUDIO_SAMPLES = 1600  # 0.1 s at 16 kHz: past every feature extractor's receptive field (wav2vec2's is 400)


@dataclass
class Inputs:
    names: tuple[str, ...]
    tensors: tuple[torch.Tensor, ...]
    prefix: torch.Tensor | None = None  # image tokens put before the ids (ZooModel)
    notes: list[str] = field(default_factory=list)


def _sub(config: Any, *names: str) -> Any:
    """The first sub-configuration of these names that the configuration has, or the configuration itself."""
    return next((getattr(config, n) for n in names if getattr(config, n, None) is not None), config)


def _size(config: Any, name: str, default: int) -> int:
    value = getattr(config, name, None)
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    return int(value) if isinstance(value, int) and value > 0 else default


def _image(config: Any, gen: torch.Generator) -> list[torch.Tensor]:
    """Candidate images: (1, channels, size, size), then a video's (1, frames, channels, size, size)."""
    vision = _sub(config, "vision_config", "backbone_config", "encoder_config")
    channels, size = _size(vision, "num_channels", 3), _size(vision, "image_size", 32)
    frames = _size(vision, "num_frames", 0) or _size(config, "num_frames", 0)
    found = [torch.randn(1, channels, size, size, generator=gen)]
    if frames:
        found.append(torch.randn(1, frames, channels, size, size, generator=gen))
    return found


def _audio_features(config: Any, gen: torch.Generator) -> list[torch.Tensor]:
    audio = _sub(config, "audio_config", "encoder_config")
    bins = _size(audio, "num_mel_bins", 0) or _size(audio, "feature_size", 0) or _size(audio, "input_feat_per_channel", 16)
    frames = 2 * _size(audio, "max_source_positions", 16)
    return [torch.randn(1, bins, frames, generator=gen), torch.randn(1, frames, bins, generator=gen)]


def _ids(positions: int, text_ids: int, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(0, max(1, text_ids), (1, positions), generator=gen)


def _required(model: torch.nn.Module) -> list[str]:
    """The forward's parameters that have no default (besides self, *args, **kwargs)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    params = inspect.signature(model.forward).parameters.values()
    return [p.name for p in params if p.kind in kinds and p.default is inspect.Parameter.empty]


def _candidates(model: torch.nn.Module, config: Any, positions: int, text_ids: int, gen: torch.Generator) -> Iterator[dict[str, torch.Tensor]]:
    main = getattr(model, "main_input_name", "input_ids")
    takes = set(inspect.signature(model.forward).parameters)
    if main == "input_ids":
        named = {"input_ids": _ids(positions, text_ids, gen)}
        if getattr(config, "is_encoder_decoder", False) and "decoder_input_ids" in takes:
            named["decoder_input_ids"] = _ids(positions, text_ids, gen)
        if "pixel_values" in takes:
            for image in _image(config, gen):
                yield {**named, "pixel_values": image}
        yield named
    elif main in ("pixel_values", "pixel_values_videos"):
        for image in _image(config, gen):
            yield {main: image}
    elif main == "input_values":
        yield {"input_values": torch.randn(1, AUDIO_SAMPLES, generator=gen)}
        yield {"input_values": torch.randn(1, 1, AUDIO_SAMPLES, generator=gen)}
    elif main == "input_features":
        for features in _audio_features(config, gen):
            named = {"input_features": features}
            if getattr(config, "is_encoder_decoder", False) and "decoder_input_ids" in takes:
                named["decoder_input_ids"] = _ids(positions, text_ids, gen)
            yield named


def _image_token(config: Any) -> int | None:
    """The token a multimodal model's ids hold in place of its image's features; None for a model that takes the two
    apart (CLIP's text and image towers)."""
    token = getattr(config, "image_token_id", None)
    return token if token is not None else getattr(config, "image_token_index", None)


def image_tokens(model: torch.nn.Module, config: Any, pixel_values: torch.Tensor) -> torch.Tensor:
    """The image tokens a multimodal model's ids must hold for this image: its image token, once per feature its image gives."""
    token = _image_token(config)
    if token is None or not hasattr(model, "get_image_features"):
        raise ValueError("no image token or no get_image_features")
    with torch.no_grad():
        out = model.get_image_features(pixel_values=pixel_values)
    feats = getattr(out, "pooler_output", None) if hasattr(out, "to_tuple") else out
    feats = out.last_hidden_state if feats is None else feats
    leaves, _ = tree_flatten(feats)
    width = model.get_input_embeddings().embedding_dim
    count = sum(t.numel() for t in leaves if isinstance(t, torch.Tensor)) // width
    if count <= 0:
        raise ValueError("the image gives no features")
    return torch.full((1, count), int(token), dtype=torch.long)


def _runs(model: torch.nn.Module, named: dict[str, torch.Tensor], prefix: torch.Tensor | None) -> None:
    with torch.no_grad():
        out = ZooModel(model, tuple(named), prefix)(*named.values())
    if not out:
        raise ValueError("its output has no floating tensor")


def make_inputs(model: torch.nn.Module, config: Any, positions: int, text_ids: int, seed: int = 0) -> Inputs:
    """The first candidate inputs the model runs on in eager; ZooBuildError with the last reason where none does."""
    gen = torch.Generator().manual_seed(seed)
    reason, notes = "no input it takes can be made (its main input is not ids, an image or audio)", []
    for named in _candidates(model, config, positions, text_ids, gen):
        prefix = None
        if "pixel_values" in named and "input_ids" in named and _image_token(config) is not None:
            try:
                prefix = image_tokens(model, config, named["pixel_values"])
            except Exception as exc:  # no image tokens to be had: this candidate fails, the ids alone come next
                reason = f"its image's tokens cannot be made: {line(exc)}"
                notes = [f"image not given: {line(exc)}"]
                continue
        missing = [n for n in _required(model) if n not in named]
        if missing:
            reason = f"its forward needs {', '.join(missing)}"
            continue
        try:
            _runs(model, named, prefix)
        except Exception as exc:  # the model fails on these inputs in eager: the next candidate, or its reason
            reason = f"eager fails on its inputs ({', '.join(f'{k} {tuple(v.shape)}' for k, v in named.items())}): {line(exc)}"
            if "pixel_values" in named and "input_ids" in named:
                notes = [f"image not given: {line(exc)}"]
            continue
        if "input_ids" in named and "pixel_values" not in named and notes:
            notes = ["text only: " + notes[0]]
        return Inputs(tuple(named), tuple(named.values()), prefix, notes)
    raise ZooBuildError(reason)
