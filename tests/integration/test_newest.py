"""Confirmation on the newest versions: a campaign's new group replayed under other interpreters, through the
compiler behind its front end where the front end cannot run there, and listed as fixed upstream where it is.

The interpreters are this one under a release name ($NUMFUZZ_TEST_RELEASE, read by tests/fixed_later_target.py):
"fixed" stands for a newer torch whose compiler fixed the bug, "still" for one that did not.
"""

import json
import os
import stat
import sys

import pytest
from helpers import ROOT

TARGETS = str(ROOT / "tests" / "fixed_later_target.py")


def _interpreter(folder, release: str):
    path = folder / f"python-{release}"
    path.write_text(f'#!/bin/sh\nNUMFUZZ_TEST_RELEASE={release} exec "{sys.executable}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """A campaign's corpus with the front end's expm1 group (no confirmation yet)."""
    from click.testing import CliRunner

    from numfuzz.cli import main

    folder = tmp_path_factory.mktemp("newest")
    corpus = folder / "corpus"
    args = ["fuzz", "--import", TARGETS, "--target", "frontend", "--graphs", "6", "--ops", "expm1", "--workers", "1", "--corpus", corpus, "--no-confirm"]
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return folder, corpus


def _listing(cli, corpus, *interpreters, target_file=TARGETS):
    args = ["corpus", corpus, "--json", "--import", target_file, *(x for p in interpreters for x in ("--newest", p))]
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_group_fixed_on_the_newest_is_not_new(cli, found):
    folder, corpus = found
    before = _listing(cli, corpus)
    assert [g["newest"] for g in before] == [None] and before[0]["known"] is None
    rows = _listing(cli, corpus, _interpreter(folder, "fixed"))
    [group] = rows
    assert group["newest"]["state"] == "fixed"
    assert "(through fixedlater)" in group["newest"]["text"]  # the front end does not run there: its compiler did
    text = cli("corpus", corpus, "--import", TARGETS, "--newest", _interpreter(folder, "fixed")).output
    assert "fixed upstream" in text and "0 new, 1 fixed upstream" in text


def test_a_group_still_on_the_newest_says_where(cli, found):
    folder, corpus = found
    [group] = _listing(cli, corpus, _interpreter(folder, "still"), _interpreter(folder, "fixed"))
    assert group["newest"]["state"] == "fixed"  # fixed on one newest interpreter: a maintainer there would not see it
    assert "still on" in group["newest"]["text"]
    [group] = _listing(cli, corpus, _interpreter(folder, "still"))
    assert group["newest"]["state"] == "reproduces"
    assert json.loads((corpus / "newest.json").read_text())["answers"]  # kept: the next listing does not ask again


def test_a_front_end_bug_is_not_confirmed_through_a_compiler_without_it(cli, found, tmp_path):
    """frontendbug's compiler behind it is eager, which has no such bug here either: the newest torch cannot speak for it."""
    from numfuzz.corpus.store import load_case, save_case

    folder, corpus = found
    [group] = _listing(cli, corpus)
    case = load_case(group["smallest"])
    moved = case.with_run(case.run.with_changes(target="frontendbug"))
    moved.extra.pop("signature", None)
    (tmp_path / "findings").mkdir()
    save_case(moved, tmp_path / "findings")
    [group] = _listing(cli, tmp_path, _interpreter(folder, "fixed"))
    assert group["newest"]["state"] == "not run"
    assert "the front end's" in group["newest"]["text"]


def test_a_missing_interpreter_is_one_line(cli, found, tmp_path):
    _, corpus = found
    result = cli("corpus", corpus, "--newest", tmp_path / "no-python")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "no such file" in result.output


def test_the_environment_names_the_interpreters(cli, found, monkeypatch):
    folder, corpus = found
    monkeypatch.setenv("NUMFUZZ_NEWEST", os.pathsep.join([str(_interpreter(folder, "fixed"))]))
    [group] = _listing(cli, corpus)
    assert group["newest"]["state"] == "fixed"
    result = cli("corpus", corpus, "--json", "--import", TARGETS, "--no-confirm")
    assert [g["newest"] for g in json.loads(result.output)] == [None]


def test_the_issue_text_says_where_it_reproduces_on_the_newest(cli, found, tmp_path):
    folder, corpus = found
    [group] = _listing(cli, corpus)
    result = cli("repro", group["smallest"], "--import", TARGETS, "-o", tmp_path, "--newest", _interpreter(folder, "still"))
    assert result.exit_code == 0, result.output
    [issue] = tmp_path.glob("issue_*.md")
    assert "- on the newest: reproduces on " in issue.read_text()
