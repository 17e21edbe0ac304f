"""The op table's entries, one module per family of ops; `numfuzz.program.ops` gathers them."""
