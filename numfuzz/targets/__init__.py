"""Targets: what a program is compiled with. A registry of small objects.

A target family is registered under a prefix (`thunder`, `inductor`, ...); a spec such as
`thunder:torch,torchcompile` names the family and its argument.
"""

from numfuzz.targets.registry import Target, TargetError, families, register, resolve

__all__ = ["Target", "TargetError", "families", "register", "resolve"]
