"""The README's table of `numfuzz fuzz` options lists every option the command has, and no other."""

import re

from helpers import ROOT

from numfuzz.cli.fuzz import fuzz


def _table() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("### `numfuzz fuzz` options")
    return text[start : text.index("\n#", start + 1)]


def test_every_fuzz_option_is_in_the_readme_table():
    table = _table()
    listed = set(re.findall(r"`(--[a-z0-9-]+)", table)) | set(re.findall(r"/(--[a-z0-9-]+)`", table))
    options = {opt for param in fuzz.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("--")}
    assert options - listed == set(), "options missing from the README's table"
    assert listed - options == set(), "the README's table lists options `fuzz` does not have"
