"""Confirmation on the newest versions: a group's smallest case replayed under newer interpreters (a later stage than the
campaign, whose corpus it reads, and than the runner and workers it replays with)."""
