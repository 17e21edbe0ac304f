"""The float64 reference of a model as written: ops exact, the model's own casts rounding where they stand."""

from __future__ import annotations

import torch
import torch._dynamo

from numfuzz.model.reference import float64_program


class _Norm(torch.nn.Module):
    """Qwen2's RMSNorm: normalise in fp32, cast back to the input's dtype, scale."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.full((8,), 1.1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.weight * h.to(dtype)


def _reference(module: torch.nn.Module, *x: torch.Tensor, casts_round: bool = True) -> torch.Tensor:
    fn, capture = float64_program(module, casts_round)
    try:
        return fn(*x), capture
    finally:
        torch._dynamo.reset()


def test_the_cast_back_rounds_and_everything_else_is_exact():
    module, x = _Norm().to(torch.bfloat16), (torch.randn(4, 8) * 3).to(torch.bfloat16)
    out, capture = _reference(module, x)
    h = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + 1e-6)
    as_written = module.weight.double() * h.to(torch.bfloat16).double()
    assert out.dtype == torch.float64 and torch.equal(out, as_written)
    assert capture.graphs == 1 and capture.nodes
    plain, _ = _reference(module, x, casts_round=False)  # a float64 copy of the model: the cast back is lost
    assert torch.equal(plain, module.weight.double() * h) and not torch.equal(plain, as_written)


def test_a_factory_makes_its_dtype_s_value_and_a_reduction_s_dtype_widens_exactly():
    def fn(x: torch.Tensor) -> torch.Tensor:
        mask = torch.full((4,), 0.1, dtype=torch.bfloat16)  # 0.1 in bf16 is 0.10009765625
        return torch.softmax(x, -1, dtype=torch.float32) + mask

    x = torch.randn(4).to(torch.bfloat16)
    out, _ = _reference(fn, x)
    assert torch.allclose(out - torch.softmax(x.double(), -1), torch.full((4,), 0.10009765625, dtype=torch.float64), rtol=0, atol=1e-15)


def test_a_cast_to_another_tensor_s_dtype_rounds_too():
    """Meta's Llama RMSNorm ends with `output.type_as(x)`: other's dtype is float64 when the reference runs, so the cast
    takes the dtype other had when the model was traced."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)).type_as(x) * 3

    x = (torch.randn(4, 8) * 3).to(torch.bfloat16)
    out, _ = _reference(fn, x)
    h = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + 1e-6)
    assert torch.equal(out, h.to(torch.bfloat16).double() * 3)


def test_a_training_step_s_reference_gradients_go_through_the_casts():
    """The float64 gradient of a parameter, through a model whose cast back to bf16 rounds (its gradient passes the cast)."""
    from numfuzz.model.train import reference_step_runs

    module = _Norm().to(torch.bfloat16)
    x = (torch.randn(4, 8) * 3).to(torch.bfloat16)
    (run,), _ = reference_step_runs(lambda x: module(x).float().pow(2).mean(), [module.weight], [[x]])
    w = module.weight.detach().double().requires_grad_()
    h = x.double() * torch.rsqrt(x.double().pow(2).mean(-1, keepdim=True) + 1e-6)
    loss = (w * h.to(torch.bfloat16).double()).pow(2).mean()
    (want,) = torch.autograd.grad(loss, [w])
    assert torch.allclose(run[0], loss.detach(), rtol=1e-15, atol=0) and torch.allclose(run[1], want, rtol=1e-12, atol=1e-15)
    x64 = x.double().requires_grad_()  # the float input's gradient too: near the one without the casts' roundings
    h = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + 1e-6)
    (want_x,) = torch.autograd.grad((module.weight.detach().double() * h).pow(2).mean(), [x64])
    assert len(run) == 3 and run[2].shape == x.shape and torch.allclose(run[2], want_x, rtol=0.05, atol=1e-3)


def test_an_output_worse_only_in_ulps_of_its_near_zero_elements_counts_as_equal():
    """GPT-2's transformer alone: 4773 ULP against 925 at elements near 0, no bit worse at the output's scale."""
    import numpy as np

    from numfuzz.judge.oracle import compare_output
    from numfuzz.judge.verdicts import Verdict
    from numfuzz.model.verdict import output_oracle

    exact = np.concatenate([np.linspace(-2, 2, 63), [1e-12]])
    eager = exact.astype(np.float32).astype(np.float64)
    near_zero = eager.copy()
    near_zero[-1] += 5e-15  # 5e4 ULPs of 1e-12, less than half an ULP at the output's scale (2**-24 of its largest)
    out = compare_output(0, "fp32", exact, eager, near_zero)
    assert out.verdict == Verdict.LESS_ACCURATE.value and output_oracle(out) is Verdict.EQUAL
    wrong = eager * (1 + 2**-10)  # every element off: bits lost at the output's scale too
    assert output_oracle(compare_output(0, "fp32", exact, eager, wrong)) is Verdict.LESS_ACCURATE


def test_under_autocast_the_reference_rounds_what_autocast_casts():
    """A linear under bf16 autocast: the reference computes it exactly from its arguments rounded to bf16, as autocast
    casts them in eager; the silu after it (no autocast policy) takes the linear's value as it is."""
    torch.manual_seed(0)
    linear, x = torch.nn.Linear(16, 8), torch.randn(4, 16)

    def run(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return torch.nn.functional.silu(linear(x))

    fn, _ = float64_program(run)
    try:
        got = fn(x)
    finally:
        torch._dynamo.reset()
    with torch.no_grad():
        bf16 = [t.to(torch.bfloat16).double() for t in (x, linear.weight, linear.bias)]
        rounded = torch.nn.functional.silu(torch.nn.functional.linear(*bf16))
        unrounded = torch.nn.functional.silu(torch.nn.functional.linear(x.double(), linear.weight.double(), linear.bias.double()))
    assert torch.equal(got, rounded) and not torch.equal(got, unrounded)


def test_a_cast_rounds_once_where_torch_s_own_conversion_rounds_twice():
    """1 + 2**-8 + 2**-30 lies just above the bf16 midpoint 1 + 2**-8: rounded once it goes up to 1 + 2**-7; torch's
    float64 -> bf16 goes through fp32, which rounds it onto the midpoint, and the tie then goes to even, 1.0."""
    just_above = torch.tensor([1 + 2**-8 + 2**-30], dtype=torch.float64)
    assert just_above.to(torch.bfloat16).item() == 1.0  # the double rounding the reference must not do

    def fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return (x + y).to(torch.bfloat16)  # x + y is exact in float64, 1 + 2**-8 in fp32

    out, _ = _reference(fn, torch.tensor([1 + 2**-8]), torch.tensor([2**-30]))
    assert out.item() == 1 + 2**-7


def test_an_op_with_its_own_reference_in_the_op_table_computes_by_it():
    """sinc's float64 kernel computes sin(pi x) with pi x rounded: at 3 it gives ~1e-17, where `OpSpec.reference`
    (`sinc_exact`) gives sinc's 0."""
    x = torch.tensor([0.5, 3.0, -2.0])
    assert torch.sinc(x.double())[1].item() != 0.0
    out, capture = _reference(torch.sinc, x)
    assert out[1].item() == 0.0 and out[2].item() == 0.0 and out[0].item() == torch.sinc(x.double())[0].item()


def test_a_constant_of_the_op_table_makes_its_dtype_s_value():
    """`zeros_like` is a constant (`OpSpec.constant`): `full_like(x, 0.1, dtype=bf16)` is 0.1 rounded to bf16, whatever x's dtype."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        return x + torch.full_like(x, 0.1, dtype=torch.bfloat16)

    out, _ = _reference(fn, torch.zeros(3))
    assert torch.equal(out, torch.full((3,), 0.10009765625, dtype=torch.float64))


def test_a_training_steps_parameter_the_loss_never_reads_has_the_exact_gradient_zero():
    """A head the loss does not use is no input of the captured graphs; eager's gradient of it is None, the reference's 0."""
    from numfuzz.model.check import check_model

    class TwoHeads(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = torch.nn.Linear(8, 8), torch.nn.Linear(8, 8)

        def forward(self, x):
            return self.used(x)

    torch.manual_seed(0)
    result = check_model(TwoHeads().to(torch.bfloat16), (torch.randn(4, 8, dtype=torch.bfloat16),), "eager", samples=1, train=True)
    assert result.verdict.value == "equal" and len(result.outputs) == 1 + 4 + 1  # the loss, 4 parameters' gradients, the input's
