#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs them.
# System packages (Debian): chromium for the browser tests, postgresql for the storage tests,
# redis-server for the tests of several servers, a C
# compiler and Python's headers for the compiled core (the install compiles the rules core with
# mypyc where it can; the suite then runs on it, and tests/test_cores.py compares it with the
# pure-Python core). They are installed only when missing and only where we may (root with
# apt-get); elsewhere the tests that need them skip with a reason, and the core is pure Python.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v "${CC:-cc}" >/dev/null 2>&1 || need+=(gcc libc6-dev)
python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    || need+=(python3-dev)
if ((${#need[@]})) && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need[*]} (Debian packages) for the tests" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

python3 -m venv .venv
.venv/bin/pip install -q -e '.[test]'
# the layering (pyproject's [tool.importlinter] contracts): an import that runs back up fails here
.venv/bin/lint-imports --no-cache
# loadfile: a file's tests stay on one worker, so a browser test file starts chromium once
exec .venv/bin/python -m pytest -n auto --dist loadfile -q "$@"
