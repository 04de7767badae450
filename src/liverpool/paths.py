"""Where liverpool keeps its files on this machine.

Domain words: *data directory* (``LIVERPOOL_DATA_DIR`` when set, else the user data directory,
``~/.local/share/liverpool`` on Linux): the terminal's saved games and profile, and the web
server's default SQLite database.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "LIVERPOOL_DATA_DIR"


def data_dir() -> Path:
    """The data directory (not made here: its user makes it when it writes)."""
    given = os.environ.get(ENV, "").strip()
    if given:
        return Path(given).expanduser()
    import platformdirs  # (imported when first needed)
    return Path(platformdirs.user_data_dir("liverpool"))
