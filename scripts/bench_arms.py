"""Campaign arms run side by side as `numfuzz fuzz` processes, and what each measured: the bench scripts' shared part.

Each arm has its own corpus and its own fresh Inductor cache, and may run another source tree
(last turn's code, say), so that arms started together see the same machine load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Arm:
    label: str
    args: tuple[str, ...]  # `numfuzz fuzz` options beyond the common ones
    tree: Path = ROOT  # the source tree it runs (PYTHONPATH)
    process: subprocess.Popen | None = field(default=None, repr=False)
    corpus: Path | None = None


def read_stats(path: Path) -> dict[str, str]:
    """fuzzer_stats as a dict of strings."""
    rows = {}
    for line in path.read_text().splitlines():
        key, _, value = line.partition(":")
        rows[key.strip()] = value.strip()
    return rows


def groups(corpus: Path) -> dict:
    """New, known, unsupported and benign groups, as this tree's `numfuzz corpus --all --json` lists them from what the arms
    stored (whichever tree ran the arm; nothing runs again, nothing is confirmed)."""
    command = [sys.executable, "-m", "numfuzz", "corpus", str(corpus), "--all", "--json", "--no-measure", "--no-confirm"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode not in (0, 1):
        raise RuntimeError(f"numfuzz corpus failed: {done.stderr.strip().splitlines()[-1:]}")
    listed = json.loads(done.stdout or "[]")
    listed = listed.get("groups", listed) if isinstance(listed, dict) else listed
    benign = [g for g in listed if g.get("benign")]
    real = [g for g in listed if not g.get("benign")]
    return {
        "groups": len(real),
        "new": sum(g.get("known") is None and not g.get("unsupported") for g in real),
        "known": sum(g.get("known") is not None for g in real),
        "unsupported": sum(bool(g.get("unsupported")) for g in real),
        "benign": len(benign),
        "titles": sorted(str(g.get("group", "")) for g in real),
    }


def start(arm: Arm, common: list[str], work: Path, minimize: bool = False) -> None:
    """Start `arm` in the background: `numfuzz fuzz` with `common` and its own options, corpus and Inductor cache; with
    `minimize`, each arm minimises as its own tree's campaign does (their schedules are then part of what is compared)."""
    arm.corpus, cache = work / f"corpus-{arm.label}", work / f"inductor-{arm.label}"
    cache.mkdir(parents=True)
    command = [sys.executable, "-m", "numfuzz", "fuzz", *common, "--corpus", str(arm.corpus), *([] if minimize else ["--no-minimize"]), *arm.args]
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache), "PYTHONPATH": str(arm.tree)}
    log = (work / f"log-{arm.label}.txt").open("w")
    arm.process = subprocess.Popen(command, cwd=arm.tree, env=env, stdout=log, stderr=subprocess.STDOUT)


def finish(arms: list[Arm], work: Path) -> list[dict]:
    """Wait for every arm; what each measured (SystemExit with its log's tail when one failed)."""
    for arm in arms:
        if arm.process.wait() != 0:
            print((work / f"log-{arm.label}.txt").read_text()[-2000:], file=sys.stderr)
            raise SystemExit(f"arm {arm.label} failed (exit {arm.process.returncode})")
    return [{"arm": arm.label, **measured(arm)} for arm in arms]


def measured(arm: Arm) -> dict:
    stats = read_stats(next(arm.corpus.glob("campaign/*/fuzzer_stats")))
    number = lambda key: float(stats.get(key, "0") or 0)  # noqa: E731
    cases = int(number("cases_this_run"))
    return {
        "graphs": int(number("graphs_this_run")),
        "seconds": number("run_time"),
        "graphs_per_min": number("graphs_per_min"),
        "cases_batched": int(number("cases_batched")),
        "batched_share": round(number("cases_batched") / cases, 3) if cases else 0.0,
        "compiler_lines": int(number("compiler_lines")),
        "kernel_shapes": int(number("kernel_shapes")),
        "findings": int(number("findings")),
        "children": int(number("children_this_run")),
        "parents": int(number("parents")),
        "parents_fertile": int(number("parents_fertile")),
        **groups(arm.corpus),
    }


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")


def run_programs(command: str, seconds: float, work: Path, first_seed: int = 0) -> dict:
    """Another fuzzer's arm: `command` (a shell line with `{seed}` in it, one program a run, as TorchFuzz's `fuzzer.py
    --seed N`) run with seed after seed on one core until `seconds` pass, with a fresh Inductor cache. Programs per
    minute count the runs that ended within the time, whatever their exit (a program that found a bug is a program)."""
    import shlex
    import time

    cache = work / "inductor-programs"
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache)}
    deadline, done, failed, seed = time.monotonic() + seconds, 0, 0, first_seed
    started = time.monotonic()
    with (work / "log-programs.txt").open("w") as log:
        while (left := deadline - time.monotonic()) > 0:
            try:
                ran = subprocess.run(shlex.split(command.format(seed=seed)), stdout=log, stderr=subprocess.STDOUT, env=env, timeout=left)
            except subprocess.TimeoutExpired:
                break  # the run the time cut short is not counted
            done, failed, seed = done + 1, failed + (ran.returncode != 0), seed + 1
    elapsed = time.monotonic() - started
    return {
        "arm": "programs",
        "command": command,
        "programs": done,
        "nonzero_exits": failed,
        "seconds": round(elapsed, 1),
        "programs_per_min": round(60 * done / elapsed, 2),
    }
