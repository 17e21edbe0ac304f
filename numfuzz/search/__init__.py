"""Searching a compiled graph's inputs for where the target parts from eager: more runs, no more compiles."""
