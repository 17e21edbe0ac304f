"""A crash's fingerprint: its exception's first line with what differs from one program to the next taken out.

Two crashes with one fingerprint are one cause: `prims.trunc` without a gradient transform is
the same missing rule whatever the temporaries are called and whatever the shapes. Kept: the
exception's class and the words and names of its message. Taken out: a Thunder trace's comment
(`# t9: "cpu f32[81]"`), quoted and bracketed shapes, addresses, paths with line numbers,
numbered temporaries (`t12`, `buf3`, `tmp7`, `x0`, `primals_2`) and other numbers.

A C++ compile error keeps its first diagnostic, the names it quotes taken out.

A metadata finding (`numfuzz.judge.metadata`) has one fingerprint per difference it lists: the op
and what differs, without the output's place or the strides' values and rank (`exp: strides (#)
where eager gives (#)`), so a transposed output of `exp` is one finding at any size and rank.
Its kind (`metadata_kind`) is the fingerprint without the op: what the minimiser keeps.
"""

from __future__ import annotations

import re

MAX_LENGTH = 160
# A C++ compile error's first diagnostic (`execute.one_line` adds it where Inductor compiled in-process, as workers do)
# says what is wrong; the names it quotes are the kernel's own (`at_BFloat16_tmp_acc0_vec`): the kind is kept, not them.
CPP_ERROR = "C++ compile error:"
_QUOTED = re.compile(r"[\u2018'`][^\u2019'`]*[\u2019'`]")
_RULES = (
    # Thunder's interpreter names what it traced (a program's function, a model or its training step): one cause whatever
    (re.compile(r" while tracing .*$"), ""),
    (re.compile(r"\s+#\s.*$"), ""),  # a trace line's trailing comment: shapes and devices of the temporaries
    (re.compile(r"0x[0-9a-fA-F]+"), "0x#"),
    (re.compile(r"(/[\w.+-]+)+\.py(:\d+)?"), "FILE"),
    (re.compile(r"\[[^\[\]]*\d[^\[\]]*\]"), "[#]"),  # shapes and sizes
    (re.compile(r"\b(t|x|tmp|buf|arg|primals_|tangents_|getitem_?|i|s|u)\d+\b"), r"\1#"),
    (re.compile(r"(?<![\w#])[-+]?\d+(\.\d+)?([eE][-+]?\d+)?\b"), "#"),
    (re.compile(r"\s+"), " "),
)


_METADATA_RULES = (
    (re.compile(r"^outputs? [\d and]+\((.*?)\): "), r"\1: "),  # "output 0 (exp): " -> "exp: "
    (re.compile(r"\((-?\d+(, -?\d+)*,?)?\)"), "(#)"),  # a stride tuple of any rank
)


def metadata_fingerprints(detail: str) -> list[str]:
    """The fingerprint of each difference a metadata finding's detail lists (`judge.metadata`), in order."""
    found = []
    for part in detail.strip().splitlines()[0].split("; ") if detail.strip() else []:
        for pattern, replacement in _METADATA_RULES:
            part = pattern.sub(replacement, part)
        found.append(crash_fingerprint(part))
    return found


def metadata_kind(fingerprint: str) -> str:
    """A metadata fingerprint's kind of difference, without the op it names: `strides (#) where eager gives (#)`."""
    return fingerprint.partition(": ")[2]


def crash_fingerprint(detail: str) -> str:
    """The normalised first line of a crash's detail (`prepare raised` dropped); "" where there is none."""
    line = detail.removeprefix("prepare raised ").strip().splitlines()[0] if detail.strip() else ""
    if CPP_ERROR in line:
        head, _, diagnostic = line.partition(CPP_ERROR)
        line = head + CPP_ERROR + _QUOTED.sub("'#'", diagnostic)
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    return line.strip()[:MAX_LENGTH]
