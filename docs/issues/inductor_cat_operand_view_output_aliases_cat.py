"""Inductor: a returned view of a cat operand shares memory with the returned cat, where eager's outputs are apart.

`t0 = x * 2; return torch.cat((t0, x)), t0.permute(0)`: Inductor's cat realises t0 straight into its slice of the
cat's buffer (ConcatKernel, a NonOwningLayout), and the view of t0 that the program returns is a view of that buffer.
The two outputs then share memory that eager keeps apart, and writing into one changes the other: after
`b.add_(100)` eager's cat still holds [2, 4, 1, 2], Inductor's holds [102, 104, 1, 2]. A view op that Inductor keeps
as a view (permute, unsqueeze) shows it; t0 itself, t0.view(-1) or t0[:] returned come back as a tensor of their own.
`backend="aot_eager"` and Thunder's own torch executor keep the outputs apart.

Found by numfuzz's metadata oracle as `cat((t0, x0)), t0.permute((0,))` of `t0 = x0.clone().add_(x0)` through
Thunder's torchcompile executor (Thunder 0.2.6 and main 0.2.7.dev0, 1e22aac); measured on CPU with torch 2.9.1,
2.11.0 and 2.15.0.

Raises AssertionError while the bug is present; exits 0 once fixed.
"""

import torch


def f(x):
    t0 = x * 2
    return torch.cat((t0, x)), t0.permute(0)


results = {}
for backend in ("eager", "inductor"):
    fn = f if backend == "eager" else torch.compile(f, backend=backend, fullgraph=True)
    cat, view = fn(torch.tensor([1.0, 2.0]))
    shared = cat.untyped_storage().data_ptr() == view.untyped_storage().data_ptr()
    view.add_(100)  # a user's in-place update of the second output
    results[backend] = cat.tolist()
    print(f"torch {torch.__version__} {backend}: outputs share memory {shared}; cat after view.add_(100): {cat.tolist()}")

assert results["inductor"] == results["eager"], "writing into the returned view changed Inductor's returned cat"
print("OK: the outputs are apart, as eager's")
