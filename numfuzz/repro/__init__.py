"""Upstream-ready repros: a standalone script and an issue text in Markdown."""
