"""Targets: what a program is compiled with. A registry of small objects, one module per compiler family.

A plugin adds a family with `numfuzz.targets.register(prefix, factory, summary)`; the factory
returns an object that follows `numfuzz.targets.protocol.Target`.
"""

from numfuzz.targets import builtin  # noqa: F401, E402  (registers the built-in families)
from numfuzz.targets.protocol import Target, TargetError
from numfuzz.targets.registry import families, register, resolve

__all__ = ["Target", "TargetError", "families", "register", "resolve"]
