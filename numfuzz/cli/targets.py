"""`numfuzz targets`: every target family, with availability and the reason when unavailable."""

from __future__ import annotations

import click

from numfuzz.cli.options import import_option
from numfuzz.cli.setup import import_user_code


@click.command()
@import_option
def targets(imports: tuple[str, ...]) -> None:
    """List every target family with availability."""
    for spec in imports:
        import_user_code(spec)
    from numfuzz.targets import families, resolve

    for family in families():
        click.echo(f"{family.prefix:<10} {family.summary}")
        for example in family.examples:
            try:
                ok, why = resolve(example).available()
            except Exception as exc:  # a broken plugin must not hide the others
                ok, why = False, f"{type(exc).__name__}: {exc}"
            click.echo(f"    {example:<50} {'available' if ok else 'unavailable: ' + why}")
