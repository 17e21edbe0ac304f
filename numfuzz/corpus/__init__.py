"""The corpus: the case type, its storage as JSON files, grouping findings, known issues."""
