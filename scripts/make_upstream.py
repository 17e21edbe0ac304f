#!/usr/bin/env python3
"""Rebuild corpus/upstream/: known upstream PyTorch numerics reports written as numfuzz cases.

Each case names its report (`extra.upstream`) and states where numfuzz gives it its recorded
verdict (`extra.reproduces`, see numfuzz.corpus.regression): a finding, or, where numfuzz judges
the reported behaviour no bug by the float64 rule, that verdict (more_accurate, amplified,
within_rounding). The CPU statements were measured on torch 2.9.1 and 2.15.0, with the vector ISA
as detected (AVX512) and forced to AVX2 (ATEN_CPU_CAPABILITY=avx2, each with its own Inductor cache
folder). The CUDA cases are written from their reports and not run (no result): they state
device "cuda", and a replay elsewhere skips them. Run from the repository root on torch 2.9.1,
where every CPU case has its recorded verdict; docs/upstream.md lists the cases.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from numfuzz.corpus.case import Case
from numfuzz.corpus.store import save_case
from numfuzz.environment import provenance
from numfuzz.judge.signature import signature_of
from numfuzz.program.ir import Graph, Node, TensorSpec
from numfuzz.program.ops import infer_specs
from numfuzz.program.values import round_to
from numfuzz.run_spec import RunSpec
from numfuzz.runner.case_runner import run_case
from numfuzz.targets import resolve

UPSTREAM = Path("corpus/upstream")
ISSUES = "https://github.com/pytorch/pytorch/issues/"
BOTH_ISAS = ["AVX512", "AVX2"]
MEASURED = "measured on 2.9.1 and 2.15.0, AVX512 and AVX2"
MEASURED_SCALARS = "measured on 2.9.1 and 2.15.0 with AVX2 (an AMD EPYC)"


@dataclass
class Report:
    issue: int
    title: str
    graph: Graph
    values: list  # float64 values per input, rounded to the input's dtype
    reproduces: dict  # the statement; its `why` says what numfuzz makes of the report
    expect: str = "finding"  # the verdict this script must see on CPU (ignored for cuda cases)
    target: str = "inductor"
    extra: dict = field(default_factory=dict)
    run: dict = field(default_factory=dict)  # more of the run specification: grad, dynamic
    upstream: list | None = None  # with grad: the upstream gradient of each output (float64 values)

    def case(self) -> Case:
        device = self.reproduces["device"]
        tensors = [round_to(np.asarray(v, dtype=np.float64), s) for v, s in zip(self.values, self.graph.inputs)]
        source = {"seed": None, "source": "scripts/make_upstream.py"}
        specs = infer_specs(self.graph)
        grads = [[round_to(np.asarray(g, dtype=np.float64), specs[o]) for g, o in zip(self.upstream, self.graph.outputs)]] if self.upstream else None
        run = RunSpec(self.target, device=device, samples=1, **self.run)
        case = Case.from_tensors(self.graph, [tensors], run, grads, provenance=source)
        case.extra = {"upstream": {"issue": f"pytorch#{self.issue}", "title": self.title, "url": f"{ISSUES}{self.issue}"}, "reproduces": self.reproduces}
        return case


def graph(inputs: list[TensorSpec], *nodes: Node, outputs: tuple[int, ...] | None = None) -> Graph:
    """Nodes in order; by default the last node's value is the output."""
    return Graph(tuple(inputs), tuple(nodes), outputs or (len(inputs) + len(nodes) - 1,))


def vec(dtype: str = "fp32", n: int = 64) -> TensorSpec:
    """64 elements: at least one full AVX-512 vector, so Inductor's CPU code takes its vectorised loop on any ISA."""
    return TensorSpec((n,), dtype)


def tiled(values: list[float], n: int = 64) -> np.ndarray:
    return np.resize(np.asarray(values, dtype=np.float64), n)


def cpu(torch: str, why: str, isa: list[str] = BOTH_ISAS) -> dict:
    return {"torch": torch, "device": "cpu", "isa": isa, "why": why}


N = Node.make
ONES = np.ones(64)
# pytorch#145401's shape; a normal draw of 4096 values repeated (RandomState's stream is stable across numpy versions)
VAR_MEAN_INPUT = TensorSpec((112958, 384), "fp16")
VAR_MEAN_VALUES = np.resize(np.random.RandomState(30).standard_normal(4096), VAR_MEAN_INPUT.shape)
# pytorch#182012's program: x (8, 8) and src (8,) normal draws, the sum's gradient 1 (the report's `.sum().backward()`)
DIAGONAL_SCATTER_VALUES = [np.random.RandomState(182012).standard_normal((8, 8)), np.random.RandomState(182013).standard_normal(8)]
DIAGONAL_SCATTER_WHY = (
    "the forward is equal, and so is src's gradient; x's gradient is 0 at its 56 elements off the diagonal, where eager and the float64 "
    "reference give 1 (the sum's gradient passes through where src did not overwrite): less_accurate, cause backward at diagonal_scatter, "
    "located by fallback since its backward alone is right on the target. What breaks is its fusion with the sum's gradient, a stride-0 "
    "expand of one value (PR #182292's IR stores the mask at stride 0). The fixes (PR #182292 for this report, #183720 for its "
    "duplicate #183602) are of May 2026 and first released in 2.13.0 (a 2.13 nightly of 2026-05-14 still reproduced it on CUDA). "
    "The report is CUDA's; the CPU code has the same fault, so no CUDA variant is written. Measured with AVX2 (an AMD EPYC) on "
    "2.9.1 and 2.12.1 (less_accurate), 2.13.0, 2.14.1 and 2.15.0 (equal)"
)
REPORTS = {
    "pytorch-183605-var-rsqrt-fp16-nan": Report(
        183605, "torch.compile changes fp16 NaN behavior for var + rsqrt normalization",
        graph([TensorSpec((3, 5), "fp16")], N("var", [0], dim=1, correction=1, keepdim=True), N("add_scalar", [1], value=1e-9), N("rsqrt", [2]), N("mul", [0, 3])),
        [np.full((3, 5), 1e-10)],  # the report's 1e-10 is 0 in fp16
        cpu("<2.14", "eager rounds var + 1e-9 to fp16 zero, rsqrt gives inf and 0 * inf NaN; Inductor keeps 1e-9 in fp32 and returns 0, the float64 answer: more accurate, no bug by the float64 rule. 2.14.1 and 2.15.0 return eager's NaN (equal; which release between the report's 2.11 and 2.14.1 changed it is not measured); measured on 2.9.1, 2.14.1 and 2.15.0, AVX512 and AVX2"),
        expect="more_accurate",
    ),
    "pytorch-189808-sqrt-negative-nan-sign": Report(
        189808, "Inductor sqrt produces negative NaN (0xffc00000) for negative inputs instead of positive NaN (0x7fc00000)",
        graph([vec(), vec()], N("sqrt", [0]), N("copysign", [1, 2])),
        [-np.geomspace(0.5, 4.0, 64), ONES],
        cpu(">=2.9", "copysign(1, sqrt(x)) makes the NaN's sign bit a value: eager and the float64 reference give +1, Inductor -1. IEEE 754 does not interpret the sign of a NaN and copysign is exact on each side's inputs, so numfuzz judges it amplified, no bug; " + MEASURED),
        expect="amplified",
    ),
    "pytorch-189801-elu-tiny-negative-to-zero": Report(
        189801, "inductor rounds slightly negative F.elu outputs to exactly 0.0, causing div-by-zero to produce nan instead of -inf",
        graph([vec()], N("elu", [0], alpha=0.52), N("reciprocal", [1])),
        [tiled([-1e-8, -1e-9, -1e-10, -1e-20, -1e-30, -1e-38])],  # the report's inputs
        cpu("<2.14.1", "the report divides elu(x) by zeros, whose float64 answer is infinite; 1/elu(x) keeps it finite. elu lowers through expm1, which the vectorised code computed as exp(x) - 1 (the known issue inductor-cpu-vectorized-expm1, fixed in 2.14.1): elu is 0 and 1/0 = inf where eager is finite; " + MEASURED + ": not on 2.15.0"),
    ),
    "pytorch-185337-fp16-round-trip-emulate": Report(
        185337, "[inductor] CPU codegen does not preserve explicit float32 to float16 to float32 cast semantics",
        graph([TensorSpec((5, 4), "fp32")], N("transpose", [0], dim0=0, dim1=1), N("cast", [1], dtype="fp16"), N("cast", [2], dtype="fp32"), N("sum", [3], dim=1, keepdim=False), outputs=(3, 4)),
        [np.arange(20.0).reshape(5, 4) / 7.0],  # the report's x, transposed in the program
        cpu("<2.14.1", "even with emulate_precision_casts the CPU code drops the fp16 round trip (fixed by PR #185847, measured fixed in 2.14.1 with the known issue inductor-emulate-precision-casts-cpu); " + MEASURED),
        target="inductor:emulate_precision_casts=1",
    ),
    "pytorch-198183-erf-small": Report(
        198183, "[inductor][cpu] Vectorized float32 torch.erf loses all relative accuracy near 0 under torch.compile; vector atanh returns 0 for small |x|",
        graph([vec()], N("erf", [0])),
        [tiled([1e-8, 1e-7, 2e-7, 5e-7, 1e-6, 1e-5, 1e-4, 1e-3])],  # the report's values, 8 times
        cpu(">=2.9", "Vectorized<float>::erf is an absolute-error approximation, 0 for |x| <= 1e-7; open; " + MEASURED),
    ),
    "pytorch-198183-atanh-small": Report(
        198183, "[inductor][cpu] Vectorized float32 torch.erf loses all relative accuracy near 0 under torch.compile; vector atanh returns 0 for small |x|",
        graph([vec()], N("atanh", [0])),
        [tiled([1e-8, 1e-7, 2e-7, 5e-7, 1e-6, 1e-5, 1e-4, 1e-3])],
        cpu(">=2.9", "the vectorised atanh cancels near 0 and returns 0 below the float epsilon; open; " + MEASURED),
    ),
    "pytorch-198133-erfinv-near-one": Report(
        198133, "[inductor][cpu] torch.erfinv loses accuracy near +-1 under torch.compile",
        graph([vec()], N("erfinv", [0])),
        [tiled([0.99, 0.9999, 0.999999, 0.9999999, 0.99999994])],  # the report's float32 values
        cpu(">=2.9", "with glibc the compiled erfinv is up to 126 ULP off near 1, where erfinv's condition reaches 5.5e5; that is the exact erfinv of inputs within 0.19 ULP (bound: numfuzz's default 2 ULP), so numfuzz judges it within_rounding (the report's 7.5e-3 is with MSVC); " + MEASURED),
        expect="within_rounding",
    ),
    "pytorch-189804-gelu-sign": Report(
        189804, "Inductor vectorized GELU kernel produces tiny negative value (~-1.65e-7) where eager produces -0.0, causing sign() mismatch",
        graph([vec()], N("gelu", [0], approximate="none"), N("sign", [1])),
        [tiled([-5.533906936645508, -5.531643390655518])],  # the report's inputs
        cpu(">=2.9", "gelu(-5.53) is -8.9e-8: eager's -0.0 makes sign 0, Inductor's tiny negative makes it -1, the float64 answer; more accurate, as the maintainers judged in closing it; " + MEASURED),
        expect="more_accurate",
    ),
    "pytorch-183607-fp16-square-overflow": Report(
        183607, "torch.compile changes fp16 overflow behavior for cast-to-float16 multiplication",
        graph([vec("fp16", 40)], N("mul", [0, 0]), N("div", [1, 0]), outputs=(1, 2)),
        [np.full(40, 300.0)],  # the report's comment: x = 300 in fp16, y = x * x, y / x
        cpu(">=2.9", "x * x overflows fp16 in eager (inf, then inf / x); Inductor keeps it in fp32 and y / x is 300, the float64 answer: more accurate, no bug by the float64 rule; " + MEASURED),
        expect="more_accurate",
    ),
    "pytorch-189799-elu-negative-zero": Report(
        189799, "Inductor systematically mishandles negative zero (-0.0) sign across multiple operations (add, elu, sqrt+rsqrt fusion)",
        graph([vec(), vec()], N("elu", [0], alpha=1.0), N("copysign", [1, 2])),
        [-np.zeros(64), ONES],
        cpu("<2.14.1", "elu(-0.0) is -0.0 in eager and float64, +0.0 through the vectorised expm1 as exp(x) - 1 (fixed in 2.14.1); copysign shows the sign. A zero's sign carries no magnitude, so numfuzz judges it amplified; the report's add path is pytorch-189799-add-zeros-like-negative-zero; " + MEASURED + ": 2.15.0 keeps -0.0 (equal)"),
        expect="amplified",
    ),
    "pytorch-185480-elu-bf16-subnormal-cuda": Report(
        185480, "[Inductor][CUDA][bf16] F.celu returns +0.0 where eager returns a negative bf16 subnormal",
        graph([vec("bf16")], N("elu", [0], alpha=1.0)),
        [-np.arange(1, 65) * 2.0**-133],  # negative bf16 subnormals, the report's -9.18e-41 first
        {"torch": ">=2.9", "device": "cuda", "why": "from the report, not yet run by numfuzz: Triton's flush-to-zero makes libdevice expm1 return +0.0 for subnormal results; PR #185878 keeps subnormals only under emulate_precision_casts"},
    ),
    "pytorch-125557-pow-denormal-cuda": Report(
        125557, "result of 2 ** s differs between eager mode and inductor + triton + cuda when in float32 denormal range",
        graph([vec(), vec()], N("pow", [0, 1])),
        [np.full(64, 2.0), np.linspace(-149.5, -126.5, 64)],
        {"torch": ">=2.9", "device": "cuda", "why": "from the report, not yet run by numfuzz: 2 ** s in the fp32 subnormal range is 0.0 compiled, exact in eager (open)"},
    ),
    "pytorch-189799-add-zeros-like-negative-zero": Report(
        189799, "Inductor systematically mishandles negative zero (-0.0) sign across multiple operations (add, elu, sqrt+rsqrt fusion)",
        graph([vec(), vec()], N("ceil", [0]), N("zeros_like", [2], dtype="fp32"), N("add", [2, 3]), N("copysign", [1, 4])),
        [-np.linspace(0.01, 0.99, 64), ONES],  # ceil gives -0.0, and -0.0 + 0.0 is +0.0
        cpu(">=2.9", "the report's add path: ceil(x) is -0.0 for x in (-1, 0), and -0.0 + zeros_like(x) is +0.0 in eager and float64; Inductor folds the constant zero away and keeps -0.0, which copysign shows as -1. A zero's sign carries no magnitude, so numfuzz judges it amplified; still so on 2.15.0; measured on 2.9.1 and 2.15.0 with AVX2 (an AMD EPYC)", isa=["AVX2"]),
        expect="amplified",
    ),
    "pytorch-194976-clamp-stale-float": Report(
        194976, "[torch.compile][Inductor] Silent wrong results when an automatically dynamic Python float used by clamp reuses a stale value",
        graph([TensorSpec((4, 16), "fp32")], N("chunk", [0], chunks=2, dim=1, index=0), N("chunk", [0], chunks=2, dim=1, index=1),
              N("silu", [1]), N("clamp_scalar", [3], min=None, max=0.5, passed=(("max", 1.0),)),
              N("clamp_scalar", [2], min=-0.5, max=0.5, passed=(("min", -1.0), ("max", 1.0))), N("mul", [4, 5])),
        [np.linspace(-3.0, 3.0, 64).reshape(4, 16)],  # the report's swiglu: limit 0.5, then 1.0, each a Python float argument
        cpu(">=2.9", "the report's program, with its limit passed as Python floats (one per clamp bound) at 0.5 and then 1.0, under torch.compile's default dynamic=None: the second call recompiles and gives eager's values on the CPU here (equal); the report's stale value needs the backward and separate closures, which numfuzz does not draw; " + MEASURED_SCALARS, isa=["AVX2"]),
        expect="equal", run={"dynamic": "automatic"},
    ),
    "pytorch-194976-clamp-stale-float-backward": Report(
        194976, "[torch.compile][Inductor] Silent wrong results when an automatically dynamic Python float used by clamp reuses a stale value",
        graph([TensorSpec((4, 16), "fp32")], N("chunk", [0], chunks=2, dim=1, index=0), N("chunk", [0], chunks=2, dim=1, index=1),
              N("silu", [1]), N("clamp_scalar", [3], min=None, max=0.5, passed=(("max", 1.0),)),
              N("clamp_scalar", [2], min=-0.5, max=0.5, passed=(("min", -1.0), ("max", 1.0))), N("mul", [4, 5])),
        [np.linspace(-3.0, 3.0, 64).reshape(4, 16)],
        cpu(">=2.9", "the same program with its backward judged at both calls (the upstream gradient a ramp): at both the input's gradient is more accurate compiled than eager (33 against 5 fp32 ULP: silu's backward fused); the second call, limit 1.0 after 0.5, recompiles under dynamic=None and uses the new bound (no stale value); the report's stale bound needs its two clamps' closures compiled apart, which a numfuzz program (one function, its scalars as arguments) does not do; " + MEASURED_SCALARS, isa=["AVX2"]),
        expect="more_accurate", run={"dynamic": "automatic", "grad": True}, upstream=[np.linspace(-1.0, 1.0, 32).reshape(4, 8)],
    ),
    "pytorch-185472-hardtanh-bf16-bound-grad": Report(
        185472, "[Inductor] F.hardtanh compiled backward silently drops gradient at bf16 boundary values",
        graph([vec("bf16")], N("hardtanh", [0], min_val=-0.7, max_val=0.7)),
        [tiled([0.69921875, -0.69921875, 0.703125, 0.5])],  # bf16(0.7) and its neighbour above, either sign
        cpu(">=2.9", "bf16(0.7) = 0.69921875 lies inside (-0.7, 0.7), and the gradient there is 1 (the float64 answer). The report is CUDA's: Inductor's CPU code computes bf16 in fp32 and compares as eager does, so the CPU gives equal; measured on 2.9.1, 2.13.0, 2.14.1 and 2.15.0 with AVX2 (an AMD EPYC)", isa=["AVX2"]),
        expect="equal", run={"grad": True}, upstream=[ONES],
    ),
    "pytorch-185472-hardtanh-bf16-bound-grad-cuda": Report(
        185472, "[Inductor] F.hardtanh compiled backward silently drops gradient at bf16 boundary values",
        graph([vec("bf16")], N("hardtanh", [0], min_val=-0.7, max_val=0.7)),
        [tiled([0.69921875, -0.69921875, 0.703125, 0.5])],
        {"torch": "<2.14", "device": "cuda", "why": "from the report, not yet run by numfuzz: the compiled backward compares in bf16, where bf16(0.7) lies on the bound, and zeroes the gradient eager passes (fixed by PR #185840, June 2026)"},
        run={"grad": True}, upstream=[ONES],
    ),
    "pytorch-175807-eq-bf16-scalar": Report(
        175807, "[inductor] Fix BF16/FP16 scalar comparison to match eager (#173987)",
        graph([vec("bf16")], N("eq_scalar_cast", [0], value=3.14)),
        [tiled([3.140625, 3.125, 3.15625])],  # bf16(3.14) and its neighbours
        cpu("<2.13", "eager rounds 3.14 to bf16 (3.140625) and finds x == 3.14 true; the float64 reference compares with 3.14 as stated and finds it false, as Inductor did before the fix (it compared in fp32): more accurate by the float64 rule, though the fix made Inductor follow eager; more_accurate on 2.9.1, equal on 2.13.0, 2.14.1 and 2.15.0 with AVX2 (an AMD EPYC)", isa=["AVX2"]),
        expect="more_accurate",
    ),
    "pytorch-195675-clamp-bound-beyond-fp32": Report(
        195675, "torch.clamp with a bound unrepresentable in the tensor dtype: eager raises, torch.compile ignores the bound",
        graph([vec()], N("clamp_scalar", [0], min=-3.4e39, max=3.4e39)),
        [np.linspace(-2.0, 2.0, 64)],
        cpu(">=2.9", "eager raises (the bound cannot be converted to float), so there is no eager answer to compare: numfuzz calls the case invalid, as it does any program eager rejects; the compiled result clamps nothing; " + MEASURED_SCALARS, isa=["AVX2"]),
        expect="invalid",
    ),
    "pytorch-185517-margin-ranking-bf16-margin-grad": Report(
        185517, "[Inductor][CPU][bf16] Gradient mismatch in F.margin_ranking_loss backward with bfloat16 tensors and float scalar",
        graph([vec("bf16"), vec("bf16"), vec("bf16")], N("margin_ranking_loss", [0, 1, 2], margin=1.7, reduction="mean")),
        [np.full(64, 1.703125), np.zeros(64), ONES],  # the report's values: x1 = bf16(1.7), x2 = 0, target 1
        cpu("<2.14", "eager rounds the margin to bf16 (1.703125), so margin - x1 is exactly 0 and its boundary gradient flows; the float64 reference keeps 1.7 as stated, margin - x1 < 0 and the gradient is 0, which Inductor gave before PR #185869 made it round as eager does: more accurate by the float64 rule; more_accurate on 2.9.1 and 2.13.0, equal on 2.14.1 and 2.15.0 with AVX2 (an AMD EPYC)", isa=["AVX2"]),
        expect="more_accurate", run={"grad": True}, upstream=[[1.0]],
    ),
    "pytorch-145401-var-mean-fp16-rows": Report(
        145401, "torch.compile has different numerics for var_mean",
        graph([VAR_MEAN_INPUT], N("var_mean", [0], dim=0, correction=0, keepdim=True, which=0), N("var_mean", [0], dim=0, correction=0, keepdim=True, which=1), outputs=(1, 2)),
        [VAR_MEAN_VALUES],
        cpu(">=2.9", "the report's shape, 112958 x 384 in fp16 (43M elements; its values are a normal draw of 4096 repeated, which the case file stores packed); its reduction dim is not in the report's opening, so the case reduces the 112958 rows, the loop a Welford reduction splits. On the CPU both eager and Inductor (Welford with cascade sums since PR #145061) are within half an ULP of the float64 answer: equal. The report is Triton's Welford on CUDA (fixed there by an ATen fallback, PR #184158); " + MEASURED),
        expect="equal",
    ),
    "pytorch-145401-var-mean-fp16-rows-cuda": Report(
        145401, "torch.compile has different numerics for var_mean",
        graph([VAR_MEAN_INPUT], N("var_mean", [0], dim=0, correction=0, keepdim=True, which=0), N("var_mean", [0], dim=0, correction=0, keepdim=True, which=1), outputs=(1, 2)),
        [VAR_MEAN_VALUES],
        {"torch": "<2.14", "device": "cuda", "why": "from the report, not yet run by numfuzz: Triton's fp16 Welford var_mean at 112958 x 384 differs from eager's (reproduced on a 2.13 nightly by the maintainers' bot, mean off by 4.9e-4); PR #184158 (June 2026) falls back to ATen for fp16 and bf16 on CUDA, in which release is not measured"},
    ),
    "pytorch-182012-diagonal-scatter-grad": Report(
        182012, "`torch.compile` silently produces all-zero `x.grad` for `diagonal_scatter(...).sum().backward()`",
        graph([TensorSpec((8, 8), "fp32"), TensorSpec((8,), "fp32")], N("diagonal_scatter", [0, 1], offset=0, dim1=0, dim2=1), N("reshape", [2], shape=(64,)), N("sum", [3], dim=0, keepdim=False)),
        DIAGONAL_SCATTER_VALUES,
        cpu("<2.13", DIAGONAL_SCATTER_WHY, isa=["AVX2"]),
        expect="finding", run={"grad": True}, upstream=[[1.0]],
    ),
}  # fmt: skip


def build(stem: str, report: Report) -> Case:
    case = report.case()
    if report.reproduces["device"] != "cpu":
        return case  # written from the report: no result until it runs on its device
    outcome = run_case(case, resolve(case.target), "cpu")
    seen = "finding" if outcome.verdict.is_finding else outcome.verdict.value
    if seen != report.expect:
        sys.exit(f"{stem}: {case.target} gives {outcome.verdict.value} here, expected {report.expect}; run this on torch 2.9.1")
    case.result = outcome.to_json()
    case.provenance = {**case.provenance, **provenance("cpu")}
    case.extra["signature"] = signature_of(case.target, outcome).to_json()
    return case


def main() -> None:
    """Every case, or only those named on the command line (a machine whose ISA differs gives some others another verdict)."""
    wanted = sys.argv[1:]
    unknown = [w for w in wanted if w not in REPORTS]
    if unknown:
        sys.exit(f"no report {unknown[0]!r}; known: {', '.join(REPORTS)}")
    for stem, report in REPORTS.items():
        if wanted and stem not in wanted:
            continue
        case = build(stem, report)
        verdict = case.result["verdict"] if case.result else "not run"
        print(f"{stem}: {verdict} -> {save_case(case, UPSTREAM, stem)}")


if __name__ == "__main__":
    main()
