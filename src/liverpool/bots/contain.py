"""Containment of external bot processes: everything a bot starts ends with it, and a host may
cap what it costs.

Domain words: *family* (a bot process and every process descended from it, even those that left
its process group or session with ``setsid``; each carries the bot's *mark*, an environment
variable it inherits, so a helper whose parent has exited is still known), *subreaper* (the
host adopts the orphans of its bots' families instead of the system's init, so a double-forked
helper stays within reach),
*limits* (per-bot CPU seconds and memory, from ``LIVERPOOL_BOT_CPU_SECONDS`` and
``LIVERPOOL_BOT_MEMORY_MB``). Linux reads the family from ``/proc``; elsewhere only the process
group is ended (the bot runs in a session of its own).
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

MARK_ENV = "LIVERPOOL_BOT_FAMILY"
CPU_ENV = "LIVERPOOL_BOT_CPU_SECONDS"
MEMORY_ENV = "LIVERPOOL_BOT_MEMORY_MB"
PROC = Path("/proc")
PR_SET_CHILD_SUBREAPER = 36

# a process is named by its pid and its start time, so a pid the system gave to a new process
# after ours ended is never signalled
Member = tuple[int, int]

_subreaper = False


def become_subreaper() -> None:
    """Adopt orphaned descendants (Linux; once per process, a no-op elsewhere)."""
    global _subreaper
    if _subreaper or not PROC.is_dir():
        return
    _subreaper = True
    with contextlib.suppress(OSError, AttributeError):
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of a process, or None when it is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: read after its last ")"
    fields = text[text.rfind(")") + 2:].split()
    try:
        return int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def family(pid: int) -> set[Member]:
    """The process and all its descendants now (empty when /proc cannot be read)."""
    if not PROC.is_dir():
        return set()
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        info = _stat(int(entry.name))
        if info is None:
            continue
        children.setdefault(info[0], []).append(int(entry.name))
        started[int(entry.name)] = info[1]
    out: set[Member] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        if p in started:
            out.add((p, started[p]))
        todo.extend(children.get(p, ()))
    return out


def new_mark() -> str:
    import secrets
    return secrets.token_hex(8)


def marked(mark: str) -> set[Member]:
    """Every process whose environment carries the bot's mark (Linux; readable as the same
    user or root)."""
    if not PROC.is_dir():
        return set()
    needle = f"{MARK_ENV}={mark}".encode()
    out: set[Member] = set()
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            info = _stat(int(entry.name))
            if info is not None:
                out.add((int(entry.name), info[1]))
    return out


def end_family(members: set[Member]) -> None:
    """SIGKILL every member still running as the same process, and reap those that became
    this host's children (adopted as a subreaper)."""
    for pid, start in members:
        info = _stat(pid)
        if info is None or info[1] != start:
            continue
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    for pid, _ in members:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _env_number(name: str) -> float | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}={text!r}: a number is needed") from None
    if value <= 0:
        raise ValueError(f"{name}={text!r}: must be positive")
    return value


def apply_limits(pid: int) -> None:
    """Cap a just-started bot's CPU time and memory when the host asked for it (inherited by
    what the bot starts afterwards). Set from outside the child, since a function run in the
    child between fork and exec is unsafe in a host with threads."""
    cpu, memory = _env_number(CPU_ENV), _env_number(MEMORY_ENV)
    if cpu is None and memory is None:
        return
    import resource
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if cpu is not None:
            resource.prlimit(pid, resource.RLIMIT_CPU, (int(cpu), int(cpu) + 1))
        if memory is not None:
            size = int(memory * 1024 * 1024)
            resource.prlimit(pid, resource.RLIMIT_AS, (size, size))
