"""The op table's entries, one module per kind of op; `numfuzz.program.ops` finds every module here and gathers its SPECS."""
