"""thunder.jit ignores a class's own `__getattribute__`: it looks an attribute up as `object.__getattribute__` does, so an
attribute that only the override provides raises AttributeError, and one the override changes gives a trace that the
prologue then refuses (`Expected 20.0 to be equal to and have the type of 2.0`).

Thunder's getattr lookaside (`_getattr_lookaside`, "emulate slot_tp_getattr_hook()") calls
`_object_getattribute_lookaside` and falls back to the type's `__getattr__`; the type's `__getattribute__` is never
called. transformers' `PretrainedConfig` overrides `__getattribute__` to read its `attribute_map` aliases: Granite-Speech's
forward reads `self.config.audio_token_id` (an alias of `audio_token_index`) and fails under thunder.jit with
`AttributeError: audio_token_id`; 26 configurations alias `image_token_id` so, 7 `video_token_id`, 5 `audio_token_id`.

Found by numfuzz's model sweep (Granite-Speech's forward and training step on thunder:torchcompile). Measured on Thunder
0.2.6 (torch 2.9.1) and main (0.2.7.dev0, 1e22aac; torch 2.11.0). Searched Thunder's issues and PRs for __getattribute__,
attribute_map, getattr lookaside and the message: PR #2584 (open) takes `__getattr__` from the type, not
`__getattribute__`; #729 (open) is a property read twice.

Exits 1 while the bug is present.
"""

import thunder
import torch


class Config:
    attribute_map = {"token_id": "token_index"}  # as transformers' PretrainedConfig maps its aliases

    def __init__(self):
        self.token_index = 3

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


def f(x, config):
    return x * config.token_id


print(f"torch {torch.__version__}, thunder {thunder.__version__}")
x, config = torch.ones(2), Config()
print(f"eager {f(x, config).tolist()}")
try:
    got = thunder.jit(f)(x, config)
except AttributeError as exc:
    raise SystemExit(f"thunder.jit: AttributeError: {exc} (the class's __getattribute__ maps token_id to token_index)") from None
assert torch.equal(got, f(x, config)), got
print("OK: thunder.jit reads the attribute through the class's __getattribute__")
