"""Where liverpool keeps its files on this machine.

Domain words: *data directory* (``LIVERPOOL_DATA_DIR`` when set, else the user data
directory, ``~/.local/share/liverpool`` on Linux): the terminal's saved games and profile, and
the web server's default SQLite database; *atomic write* (a file is always either its old or
its new whole text, even if the process dies while writing).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

ENV = "LIVERPOOL_DATA_DIR"
GAMES_FOLDER = "games"  # in the data directory: the records of ``liverpool play``


def data_dir() -> Path:
    """The data directory (not made here: its user makes it when it writes)."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return Path(given).expanduser()
    import platformdirs  # (imported when first needed)
    return Path(platformdirs.user_data_dir("liverpool"))


def games_dir(folder: Path | None = None) -> Path:
    """Where ``liverpool play`` saves a game's record unless ``--save`` is given
    (``folder``: the data directory, by default ``data_dir()``)."""
    return (folder or data_dir()) / GAMES_FOLDER


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a temporary file beside it, synced, then moved
    over it), making its folder if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
