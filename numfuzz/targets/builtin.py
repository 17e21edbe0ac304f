"""The built-in targets: eager, thunder:<executors>, inductor, thunderfx[:<executors>].

Heavy packages are imported only when a target is asked for.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

from numfuzz.targets.registry import TargetError, register

NVFUSER_WHY = "nvFuser needs CUDA and the nvfuser package (pip install 'numfuzz[nvfuser]')"


def _parse_options(text: str) -> dict[str, Any]:
    """`k=v,k2=v2` with v as bool, int, float or str."""
    options: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise TargetError(f"bad option {item!r}: expected key=value")
        low = raw.lower()
        value: Any = raw
        if low in ("true", "false", "1", "0", "yes", "no"):
            value = low in ("true", "1", "yes")
        else:
            for cast in (int, float):
                try:
                    value = cast(raw)
                    break
                except ValueError:
                    continue
        options[key] = value
    return options


def _reset_dynamo() -> None:
    import torch

    torch._dynamo.reset()


class Eager:
    name = "eager"

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, fn: Callable, device: str) -> Callable:
        return fn

    def final_trace(self, compiled: Callable) -> str | None:
        return None

    def reset(self) -> None:
        pass


class Thunder:
    """`thunder.jit` with an executor list and options: thunder:nvfuser,torch:nv_enable_linear=1"""

    def __init__(self, arg: str | None, fx: bool = False):
        self.fx = fx
        executors, _, opts = (arg or "").partition(":")
        self.executors = [e for e in executors.split(",") if e] or (["torchcompile"] if not fx else [])
        self.options = _parse_options(opts)
        self.name = ("thunderfx" if fx else "thunder") + (f":{arg}" if arg else "")

    def available(self) -> tuple[bool, str]:
        if importlib.util.find_spec("thunder") is None:
            return False, "lightning-thunder is not installed"
        try:
            self._executor_objects()
        except TargetError as exc:
            return False, str(exc)
        return True, ""

    def _executor_objects(self) -> list:
        from thunder.extend import get_executor

        found = []
        for name in self.executors:
            ex = get_executor(name)
            if ex is None:
                if name == "nvfuser":
                    raise TargetError(f"executor 'nvfuser' is not registered: {NVFUSER_WHY}")
                raise TargetError(f"thunder has no executor {name!r} (register it with thunder.extend, via --import)")
            found.append(ex)
        return found

    def prepare(self, fn: Callable, device: str) -> Callable:
        executors = self._executor_objects()
        if self.fx:
            from thunder.dynamo import thunderfx

            kwargs = dict(self.options)
            if executors:
                kwargs["executors"] = executors
            return thunderfx(fn, **kwargs)
        import thunder

        return thunder.jit(fn, executors=executors, **self.options)

    def final_trace(self, compiled: Callable) -> str | None:
        try:
            if self.fx:
                traces = compiled.last_traces
                return "\n\n".join(str(t[-1]) for t in traces if t) if traces else None
            import thunder

            return str(thunder.last_traces(compiled)[-1])
        except Exception:  # a trace is a courtesy for issue texts; never fail a case over it
            return None

    def reset(self) -> None:
        _reset_dynamo()


class Inductor:
    def __init__(self, arg: str | None):
        self.options = _parse_options(arg or "")
        self.name = "inductor" + (f":{arg}" if arg else "")

    def available(self) -> tuple[bool, str]:
        return True, ""

    def prepare(self, fn: Callable, device: str) -> Callable:
        import torch

        return torch.compile(fn, backend="inductor", dynamic=False, options=self.options or None)

    def final_trace(self, compiled: Callable) -> str | None:
        return None

    def reset(self) -> None:
        _reset_dynamo()


def _eager(arg: str | None) -> Eager:
    if arg:
        raise TargetError("eager takes no argument")
    return Eager()


register("eager", _eager, "PyTorch eager: the baseline", ("eager",))
register(
    "thunder",
    lambda arg: Thunder(arg),
    "thunder.jit with executors (default torchcompile) and options",
    ("thunder:torch", "thunder:torchcompile", "thunder:nvfuser", "thunder:nvfuser:nv_enable_linear=1,nv_enable_matmul=1"),
)
register("inductor", Inductor, "torch.compile with Inductor; options after ':'", ("inductor",))
register("thunderfx", lambda arg: Thunder(arg, fx=True), "torch.compile with Thunder as backend", ("thunderfx", "thunderfx:torchcompile"))
