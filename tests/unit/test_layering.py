"""The folders are the stages, and no module imports from a later stage (the README's "Layout" states the order)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "numfuzz"

# earliest first; a module may import from its own stage and earlier ones only
STAGES = [
    ("numfuzz.address", "numfuzz.share_table", "numfuzz.run_spec", "numfuzz.environment", "numfuzz.user_code", "numfuzz.data", "numfuzz.program"),
    ("numfuzz.targets",),
    ("numfuzz.judge",),
    ("numfuzz.search",),
    ("numfuzz.corpus",),
    ("numfuzz.runner",),
    ("numfuzz.reduce",),
    ("numfuzz.repro",),
    ("numfuzz.strategies", "numfuzz.check"),
    ("numfuzz.model",),
    ("numfuzz.workers",),
    ("numfuzz.campaign",),
    ("numfuzz.newest",),
    ("numfuzz.sweep",),
    ("numfuzz.report",),
    ("numfuzz.cli", "numfuzz.__main__"),
]


ROOT_STANDS_FOR = "numfuzz.model"  # `import numfuzz` reaches numfuzz.check_model, numfuzz.check and numfuzz.strategies


def stage_of(module: str) -> int | None:
    for rank, prefixes in enumerate(STAGES):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported(path: Path) -> set[str]:
    """Every numfuzz module it imports, at the top or inside a function (lazy imports count too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):  # `import numfuzz` is the root, which hands out its public API: the latest stage it names
            names |= {a.name if a.name != "numfuzz" else ROOT_STANDS_FOR for a in node.names if a.name.startswith("numfuzz.") or a.name == "numfuzz"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("numfuzz"):
            names.add(node.module if node.module != "numfuzz" else ROOT_STANDS_FOR)
    return names


def test_every_module_has_a_stage():
    unplaced = [m for m in modules() if m != "numfuzz" and stage_of(m) is None]
    assert not unplaced, f"modules in no stage (add them to STAGES and the README's layout): {unplaced}"


def test_no_module_imports_from_a_later_stage():
    backwards = []
    for module, path in sorted(modules().items()):
        own = stage_of(module)
        if own is None:
            continue
        for name in imported(path):
            theirs = stage_of(name)
            if theirs is not None and theirs > own:
                backwards.append(f"{module} imports {name}")
    assert not backwards, "imports against the flow:\n" + "\n".join(backwards)


def test_the_checker_sees_a_backward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from numfuzz.cli.failure import fail\n")
    assert imported(module) == {"numfuzz.cli.failure"} and stage_of("numfuzz.cli.failure") > stage_of("numfuzz.judge.oracle")
    module.write_text("import numfuzz\n")  # the root counts as the public API's stage
    assert stage_of(next(iter(imported(module)))) > stage_of("numfuzz.environment")
