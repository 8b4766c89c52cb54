#!/usr/bin/env bash
# Creates (or reuses) the project's Python venv with the real clients the tests drive:
# cqlsh 6.2 and the DataStax Python driver, pinned in scripts/python-requirements.txt.
# Prints the venv directory on stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${PROJECT_VENV:-$root/.venv}"
req="$root/scripts/python-requirements.txt"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$req" | cut -d' ' -f1)"
# Tests run in parallel: one installs while the others wait for it.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python="${PYTHON:-python3}"
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" > "$stamp"
fi
echo "$venv"
