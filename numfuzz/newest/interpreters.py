"""The newest interpreters a finding is confirmed on, and how they are asked.

A maintainer's first question is whether a bug still happens on main. numfuzz answers it with one or more
*newest interpreters*: virtual environments with the newest torch, or with Thunder's main branch, named by
`--newest PATH` or by $NUMFUZZ_NEWEST (paths separated by the platform's path separator). Each replays the
smallest case of every group that would be listed as new (`numfuzz replay-cases` there, which imports this
checkout's numfuzz when it runs from a source tree, so both sides judge by the same rules). Answers are kept in
the corpus (`newest.json`), by case, interpreter versions and how the case ran, so a listing asks again only
what it has not asked. `numfuzz.newest.confirmation` decides what the answers say.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from numfuzz.corpus.grouping import NEWEST_ANSWERS
from numfuzz.corpus.store import write_atomic
from numfuzz.newest.replay_here import ReplayedHere

ENV = "NUMFUZZ_NEWEST"
CASE_TIMEOUT_S = 300.0  # per case asked, beyond a start-up allowance: a compile, a first call, a backward
START_S = 120.0
_VERSIONS = (
    "import json, platform\n"
    "from importlib import metadata\n"
    "def v(name):\n"
    "    try:\n"
    "        return metadata.version(name)\n"
    "    except metadata.PackageNotFoundError:\n"
    "        return 'absent'\n"
    "print(json.dumps({'torch': v('torch'), 'thunder': v('lightning-thunder'), 'python': platform.python_version()}))\n"
)


class NewestError(RuntimeError):
    """A newest interpreter that cannot answer; the message is one line for the user."""


def newest_pythons(given: Sequence[Path] = ()) -> list[Path]:
    """The interpreters to confirm on: those given, else $NUMFUZZ_NEWEST's."""
    if given:
        return [Path(p) for p in given]
    return [Path(p) for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]


@dataclass(frozen=True)
class Interpreter:
    python: Path
    torch: str
    thunder: str
    version: str  # Python's

    @property
    def label(self) -> str:
        """How a listing names it: the newest thing it stands for."""
        return f"thunder {self.thunder} (torch {self.torch})" if self.thunder != "absent" else f"torch {self.torch}"

    @property
    def key(self) -> str:
        """Another venv, or another torch or Thunder in it, asks again."""
        return f"{self.python}|torch {self.torch}|thunder {self.thunder}"


def describe(python: Path) -> Interpreter:
    """The versions installed under `python`, read from package metadata (nothing heavy is imported)."""
    if not Path(python).is_file():
        raise NewestError(f"newest interpreter {python}: no such file")
    try:
        done = subprocess.run([str(python), "-c", _VERSIONS], capture_output=True, text=True, timeout=60, check=False)
        data = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise NewestError(f"newest interpreter {python}: cannot run it ({type(exc).__name__})") from None
    if data.get("torch") == "absent":
        raise NewestError(f"newest interpreter {python}: torch is not installed there")
    return Interpreter(Path(python), str(data["torch"]), str(data["thunder"]), str(data["python"]))


def this_interpreter() -> Interpreter:
    return describe(Path(sys.executable))


def _environment() -> dict[str, str]:
    """The child's environment: this numfuzz first on its path when it runs from a source checkout."""
    env = dict(os.environ)
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file():  # a checkout: the other interpreter judges by this code
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env


def replay_under(interpreter: Interpreter, paths: Sequence[Path], through: bool, extra: Sequence[str] = ()) -> list[ReplayedHere]:
    """Ask `interpreter` to replay `paths` (through the compiler behind their targets when `through`); NewestError where it cannot."""
    if not paths:
        return []
    command = [str(interpreter.python), "-m", "numfuzz", "replay-cases", *(str(p) for p in paths), *(["--through-compiler"] if through else []), *extra]
    timeout = START_S + CASE_TIMEOUT_S * len(paths)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, env=_environment())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NewestError(f"{interpreter.python}: {type(exc).__name__} while replaying {len(paths)} cases") from None
    rows = []
    for line in done.stdout.splitlines():
        try:
            data = json.loads(line)
        except ValueError:
            continue  # a library's own print
        if isinstance(data, dict) and "now" in data:
            rows.append(ReplayedHere.from_json(data))
    if done.returncode != 0 or len(rows) != len(paths):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        raise NewestError(f"{interpreter.python} -m numfuzz replay-cases failed (exit {done.returncode}): {last}")
    return rows


class AnswerCache:
    """The answers kept in a corpus: case hash and interpreter versions and how it ran -> the row."""

    def __init__(self, root: Path | None):
        self.path = None if root is None else Path(root) / NEWEST_ANSWERS
        self.rows: dict[str, dict] = {}
        if self.path is not None and self.path.is_file():
            try:
                data = json.loads(self.path.read_text())
                self.rows = {str(k): v for k, v in data.get("answers", {}).items() if isinstance(v, dict)}
            except (OSError, ValueError, AttributeError):
                self.rows = {}  # an unreadable cache only costs the questions again

    @staticmethod
    def key(case_hash: str, interpreter: Interpreter, through: bool) -> str:
        return f"{case_hash}|{interpreter.key}|{'through' if through else 'own'}"

    def get(self, key: str) -> ReplayedHere | None:
        row = self.rows.get(key)
        return ReplayedHere.from_json(row) if row is not None else None

    def put(self, key: str, row: ReplayedHere) -> None:
        self.rows[key] = row.to_json()

    def save(self) -> None:
        if self.path is not None:
            write_atomic(self.path, json.dumps({"answers": self.rows}, indent=1, sort_keys=True) + "\n")
