"""Campaigns: the long loop, its journal and stats, warm worker processes, crash isolation."""
