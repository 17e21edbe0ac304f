"""CPU time and memory of processes, read from the OS: what the pool watches and the stats report."""

from __future__ import annotations

import resource
import sys
import time


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the C++ compiler runs as one)."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def _proc_status(pid: int | str, key: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def rss_bytes(pid: int | str = "self") -> int | None:
    """Resident memory of a process, or None where /proc cannot tell."""
    return _proc_status(pid, "VmRSS")


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
