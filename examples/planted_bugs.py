"""Deliberately broken Thunder executors, one numerical bug each, for testing numfuzz.

Import this file (`numfuzz fuzz --import examples/planted_bugs.py --target thunder:bug_expm1`)
and select an executor by name. Each claims one torch op and gets it subtly wrong, the way
real compilers do. Needs only torch and thunder.
"""

import weakref

import thunder.torch as ltorch
import torch
from thunder.core import prims
from thunder.extend import OperatorExecutor, register_executor


def _executor(name: str, symbol, impl) -> OperatorExecutor:
    ex = OperatorExecutor(name, version="0.1")
    register_executor(ex)
    op = ex.register_operator(f"{name}_impl", like=symbol, fn=impl)
    ex.register_implementation(symbol, op)
    return ex


# A cancelling approximation: exp(x) - 1 loses every digit as x -> 0; torch.expm1 does not.
def _expm1_by_exp(a):
    return torch.exp(a) - 1


# A low-precision accumulator: adds one slice at a time in the input dtype (eager uses fp32).
def _sum_in_input_dtype(a, dim=None, keepdim=False, *, dtype=None):
    if dim is None or a.dim() == 0:
        return (
            torch.sum(a, dim=dim, keepdim=keepdim, dtype=dtype)
            if dim is None and a.dim() == 0
            else _sum_in_input_dtype(a.reshape(-1), 0, False, dtype=dtype).reshape([1] * a.dim() if keepdim else [])
        )
    dims = sorted({d % a.dim() for d in ((dim,) if isinstance(dim, int) else dim)}, reverse=True)
    out = a if dtype is None else a.to(dtype)
    for d in dims:
        acc = out.narrow(d, 0, 1)
        for i in range(1, out.shape[d]):
            acc = acc + out.narrow(d, i, 1)  # rounds to the low dtype at every step
        out = acc if keepdim else acc.squeeze(d)
    return out


# One extra rounding: sigmoid is rounded to the input dtype before the multiply.
def _silu_rounded_sigmoid(a, inplace=False):
    gate = torch.sigmoid(a.float()).to(a.dtype)
    return (a.float() * gate.float()).to(a.dtype)


# Overflow where eager is finite: the textbook softplus overflows for large inputs.
def _softplus_naive(a, beta=1.0, threshold=20.0):
    return torch.log(1 + torch.exp(a * beta)) / beta


# A needle: sin flushes inputs below 2**-30 in magnitude to zero, as an approximation with an
# absolute error bound does near zero. Random inputs almost never come that close to zero; a
# search across exponents does.
def _sin_flushing_tiny(a):
    return torch.where(a.abs() < 2.0**-30, torch.zeros_like(a), torch.sin(a))


# Cast elision: a downcast remembers its source, and the next upcast returns it unrounded,
# so `x.to(torch.bfloat16).float()` silently becomes `x`.
_downcast_sources: dict = {}  # id(downcast result) -> (weak ref to it, its unrounded source)


def _convert_eliding_round_trips(a, dtype):
    torch_dtype = ltorch.to_torch_dtype(dtype)
    if not isinstance(torch_dtype, torch.dtype):
        return a.to(torch_dtype)
    ref, source = _downcast_sources.get(id(a), (None, None))
    if ref is not None and ref() is a and source.dtype == torch_dtype:
        return source
    out = a.to(torch_dtype)
    if out.element_size() < a.element_size():
        _downcast_sources[id(out)] = (weakref.ref(out), a)
        weakref.finalize(out, _downcast_sources.pop, id(out), None)
    return out


bug_expm1 = _executor("bug_expm1", ltorch.expm1, _expm1_by_exp)
bug_sum = _executor("bug_sum", ltorch.sum, _sum_in_input_dtype)
bug_silu = _executor("bug_silu", ltorch.silu, _silu_rounded_sigmoid)
bug_softplus = _executor("bug_softplus", ltorch.softplus, _softplus_naive)
bug_sin_tiny = _executor("bug_sin_tiny", ltorch.sin, _sin_flushing_tiny)


def _to_eliding_round_trips(a, *args, dtype=None, **kwargs):
    for arg in args:  # Tensor.to(dtype) passes the dtype positionally
        if isinstance(arg, torch.dtype):
            dtype = arg
    return a.to(*args, **kwargs) if dtype is None else _convert_eliding_round_trips(a, dtype)


bug_cast = _executor("bug_cast", prims.convert_element_type, _convert_eliding_round_trips)
bug_cast.register_implementation(ltorch.to, bug_cast.register_operator("bug_cast_to_impl", like=ltorch.to, fn=_to_eliding_round_trips))
