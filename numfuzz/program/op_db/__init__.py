"""Upstream's op databases (PyTorch's op_db, Thunder's opinfos) as numfuzz ops: read once into a snapshot, drawn as the table's."""
