#!/usr/bin/env bash
# `pip install .` from the repository root into a scratch virtual environment, then checks the
# installed package (not the build tree): the module, the `axe` command beside it, the type
# stubs with py.typed, the pytest suite, and that the build left the source tree as it was.
#   pip_install_check.sh <python> <repo root> <scratch dir>
set -euo pipefail
python=$1 root=$2 scratch=$3
rm -rf "$scratch"
"$python" -m venv "$scratch/venv"
before=""
if git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  before=$(git -C "$root" status --porcelain --ignored=matching --untracked-files=all)
fi
CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
  "$scratch/venv/bin/python" -m pip install -q --disable-pip-version-check "$root" pytest
if git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  after=$(git -C "$root" status --porcelain --ignored=matching --untracked-files=all)
  if [[ "$before" != "$after" ]]; then
    echo "pip install wrote into the source tree:" >&2
    diff <(echo "$before") <(echo "$after") >&2 || true
    exit 1
  fi
fi
cd "$scratch"
"$scratch/venv/bin/python" -c "import axe; print(axe.Layout.parse('S[4096:1]'))"
test "$("$scratch/venv/bin/axe" layout canon 'S[(8,8,8,4,2):(512,64,8,2,1)]')" = "S[4096:1]"
package=$("$scratch/venv/bin/python" -c "import axe, os; print(os.path.dirname(axe.__file__))")
for f in py.typed _axe/__init__.pyi _axe/xla.pyi _axe/sharding.pyi _axe/ir.pyi _axe/jit.pyi; do
  test -f "$package/$f" || { echo "the installed package lacks $f" >&2; exit 1; }
done
"$scratch/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests"
