"""Which core runs: the *compiled* core (the rules core and the playout policy, built with mypyc
from this same source when the package was installed on a machine with a C compiler) or the
*pure-Python* core (the same modules, interpreted).

Domain words: *manifest* (``_compiled.json``, written by the install: each compiled module with a
hash of the source it was built from, or why there is no compiled core), *stale* (a compiled
module whose source has changed since: an editable install that was edited runs pure Python
until it is installed again, never a mix), ``LIVERPOOL_CORE`` (``python``: run pure Python even
where the compiled core is installed; ``compiled``: refuse to start without it).

``select()`` runs once, from ``liverpool/__init__.py``, before any core module is imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ENV = "LIVERPOOL_CORE"
_HERE = Path(__file__).resolve().parent
_MANIFEST = _HERE / "_compiled.json"

core = "python"  # "compiled" or "python", set by select()
reason = "not selected yet"  # why this core runs, in a reader's words
compiler = ""  # e.g. "mypyc 1.18.2" for the compiled core
modules: tuple[str, ...] = ()  # the core's modules ("liverpool.engine.game", ...)


class CoreUnavailable(ImportError):
    """``LIVERPOOL_CORE=compiled`` where the compiled core cannot run."""


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Imports the named modules from their ``.py`` files even where a compiled extension
    module of the same name sits beside them (the import system would prefer the extension)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        leaf = fullname.rpartition(".")[2] + ".py"
        for entry in path or sys.path:
            candidate = os.path.join(entry, leaf)
            if os.path.isfile(candidate):
                return importlib.util.spec_from_file_location(fullname, candidate)
        return None


def _read_manifest() -> dict[str, object] | None:
    try:
        data = json.loads(_MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _stale(names: Sequence[str], hashes: dict[str, str]) -> str | None:
    """The first compiled module that does not match its source or is missing, if any."""
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    for name in names:
        rel = Path(*name.split(".")[1:])
        source = _HERE / rel.with_suffix(".py")
        try:
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
        except OSError:
            return name
        if digest != hashes.get(name):
            return name
        if not any((_HERE / rel.parent / (rel.name + s)).is_file() for s in suffixes):
            return name
    return None


def select() -> None:
    """Decide the core for this process, before any of its modules is imported."""
    global core, reason, compiler, modules
    wanted = os.environ.get(ENV, "").strip().lower()
    if wanted not in ("", "python", "compiled"):
        raise CoreUnavailable(f"{ENV} must be 'python' or 'compiled' (or unset), not "
                              f"{wanted[:40]!r}")
    manifest = _read_manifest()
    listed = manifest.get("modules") if manifest else None
    hashes = {str(k): str(v) for k, v in listed.items()} if isinstance(listed, dict) else {}
    modules = tuple(sorted(hashes))
    if manifest is None:
        why = "installed without the compiled build"
    elif manifest.get("core") != "compiled" or not hashes:
        why = str(manifest.get("why") or "installed without the compiled core")
    elif (stale := _stale(modules, hashes)) is not None:
        why = f"the compiled core is out of date ({stale} changed since it was built: " \
              f"install again to rebuild it)"
    elif wanted == "python":
        why = f"{ENV}=python"
    else:
        core, compiler = "compiled", str(manifest.get("compiler") or "mypyc")
        reason = f"built with {compiler}"
        return
    if wanted == "compiled":
        raise CoreUnavailable(f"{ENV}=compiled, but the compiled core cannot run: {why}")
    core, reason = "python", why
    if modules:  # compiled files are present but must not be used: import the sources
        sys.meta_path.insert(0, _SourceFirst(frozenset(modules)))


def describe() -> str:
    """One line for ``--version`` and the benchmarks: which core runs and why."""
    if core == "compiled":
        return f"compiled ({compiler}, {len(modules)} modules)"
    return f"pure Python ({reason})"
