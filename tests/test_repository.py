"""The repository stands alone: no tracked file names an absolute path to a home, work or
temporary directory of some machine (a fresh clone elsewhere would not have it)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# a home, work or temporary directory as a path's start (not inside a longer word or a URL path
# such as "/api/tables/...")
OUTSIDE = re.compile(r"(?<![\w.~-])/(?:home|root|work|tmp|var/tmp|Users|farm|private/tmp)/\S")
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".woff", ".woff2"}


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / name for name in out.decode().split("\0") if name]


def outside_paths(text: str) -> list[str]:
    return [m.group(0) for m in OUTSIDE.finditer(text)]


def test_the_pattern_finds_what_it_must_and_nothing_else() -> None:
    root = "/"  # the examples are built, so this file names no such path itself
    assert outside_paths(f'LIVERPOOL = "{root}work/main/.venv/bin/liverpool"')
    assert outside_paths(f"see {root}home/ann/liverpool/records and {root}tmp/x.json")
    assert outside_paths(f"cd {root}root/.cache/pip")
    assert not outside_paths("GET /api/tables/{table}/record and https://example.org/home/x")
    assert not outside_paths("tests/work/thing and ./tmp/file and ~/tmp/file")


def test_no_tracked_file_names_a_path_outside_the_repository() -> None:
    found = []
    for path in tracked_files():
        if path.suffix.lower() in BINARY_SUFFIXES or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            for hit in outside_paths(line):
                found.append(f"{path.relative_to(ROOT)}:{lineno}: {hit}")
    assert not found, "paths outside the repository:\n" + "\n".join(found)
