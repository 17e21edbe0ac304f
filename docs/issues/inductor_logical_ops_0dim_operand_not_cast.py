"""Inductor: logical_xor, logical_or and logical_and test a 0-dim operand of a wider dtype for nonzero before eager's cast.

Eager's logical ops (TensorIterator's comparison ops, as eq and ne) cast both operands to their common dtype first.
A 0-dim tensor does not raise the common dtype of a dimensioned one of its kind, so `torch.tensor(256)` beside a
uint8 tensor becomes uint8 0, and fp64 1e-50 beside an fp32 tensor becomes 0.0: `logical_xor(zeros_u8,
tensor(256))` is all False in eager. Inductor's lowerings (`convert_input_to_bool=True`, `type_promotion_kind=None`)
test each operand in its own dtype and give True. Its `eq` and `ne` cast as eager does, so compiled logical ops
disagree with compiled comparisons of the same operands. (The docs say nonzero is True: they read 256 as True, as
Inductor does; either way compiled and eager differ, silently.)

Found by numfuzz's integer programs (logical_xor of a uint8 tensor and an int64 0-dim tensor of 256) through
Thunder's torchcompile executor (Thunder main 0.2.7.dev0, 1e22aac, on torch 2.11.0; Thunder's own torch executor
agrees with eager). Measured on CPU with torch 2.9.1, 2.11.0 and 2.15.0.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import torch

cases = {
    "uint8 zeros, int64 0-dim 256": (torch.zeros(3, dtype=torch.uint8), torch.tensor(256)),
    "int8 zeros, int64 0-dim 256": (torch.zeros(3, dtype=torch.int8), torch.tensor(256)),
    "fp32 zeros, fp64 0-dim 1e-50": (torch.zeros(3), torch.tensor(1e-50, dtype=torch.float64)),
    "fp16 zeros, fp32 0-dim 1e-8": (torch.zeros(3, dtype=torch.float16), torch.tensor(1e-8)),
}

failed = []
for op in (torch.logical_xor, torch.logical_or, torch.logical_and):
    for label, (a, b) in cases.items():
        if op is torch.logical_and:  # ones: and's answer turns on the 0-dim operand
            a, label = a + 1, label.replace("zeros", "ones")
        torch._dynamo.reset()  # each case compiled afresh (one code object, many dtypes)
        eager, got = op(a, b), torch.compile(lambda a, b, op=op: op(a, b), backend="inductor", fullgraph=True)(a, b)
        print(f"{op.__name__}({label}): eager {eager.tolist()}  inductor {got.tolist()}")
        if not torch.equal(eager, got):
            failed.append(f"{op.__name__}({label})")

print(f"torch {torch.__version__}")
assert not failed, f"compiled logical ops differ from eager's: {', '.join(failed)}"
print("OK: compiled logical ops equal eager's")
