"""Worker processes: the pool that runs them, what runs inside them, and the messages between (torch-free at import)."""
