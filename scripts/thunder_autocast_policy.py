"""Thunder's autocast against torch's CPU policy: each op numfuzz runs under autocast, one op alone in a bf16 region.

For every op with an autocast policy (`OpSpec.autocast`: "lower", cast to the region's dtype;
"fp32", cast to fp32) a one-op program is drawn with its region, on fp32 inputs for a LOWER op and
on bf16 inputs for an FP32 op (on fp32 inputs the fp32 policy has nothing to do), then run by eager
(torch's autocast) and by `thunder.jit` under the same `torch.autocast`. Printed per op: the
dtype each gives, and each one's largest relative error against numfuzz's float64 reference of
the program as autocast writes it (the arguments of a low-precision op rounded to the region's
dtype). A row where Thunder gives bf16 and eager fp32 says whether that bf16 is also less accurate.

Usage: python scripts/thunder_autocast_policy.py [EXECUTOR]   (default torchcompile; torch 2.9-2.11 with thunder)
"""

from __future__ import annotations

import sys

import torch

from numfuzz.program.autocast import FP32, LOWER, region
from numfuzz.program.generator import generate
from numfuzz.program.ir import Graph, TensorSpec
from numfuzz.program.lowering import compile_source, lower
from numfuzz.program.ops import autocast_ops
from numfuzz.program.space import GenConfig
from numfuzz.program.values import dtype_name, torch_dtype
from numfuzz.targets import resolve


def one_op_program(op: str) -> Graph | None:
    """The first drawn one-op program of `op` whose node is in a bf16 region, its float inputs in the dtype the policy casts from."""
    for seed in range(400):
        graph, _ = generate(seed, GenConfig(min_nodes=1, max_nodes=1, max_dim=6, ops=(op,), autocast=1.0, layouts=0.0, mix_dtypes=0.0))
        node = graph.nodes[0]
        if node.op == op and region(node) == "bf16" and all(s.dtype in ("fp32", "i64") for s in graph.inputs):
            own = "fp32" if op in autocast_ops(LOWER) else "bf16"
            return Graph(tuple(TensorSpec(s.shape, own if s.dtype == "fp32" else s.dtype) for s in graph.inputs), graph.nodes, graph.outputs)
    return None


def inputs_for(graph, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)  # positive values (logs, losses' targets); index 0 is valid for every index op
    return [
        torch.zeros(s.shape, dtype=torch.int64) if s.dtype == "i64" else (torch.rand(s.shape, generator=g) + 0.5).to(torch_dtype(s.dtype)) for s in graph.inputs
    ]


def max_relative_error(values: tuple, reference: tuple) -> float:
    return max(float(((v.double() - r).abs() / r.abs().clamp_min(1e-30)).max()) for v, r in zip(values, reference))


def main(executor: str) -> None:
    target = resolve(f"thunder:{executor}")
    ok, why = target.available()
    if not ok:
        sys.exit(f"thunder:{executor} is unavailable here: {why}")
    print(f"torch {torch.__version__}; thunder:{executor}; one op in a bf16 autocast region (CPU): low-precision ops on fp32 inputs, fp32 ops on bf16")
    print(f"{'op':<22}{'policy':<8}{'eager':<7}{'thunder':<9}{'eager rel. error':>17}{'thunder rel. error':>20}  verdict")
    low = autocast_ops(LOWER)
    for op in sorted(low | autocast_ops(FP32)):
        graph = one_op_program(op)
        if graph is None:
            print(f"{op:<22}no one-op program drawn")
            continue
        xs = inputs_for(graph)
        fn = compile_source(lower(graph))
        reference = compile_source(lower(graph, reference=True))(*[x.double() if x.is_floating_point() else x for x in xs])
        eager = fn(*xs)
        try:
            got = target.prepare(fn, "cpu")(*xs)
        except Exception as exc:  # the crash is the row's answer
            message = next((line for line in str(exc).splitlines() if "Error" in line and "raised" not in line), str(exc).splitlines()[0])
            print(f"{op:<22}{'low' if op in low else 'fp32':<8}{dtype_name(eager[0].dtype):<7}raises {type(exc).__name__}: {message.strip()[:110]}")
            continue
        e_err, t_err = max_relative_error(eager, reference), max_relative_error(got, reference)
        same = all(g.dtype == e.dtype for g, e in zip(got, eager))
        verdict = "same dtype" if same else ("less accurate" if t_err > 4 * e_err else "not less accurate")
        print(f"{op:<22}{'low' if op in low else 'fp32':<8}{dtype_name(eager[0].dtype):<7}{dtype_name(got[0].dtype):<9}{e_err:>17.3g}{t_err:>20.3g}  {verdict}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "torchcompile")
