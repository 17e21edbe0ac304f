"""Data files that ship with numfuzz."""
