#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs them.
# System packages (Debian): chromium for the browser tests, postgresql for the storage tests.
# They are installed only when missing and only where we may (root with apt-get); elsewhere the
# tests that need them skip with a reason.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
if ((${#need[@]})) && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${need[*]} (Debian packages) for the tests" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

python3 -m venv .venv
.venv/bin/pip install -q -e '.[test]'
# loadfile: a file's tests stay on one worker, so a browser test file starts chromium once
exec .venv/bin/python -m pytest -n auto --dist loadfile -q "$@"
