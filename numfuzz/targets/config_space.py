"""The compiler configuration space, kept as data (`numfuzz/data/compiler_configs.toml`), and drawing from it.

Each target family names its section (`registry.Family.config_space`). An entry is a named set
of options with a weight; a case draws one entry, or with `COMBINE_CHANCE` two merged, so that
the minimiser has options to shrink away and a finding keeps only those it needs.
"""

from __future__ import annotations

import functools
import random
import tomllib
from dataclasses import dataclass
from importlib import resources

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from numfuzz.run_spec import OptionValue

BUILTIN = "compiler_configs.toml"
COMBINE_CHANCE = 0.3  # of two entries merged, when a case draws options


class ConfigSpaceError(ValueError):
    """A malformed configuration space file; one line."""


@dataclass(frozen=True)
class ConfigEntry:
    name: str
    options: tuple[tuple[str, OptionValue], ...]
    weight: float
    why: str  # what code path it reaches, and what it costs
    torch: str = ""  # a version specifier: drawn only where the installed torch matches ("" everywhere)

    def fits(self, version: str) -> bool:
        """Whether it is drawn with this torch version."""
        if not self.torch:
            return True
        try:
            return Version(version.split("+")[0]) in SpecifierSet(self.torch, prereleases=True)
        except InvalidVersion:
            return True

    @property
    def as_dict(self) -> dict[str, OptionValue]:
        return dict(self.options)


def parse_space(text: str, where: str = BUILTIN) -> dict[str, tuple[ConfigEntry, ...]]:
    """Section name -> its entries (weight 0: kept for the record, never drawn)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigSpaceError(f"{where}: not valid TOML: {exc}") from None
    space: dict[str, tuple[ConfigEntry, ...]] = {}
    for section, entries in data.items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ConfigSpaceError(f"{where}: [[{section}]] must be a list of entries")
        parsed = []
        for e in entries:
            options, weight = e.get("options"), e.get("weight", 1.0)
            if not isinstance(e.get("name"), str) or not isinstance(options, dict) or not options:
                raise ConfigSpaceError(f"{where}: every [[{section}]] entry needs a name and options")
            if any(not isinstance(v, (bool, int, float, str)) for v in options.values()):
                raise ConfigSpaceError(f"{where}: {section} entry {e['name']!r}: option values are bools, numbers or strings")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
                raise ConfigSpaceError(f"{where}: {section} entry {e['name']!r}: weight must be a number >= 0")
            torch = e.get("torch", "")
            try:
                SpecifierSet(str(torch))
            except InvalidSpecifier:
                raise ConfigSpaceError(f"{where}: {section} entry {e['name']!r}: torch is not a version specifier: {torch!r}") from None
            parsed.append(ConfigEntry(e["name"], tuple(sorted(options.items())), float(weight), str(e.get("why", "")), str(torch)))
        space[section] = tuple(parsed)
    return space


_ADDED: dict[str, tuple[ConfigEntry, ...]] = {}  # sections a plugin adds (`add_section`)


@functools.lru_cache(maxsize=1)
def load_space() -> dict[str, tuple[ConfigEntry, ...]]:
    return parse_space(resources.files("numfuzz.data").joinpath(BUILTIN).read_text())


def add_section(name: str, toml_text: str) -> None:
    """A plugin's own section, in the shipped file's form (`[[name]]` entries), for the families it registers."""
    space = parse_space(toml_text, where=f"section {name}")
    _ADDED[name] = space.get(name, ())


def entries_for(section: str, torch_version: str | None = None) -> tuple[ConfigEntry, ...]:
    """The drawable entries of a section (weight > 0, and for `torch_version` where given); none for an unknown or empty section."""
    entries = _ADDED.get(section, load_space().get(section, ()))
    return tuple(e for e in entries if e.weight > 0 and (torch_version is None or e.fits(torch_version)))


def draw_options(entries: tuple[ConfigEntry, ...] | list[ConfigEntry], rng: random.Random) -> dict[str, OptionValue]:
    """One entry's options, or two entries' merged (the later one wins a shared option); {} without entries."""
    if not entries:
        return {}
    weights = [e.weight for e in entries]
    chosen = rng.choices(list(entries), weights)
    if len(entries) > 1 and rng.random() < COMBINE_CHANCE:
        chosen += rng.choices(list(entries), weights)
    return {k: v for e in chosen for k, v in e.options}
