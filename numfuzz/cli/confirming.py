"""The commands' side of confirming new groups on the newest interpreters (`numfuzz.newest.confirmation`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import click

from numfuzz.cli.failure import fail


def newest_or_fail(newest: Sequence[Path], no_confirm: bool) -> list:
    """The newest interpreters to confirm on (--newest, else $NUMFUZZ_NEWEST; none with --no-confirm), or one line and exit 2."""
    from numfuzz.newest.interpreters import NewestError, describe, newest_pythons

    if no_confirm:
        return []
    try:
        return [describe(p) for p in newest_pythons(newest)]
    except NewestError as exc:
        fail(f"{exc} (--newest or $NUMFUZZ_NEWEST; --no-confirm skips the confirmation)")


def child_arguments(bounds_files: Sequence[Path], imports: Sequence[str], device: str | None) -> list[str]:
    """What the other interpreter needs to run the cases as this one does, paths made absolute."""
    from numfuzz.campaign.config import absolute_imports

    args = [x for f in bounds_files for x in ("--bounds", str(Path(f).resolve()))]
    args += [x for spec in absolute_imports(tuple(imports)) for x in ("--import", spec)]
    return args + (["--device", device] if device else [])


def is_new(group) -> bool:
    """Listed as new before confirmation: a finding no known issue claims, and no refusal."""
    return group.new and group.smallest is not None


def is_asked(group) -> bool:
    """Asked of the newest interpreters: a new group (does it still fail?) or a refusal (does it still refuse?)."""
    return (group.new or group.unsupported) and group.smallest is not None


def confirm_new(groups: Sequence, interpreters: Sequence, root: Path | None, extra: Sequence[str], quiet: bool = False) -> dict:
    """title -> Confirmation for each new group and each refusal (none without interpreters); what failed, on stderr."""
    from numfuzz.corpus.case import CaseError
    from numfuzz.newest.confirmation import asked_about, confirm

    new = [g for g in groups if is_asked(g)]
    if not interpreters or not new:
        return {}
    started = time.monotonic()
    asked, problems = [], []
    for group in new:
        try:
            asked.append(asked_about(group.title, group.smallest, group.signature.symptom))
        except CaseError as exc:
            problems.append(str(exc))
    found, failed = confirm(asked, interpreters, root, extra)
    problems += failed
    for problem in problems:
        click.echo(f"numfuzz: {problem}", err=True)
    if not quiet:
        where = ", ".join(i.label for i in interpreters)
        click.echo(f"confirmed {len(new)} new or unsupported group{'s' * (len(new) != 1)} on {where} in {time.monotonic() - started:.0f} s", err=True)
    return found


def counts_text(groups: Sequence, confirmations: dict) -> str:
    """`2 new, 1 fixed upstream, 1 unconfirmed, 14 known, 4 unsupported, 3 benign`: what a listing's last line counts."""
    from numfuzz.newest.confirmation import State

    states = [confirmations[g.title].state if g.title in confirmations else None for g in groups if is_new(g)]
    new = sum(s in (None, State.REPRODUCES, State.CHANGED) for s in states)
    parts = [f"{new} new"]
    parts += [f"{n} fixed upstream" for n in [states.count(State.FIXED)] if n]
    parts += [f"{n} unconfirmed" for n in [states.count(State.NOT_RUN)] if n]
    parts.append(f"{sum(1 for g in groups if g.known is not None and not g.benign)} known")
    parts += [f"{n} unsupported" for n in [sum(1 for g in groups if g.unsupported)] if n]
    parts += [f"{n} benign" for n in [sum(1 for g in groups if g.benign)] if n]
    return ", ".join(parts)


def confirm_campaign(config, interpreters: Sequence) -> None:
    """After a campaign: its corpus's new groups confirmed on `interpreters`, each with what they said."""
    from numfuzz.corpus.grouping import group_corpus, listed
    from numfuzz.corpus.known import load_known
    from numfuzz.judge.bounds import active_bounds, bound_files_in_force

    with bound_files_in_force(config.bound_files):
        groups, _ = group_corpus(config.corpus, load_known(config.known_files), active_bounds())
        shown = listed(groups)
        confirmations = confirm_new(shown, interpreters, config.corpus, child_arguments(config.bound_files, config.imports, config.device))
    for group in shown:
        if group.title in confirmations:
            click.echo(f"newest: {confirmations[group.title].text(refusal=group.unsupported):<60}  {group.title}")
    click.echo(f"groups: {counts_text(shown, confirmations)} (numfuzz corpus {config.corpus} lists them)")


def confirm_case(case_path: Path, case, interpreters: Sequence, imports: Sequence[str], device: str | None) -> list[str]:
    """Where one case reproduces on the newest interpreters, as the issue text's lines (asked once, kept beside its corpus)."""
    from numfuzz.corpus.case import recorded_signature
    from numfuzz.corpus.grouping import CASE_FOLDERS
    from numfuzz.newest.confirmation import asked_about, confirm

    path = Path(case_path).resolve()
    root = path.parent.parent if path.parent.name in CASE_FOLDERS else path.parent
    asked = asked_about(str(path), path, recorded_signature(case).symptom)
    found, problems = confirm([asked], interpreters, root, child_arguments((), imports, device))
    for problem in problems:
        click.echo(f"numfuzz: {problem}", err=True)
    return [found[str(path)].text()] if str(path) in found else []
