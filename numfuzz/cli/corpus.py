"""`numfuzz corpus`: findings grouped by root cause, new ones first, known upstream issues marked, refusals listed apart."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click

from numfuzz.cli.cases import isolated_runner, recorded_imports
from numfuzz.cli.confirming import child_arguments, confirm_new, counts_text, newest_or_fail
from numfuzz.cli.failure import fail
from numfuzz.cli.options import bounds_option, device_option, import_option, known_option, newest_option, no_confirm_option
from numfuzz.cli.setup import bounds_in_environment, import_user_code, load_known_or_fail, use_bounds_or_fail


def _status(group, confirmation=None) -> str:
    """The listing's status column; `confirmation`: what the newest interpreters said of a new group."""
    from numfuzz.newest.confirmation import State

    if group.benign:
        return "+".join(sorted(group.verdicts))
    if group.known is not None:
        kind = "known limitation" if group.known.kind == "limitation" else "known"
        return f"{kind}: {group.known.id}" + (f", fixed in {group.known.fixed_in}" if group.known.fixed_in else "")
    if group.unsupported:
        return "unsupported" + (", supported on the newest" if confirmation is not None and confirmation.state is State.FIXED else "")
    if _stale(group):
        return "stale: replay to judge"
    new = "new" if group.minimized else "new, not minimised"
    if confirmation is None:
        return new
    if confirmation.state is State.FIXED:
        return "fixed upstream"
    if confirmation.state is State.NOT_RUN:
        return "unconfirmed"
    return f"{new}, {'on the newest' if confirmation.state is State.REPRODUCES else 'changed upstream'}"


def _stale(group) -> bool:
    """Stored before a rule its findings need, and no known issue claims it: not listed as new on a guess (nor confirmed)."""
    return bool(group.stale) and group.known is None and not group.benign


def group_rows(groups: list, bounds, confirmations: dict | None = None) -> list[dict]:
    """The groups as plain data (for --json and scripts); the rounding error in words under `bounds`; what the newest interpreters said."""
    from numfuzz.judge.rounding_error_text import describe

    confirmations = confirmations or {}

    return [
        {
            "group": g.title,
            "signature": g.signature.to_json(),
            "dtypes": sorted(d for d in g.dtypes if d),
            "ops": sorted(g.ops),
            "mechanism": None if g.mechanism is None else g.mechanism.name,
            "count": g.count,
            "bits_lost": None if g.severity is None or math.isinf(g.severity) else g.severity,
            "nonfinite": g.severity is not None and math.isinf(g.severity),
            "cause": g.analysis.cause if g.analysis is not None else "",
            "evidence": list(g.analysis.evidence) if g.analysis is not None else [],
            "rounding_error": g.analysis.rounding_error.to_json() if g.analysis is not None and g.analysis.rounding_error is not None else None,
            "rounding_error_text": describe(g.analysis.rounding_error, bounds) if g.analysis is not None and g.analysis.rounding_error is not None else "",
            "known": None
            if g.known is None
            else {
                "id": g.known.id,
                "title": g.known.title,
                "links": list(g.known.links),
                "status": g.known.status,
                "fixed_in": g.known.fixed_in,
                "kind": g.known.kind,
            },
            "unsupported": g.unsupported,
            "within_rounding": g.benign and g.verdicts == {"within_rounding"},
            "benign": sorted(g.verdicts) if g.benign else [],
            "minimized": g.minimized,
            "not_minimized_because": g.note,
            "smallest": str(g.smallest),
            "stale": g.stale or None,
            "newest": None
            if g.title not in confirmations
            else {
                "state": confirmations[g.title].state.value,
                "text": confirmations[g.title].text(refusal=g.unsupported),
                "answers": [{"on": a.where, "state": a.state.value, "note": a.note} for a in confirmations[g.title].answers],
            },
        }
        for g in groups
    ]


@click.command("corpus")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the groups as JSON.")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also list benign groups: less accurate, yet within the ops' documented error bounds, or where eager is as unstable.",
)
@click.option("--minor", "show_all", is_flag=True, hidden=True)  # the old name of --all
@click.option(
    "--replay",
    "replay_them",
    is_flag=True,
    help="Re-run every finding (and every case that states where it reproduces) here and say which still reproduce. Exit 1 when any is not as its file states.",
)
@click.option(
    "--python",
    "python",
    type=click.Path(path_type=Path),
    help="With --replay: replay under this interpreter (a venv with another torch and numfuzz installed) and say per group: still on torch X, or fixed by X.",
)
@click.option(
    "--no-measure",
    is_flag=True,
    help="Do not run again the findings an older numfuzz judged, or a minimisation stored unanalysed, before listing them (they may list as stale, or by older rules).",
)
@newest_option
@no_confirm_option
@known_option
@bounds_option
@import_option
@device_option
def corpus(
    directory: Path,
    as_json: bool,
    show_all: bool,
    replay_them: bool,
    python: Path | None,
    no_measure: bool,
    newest: tuple[Path, ...],
    no_confirm: bool,
    known_files: tuple[Path, ...],
    bounds_files: tuple[Path, ...],
    imports: tuple[str, ...],
    device: str | None,
) -> None:
    """List the findings under DIRECTORY by root cause: count, bits lost, cause, upstream status, smallest case.

    New groups come first, then those a known upstream issue claims (the shipped list plus --known files).
    With --replay every finding runs again on the installed versions, and so does every other case
    that states where it reproduces (recorded as no finding, or never run); a case stated for another
    device is skipped. Exit 0 when each is as its file states (unstated: still a finding), 1 when any
    is not, 2 on bad input (a case that does not load, a malformed `reproduces` or `upstream` field).

    A finding of a group that would be listed as new, judged by an older numfuzz's rules or minimised and stored
    unanalysed, is run again here first and its case file keeps today's outcome (--no-measure skips it). A target's own refusals are listed
    after the known, with a coverage table of what each target says it does not support.

    With newest interpreters configured (--newest, or $NUMFUZZ_NEWEST), each new group's smallest case is
    replayed there first: a group that does not reproduce is listed as fixed upstream, not as new; one that
    reproduces says where. Refusals are asked too: where the newest still refuse. Answers are kept in
    DIRECTORY/newest.json.
    """
    if not directory.is_dir():
        fail(f"{directory}: no such folder")
    if python is not None and not replay_them:
        fail("--python replays under another interpreter: give --replay with it")
    if python is not None and not python.is_file():
        fail(f"--python {python}: no such interpreter")
    known = load_known_or_fail(known_files)
    bounds = use_bounds_or_fail(bounds_files)
    interpreters = newest_or_fail(newest, no_confirm or replay_them)
    from numfuzz.corpus.grouping import group_corpus, listed

    for spec in imports:
        import_user_code(spec)
    groups, problems = group_corpus(directory, known, bounds)
    if not (replay_them or no_measure) and _measured_again(groups, imports, device, quiet=as_json):
        groups, problems = group_corpus(directory, known, bounds)
    if replay_them and problems:  # a check that skipped a case it cannot read would pass without it
        fail(f"{problems[0]}" + (f" (and {len(problems) - 1} more cases that do not load)" if len(problems) > 1 else ""))
    for problem in problems:
        click.echo(f"numfuzz: skipped {problem}", err=True)
    shown = listed(groups, show_all)
    if replay_them and python is not None:
        return _elsewhere(python, directory, shown, show_all, known_files, bounds_files, imports, device, as_json)
    if replay_them:
        with bounds_in_environment(bounds_files):  # the cases are judged again by the same bounds
            return _replay(directory, shown, imports, device, as_json)
    confirmations = confirm_new([g for g in shown if not _stale(g)], interpreters, directory, child_arguments(bounds_files, imports, device), quiet=as_json)
    if as_json:
        click.echo(json.dumps(group_rows(shown, bounds, confirmations), indent=1))
        return
    _print_groups(directory, shown, len(groups) - len(shown), confirmations, bounds)


def _print_groups(directory: Path, shown: list, hidden: int, confirmations: dict, bounds) -> None:
    """The listing's table: a row per group (and its notes), the totals, then the refusals' coverage table."""
    from numfuzz.judge.rounding_error_text import describe
    from numfuzz.judge.verdicts import severity_text

    note = f" ({hidden} benign group{'s' * (hidden != 1)} hidden, within_rounding, eager_unstable or subgradient: --all lists them)" if hidden else ""
    if not shown:
        click.echo(f"no findings under {directory}{note}")
        return
    width = max(len(g.title) for g in shown)
    status_width = max(len(_status(g, confirmations.get(g.title))) for g in shown)
    click.echo(f"{'count':>5}  {'severity':>10}  {'group (target | op | dtype | cause)':<{width}}  {'status':<{status_width}}  smallest case")
    for g in shown:
        severity = severity_text(g.severity, g.signature.symptom)
        click.echo(f"{g.count:>5}  {severity:>10}  {g.title:<{width}}  {_status(g, confirmations.get(g.title)):<{status_width}}  {g.smallest}")
        if g.note and g.new:
            click.echo(f"{'':>19}not minimised: {g.note}")
        if g.title in confirmations:
            click.echo(f"{'':>19}newest: {confirmations[g.title].text(refusal=g.unsupported)}")
        if g.analysis is not None and g.analysis.rounding_error is not None:
            click.echo(f"{'':>19}{describe(g.analysis.rounding_error, bounds)}")
    stale = sum(1 for g in shown if _stale(g))  # listed, not counted as new
    counts = counts_text([g for g in shown if not _stale(g)], confirmations) + (f", {stale} stale" if stale else "")
    findings = sum(g.count for g in shown)
    click.echo(f"{findings} finding{'s' * (findings != 1)} in {len(shown)} group{'s' * (len(shown) != 1)}: {counts}{note}")
    _refusal_table(shown, confirmations)


def _refusal_table(groups: list, confirmations: dict) -> None:
    """The refusals as a coverage list: target, op, argument, message, and the versions where it still refuses."""
    from numfuzz.corpus.refusals import refusal_rows
    from numfuzz.newest.confirmation import State

    newest = {title: ([a.where for a in c.answers if a.state is State.REPRODUCES], [a.where for a in c.answers if a.state is State.FIXED])
              for title, c in confirmations.items()}  # fmt: skip
    rows = refusal_rows(groups, newest)
    if not rows:
        return
    click.echo(f"\nunsupported: what the targets say they do not support ({len(rows)}), a coverage list")
    header = ("target", "op", "argument", "refuses on", "message")
    cells = [(r.target, r.op, r.argument or "-", "; ".join(r.refuses_on) + "".join(f"; supported on {s}" for s in r.supported_on), r.message) for r in rows]
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(len(header) - 1)]
    for row in [header, *cells]:
        click.echo("  ".join(f"{str(c):<{w}}" for c, w in zip(row, widths)) + f"  {row[-1]}")


def _measured_again(groups: list, imports: tuple[str, ...], device: str | None, quiet: bool) -> bool:
    """The findings of groups that would list as new or stale, judged by older rules or stored unanalysed, run again here (`runner.measure_again`)."""
    from numfuzz.environment import default_device
    from numfuzz.runner.measure_again import measure_again

    paths = [path for g in groups if g.new or _stale(g) for path in g.members.values()]
    done = measure_again(paths, _runner(imports, device or default_device()))
    for line in done.skipped:
        click.echo(f"numfuzz: not measured again: {line}", err=True)
    if done.measured and not quiet:
        click.echo(f"measured again {len(done.measured)} finding(s) judged by older rules or stored unanalysed, in {done.seconds:.0f} s", err=True)
    return bool(done.measured)


def _elsewhere(python: Path, directory: Path, shown: list, show_all: bool, known_files, bounds_files, imports, device, as_json: bool) -> None:
    """Each listed group replayed under `python`: still on its torch, or fixed by it."""
    from numfuzz.corpus.elsewhere import ElsewhereError, replay_elsewhere

    extra = [*(["--all"] if show_all else []), *(x for f in known_files for x in ("--known", str(Path(f).resolve())))]
    extra += child_arguments(bounds_files, imports, device)
    try:
        there = replay_elsewhere(python, directory.resolve(), extra)
    except ElsewhereError as exc:
        fail(str(exc))
    rows = []
    for g in shown:
        found = there.groups.get(g.title)
        status = found.status(there.torch) if found is not None else f"not listed on torch {there.torch}"
        fixed_in = g.known.fixed_in if g.known is not None and g.known.fixed_in else ""
        rows.append({"group": g.title, "status": status, "torch": there.torch, "known_fixed_in": fixed_in or None})
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    click.echo(f"replayed under {python}: torch {there.torch}, thunder {there.thunder}, python {there.python}")
    width = max((len(r["status"]) for r in rows), default=0)
    for r in rows:
        click.echo(f"{r['status']:<{width}}  {r['group']}" + (f"  (known fixed in {r['known_fixed_in']})" if r["known_fixed_in"] else ""))


def _runner(imports: tuple[str, ...], device: str):
    """Run one case here: in this process, or isolated when it killed its process; a string says why it cannot run."""
    from numfuzz.runner.case_runner import run_case
    from numfuzz.targets import TargetError, resolve
    from numfuzz.targets.compile_modes import configured

    def run(case):
        try:
            target = configured(resolve(case.target), case.run)
        except TargetError as exc:
            return f"target {case.target}: {exc}"
        ok, why = target.available()
        if not ok:
            return f"target {case.target} is unavailable here: {why}"
        case = case.with_run(case.run.with_changes(device=device, imports=tuple(recorded_imports(case, imports))))
        with isolated_runner(case, target.name, device, list(case.run.imports), False) as runner:
            return run_case(case, target) if runner is None else runner.evaluate_case(case)

    return run


def _replay(directory: Path, groups: list, imports: tuple[str, ...], device: str | None, as_json: bool) -> None:
    import sys

    from numfuzz.corpus.case import CaseError
    from numfuzz.corpus.grouping import case_paths
    from numfuzz.corpus.replay import GroupReplay, check_statements, other_stated, replay_case, replay_group
    from numfuzz.environment import default_device, provenance

    try:
        check_statements(case_paths(directory))
    except CaseError as exc:
        fail(str(exc))
    device = device or default_device()
    here = provenance(device)
    click.echo(f"replaying on torch {here['torch']}, thunder {here['thunder']}, python {here['python']}, {device} ({here['isa']})", err=as_json)
    run = _runner(imports, device)
    replays = [replay_group(g, run, here) for g in groups]
    rest = other_stated(directory, {p for g in groups for p in g.members.values()})
    if rest:
        replays.append(GroupReplay(None, [replay_case(p, run, here) for p in rest]))
    if as_json:
        rows = [
            {"group": r.title, "reproduced": r.reproduced, "findings": len(r.cases), "as_stated": r.as_stated,
             "cases": [{"path": str(c.path), "recorded": c.recorded, "now": c.now, "expected": c.expected, "as_stated": c.as_stated,
                        "upstream": c.upstream or None, "note": c.note} for c in r.cases]}
            for r in replays
        ]  # fmt: skip
        click.echo(json.dumps(rows, indent=1))
    else:
        for r in replays:
            mark = "as stated" if r.as_stated else "NOT AS STATED"
            click.echo(f"{r.reproduced}/{len(r.cases)} reproduce  {mark:<13}  {r.title}")
            for c in r.cases:
                said = "  ".join(x for x in (f"({c.expectation})" if c.expectation else "", c.upstream, c.note) if x)
                click.echo(f"    {c.now:<15} was {c.recorded:<15} {c.path}" + (f"  {said}" if said else ""))
        surprises = sum(not r.as_stated for r in replays)
        click.echo(f"{len(replays)} groups replayed: {len(replays) - surprises} as stated, {surprises} not")
    sys.exit(0 if all(r.as_stated for r in replays) else 1)
