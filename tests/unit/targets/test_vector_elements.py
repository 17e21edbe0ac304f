"""A full CPU vector's elements, for every dtype a program's value has: the minimiser keeps at least one vector of an
output compiled code vectorises (an integer program's uint8 output too, which once stopped minimisation with an error)."""

from __future__ import annotations

from numfuzz.targets import resolve
from numfuzz.targets.options import CPU_VECTOR_BYTES, vector_elements


def test_every_dtype_has_a_vector_width_on_cpu_and_one_element_elsewhere():
    widths = {d: vector_elements(d, "cpu") for d in ("fp64", "fp32", "bf16", "fp16", "i64", "i32", "u8", "i8", "bool")}
    assert widths == {"fp64": 8, "fp32": 16, "bf16": 32, "fp16": 32, "i64": 8, "i32": 16, "u8": 64, "i8": 64, "bool": 64}
    assert all(w * 8 <= CPU_VECTOR_BYTES * 8 for w in widths.values()) and vector_elements("u8", "cuda") == 1


def test_inductor_keeps_a_uint8_vector_when_minimising():
    floor = resolve("inductor").min_elements
    assert floor("u8", "cpu") == 64 and floor("i64", "cpu") == 8
