#!/usr/bin/env bash
# `pip install .` from the repository root into a scratch virtual environment, then the
# issue's smoke test and the pytest suite against the installed package (not the build tree).
#   pip_install_check.sh <python> <repo root> <scratch dir>
set -euo pipefail
python=$1 root=$2 scratch=$3
rm -rf "$scratch"
"$python" -m venv "$scratch/venv"
"$scratch/venv/bin/python" -m pip install -q --disable-pip-version-check "$root" pytest
cd "$scratch"
"$scratch/venv/bin/python" -c "import axe; print(axe.Layout.parse('S[4096:1]'))"
"$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
