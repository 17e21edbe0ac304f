"""The program under test: IR, dtypes, op table, generator, input values and lowering to torch source."""
