"""Loading user code (--import): a module name or a .py file that registers targets or executors."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

_loaded: set[str] = set()


def load_user_code(spec: str) -> None:
    """Import `spec` once per process; raises ImportError (or the module's own error) on failure."""
    path = Path(spec)
    is_file = spec.endswith(".py") or path.exists()
    key = str(path.resolve()) if is_file else spec
    if key in _loaded:
        return
    if is_file:
        if not path.is_file():
            raise ImportError(f"no such file: {spec}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot import {spec}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[path.stem] = module
        module_spec.loader.exec_module(module)
    else:
        importlib.import_module(spec)
    _loaded.add(key)
