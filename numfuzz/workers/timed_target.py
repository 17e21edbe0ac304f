"""A target wrapper that books the CPU time spent compiling and running, for the campaign's cost split."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable

from numfuzz.judge.metadata import keeps_output_strides
from numfuzz.targets.compile_modes import compile_count, configured
from numfuzz.workers.process_metrics import cpu_seconds


class _Book:
    compile_cpu = 0.0  # prepare, reset and the first call (which compiles)
    run_cpu = 0.0  # every later call
    tracing: Callable[[], AbstractContextManager] | None = None  # what calls into the target run inside (a traced case)


class TimedTarget:
    """Forwards to a target and books the CPU time spent inside it: compiling and running.

    `configured(run)` gives the same for the target compiling as `run` asks, booking into the same account.
    While `trace_with` has given it a tracing context, every call into the target runs inside it (`calling`):
    a traced case's lines are the compiler's, not those of the eager and float64 runs around them."""

    def __init__(self, inner: Any, book: _Book | None = None):
        self.inner = inner
        self.name = inner.name
        self.book = book or _Book()

    compile_cpu = property(lambda self: self.book.compile_cpu)
    run_cpu = property(lambda self: self.book.run_cpu)

    def configured(self, run: Any) -> TimedTarget:
        return TimedTarget(configured(self.inner, run), self.book)

    def trace_with(self, tracing: Callable[[], AbstractContextManager] | None) -> None:
        self.book.tracing = tracing

    def calling(self) -> AbstractContextManager:
        """What a call into the target runs inside (`compile_modes.inside_target`)."""
        return self.book.tracing() if self.book.tracing is not None else nullcontext()

    def compile_count(self, compiled: Callable) -> int | None:
        return compile_count(self.inner, compiled)

    def available(self) -> tuple[bool, str]:
        return self.inner.available()

    def keeps_output_strides(self) -> bool:
        return keeps_output_strides(self.inner)

    def reset(self) -> None:
        start = cpu_seconds()
        self.inner.reset()
        self.book.compile_cpu += cpu_seconds() - start

    def prepare(self, fn: Callable, device: str) -> Callable:
        start = cpu_seconds()
        compiled = self.inner.prepare(fn, device)
        self.book.compile_cpu += cpu_seconds() - start
        calls = [0]

        def timed(*args: Any) -> Any:
            begin = cpu_seconds()
            try:
                return compiled(*args)
            finally:
                spent = cpu_seconds() - begin
                if calls[0] == 0:
                    self.book.compile_cpu += spent
                else:
                    self.book.run_cpu += spent
                calls[0] += 1

        timed.numfuzz_inner = compiled  # type: ignore[attr-defined]
        return timed

    def final_trace(self, compiled: Callable) -> str | None:
        return self.inner.final_trace(getattr(compiled, "numfuzz_inner", compiled))
