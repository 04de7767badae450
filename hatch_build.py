"""Build hook: compiles the rules core and the playout policy with mypyc from the same source,
when this machine can (a C compiler and Python's C headers); otherwise the install is pure
Python. Installing never fails for lack of a compiler: any failure of the compiled build is
reported and the pure-Python core is installed instead.

What it writes, beside the compiled extension modules, is a manifest
(``liverpool/_compiled.json``): the modules compiled with a hash of the source each was built
from, or why there is no compiled core. ``liverpool.compiled`` reads it at import and runs the
compiled core only when every compiled module matches its source (an editable install whose
source was edited since runs pure Python until it is installed again).

``LIVERPOOL_CORE=python`` at install time skips the compiled build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The compiled core: everything a game, a random playout or a bot's playout runs through.
CORE_MODULES = (
    "cards", "rules", "melds", "solver", "actions",
    "engine/fields", "engine/state", "engine/view", "engine/turns", "engine/calls", "engine/play",
    "engine/draw", "engine/events", "engine/game",
    "bots/base", "bots/heuristics", "bots/basic", "bots/policy", "bots/worlds", "bots/belief",
    "bots/learned",
    "bots/race", "bots/expert",
    "rl/codec", "rl/features",  # the learning interfaces: spelling actions, observation numbers
)
GROUP = "liverpool_core"  # name of the shared library holding the compiled code
MANIFEST = "liverpool/_compiled.json"


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def why_not_compilable() -> str | None:
    """Why this machine cannot build the compiled core (None: it can try)."""
    if os.environ.get("LIVERPOOL_CORE", "").strip().lower() == "python":
        return "LIVERPOOL_CORE=python was set when it was installed"
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    if not cc or shutil.which(cc[0]) is None:
        return f"no C compiler ({cc[0] if cc else 'cc'}) when it was installed"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return "Python's C headers (Python.h) were missing when it was installed"
    return None


def compile_core(root: Path, out: Path, work: Path) -> list[Path]:
    """Compile ``CORE_MODULES`` into ``out`` (package-relative layout); the built files."""
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    paths = [f"src/liverpool/{m}.py" for m in CORE_MODULES]
    cwd = os.getcwd()
    os.chdir(root)  # mypy reads the project's configuration and finds the package from here
    try:
        # modules outside the core (the learning interfaces' NumPy glue, reached through
        # imports inside functions) need not type-check where their optional dependencies
        # are not installed yet: followed silently
        extensions = mypycify([f"--cache-dir={work / 'mypy-cache'}", "--follow-imports=silent",
                               *paths], opt_level="3",
                              group_name=GROUP, target_dir=str(work / "c"))
        dist = Distribution({"ext_modules": extensions})
        command = build_ext(dist)
        command.build_lib = str(out)
        command.build_temp = str(work / "temp")
        command.parallel = os.cpu_count() or 1
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(cwd)
    return sorted(p for p in out.rglob("*") if p.is_file())


class CompiledCoreHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"
    _temps: list[Path]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self._temps = []
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        src = root / "src"
        editable = version == "editable"
        for stale in (*src.glob(f"{GROUP}__mypyc*"), *src.glob("liverpool/**/*.so"),
                      src / MANIFEST):
            if editable:
                stale.unlink(missing_ok=True)  # an earlier editable build's, rebuilt below
        manifest: dict[str, Any] = {"core": "python"}
        why = why_not_compilable()
        built: list[tuple[Path, str]] = []
        if why is None:
            out = Path(tempfile.mkdtemp(prefix="liverpool-core-"))
            self._temps.append(out)
            try:
                files = compile_core(root, out / "lib", out / "work")
                built = [(f, f.relative_to(out / "lib").as_posix()) for f in files]
                import mypy.version

                manifest = {
                    "core": "compiled",
                    "compiler": f"mypyc {mypy.version.__version__}",
                    "modules": {
                        "liverpool." + m.replace("/", "."):
                            source_hash(src / "liverpool" / f"{m}.py") for m in CORE_MODULES},
                }
            # a failed compiled build must never fail the install (mypyc exits on type errors)
            except (Exception, SystemExit) as e:
                why = f"the compiled build failed when it was installed ({type(e).__name__}: " \
                      f"{str(e)[:300]})"
                built = []
        if why is not None:
            manifest["why"] = why
            print(f"liverpool: installing the pure-Python core: {why}", file=sys.stderr)
        manifest_text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        if editable:
            # an editable install imports the package from src/: the compiled files go there
            for path, rel in built:
                shutil.copy2(path, src / rel)
            (src / MANIFEST).write_text(manifest_text)
        else:
            staging = Path(tempfile.mkdtemp(prefix="liverpool-manifest-"))
            self._temps.append(staging)
            staged = staging / "_compiled.json"
            staged.write_text(manifest_text)
            build_data["force_include"][str(staged)] = MANIFEST
            for path, rel in built:
                build_data["force_include"][str(path)] = rel
        if built:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        for temp in getattr(self, "_temps", []):
            shutil.rmtree(temp, ignore_errors=True)
