"""thunder.jit: a module constructed inside the jitted function (`torch.nn.CrossEntropyLoss()(logits, labels)`) fails
with a bare `AssertionError` in the epilogue (`process_recorded_modifications` ->
`get_parameter_or_buffer_or_submodule_name_and_root`, `assert provenance.inputs[0].inst is PseudoInst.LOAD_ATTR`).

`Module.__init__` sets attributes (`training`, `_parameters`, ...) on the new object; Thunder records each
`setattr` as a modification to replay in the epilogue and asserts that the object modified was loaded as an
attribute of the jitted module. A module made during the call was not. transformers computes many models'
losses so: 124 modeling files of transformers 5.25 write `loss_fct = CrossEntropyLoss(...)` in a forward
(`BertForMaskedLM`, T5's and BART's sequence-to-sequence models, classification heads); numfuzz's model
sweep met it in BERT's training step on `thunder:torchcompile`. The causal LMs' `self.loss_function` is a function, and passes. The functional
`torch.nn.functional.cross_entropy` passes too.

Measured on Thunder 0.2.6 (torch 2.9.1) and Thunder main (0.2.7.dev0, 1e22aac; torch 2.11.0).
Exits 1 while the bug is present.
"""

import thunder
import torch

print(f"torch {torch.__version__}, thunder {thunder.__version__}")
logits, labels = torch.randn(4, 5), torch.tensor([0, 1, 2, 3])
eager = torch.nn.CrossEntropyLoss()(logits, labels)
functional = thunder.jit(lambda x, y: torch.nn.functional.cross_entropy(x, y))(logits, labels)
print(f"eager {eager.item():.6f}; thunder.jit of F.cross_entropy {functional.item():.6f}")
try:
    made_inside = thunder.jit(lambda x, y: torch.nn.CrossEntropyLoss()(x, y))(logits, labels)
except AssertionError as exc:
    raise SystemExit(f"thunder.jit of CrossEntropyLoss() made inside the function: AssertionError {exc!s}".strip()) from None
torch.testing.assert_close(made_inside, eager)
print("OK: a module constructed inside the jitted function traces")
