"""This user's own folder in the temporary folder: made where missing, refused where someone else could change it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def private_folder(name: str) -> Path | None:
    """This user's folder `name`-UID in the temporary folder, made where missing; None where someone else could change it."""
    folder = Path(tempfile.gettempdir()) / f"{name}-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        held = folder.stat()
    except OSError:
        return None
    return folder if held.st_uid == os.getuid() and not held.st_mode & 0o022 else None
