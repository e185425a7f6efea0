#!/usr/bin/env bash
# Proves the Binder environment of the course without Docker.
#
# What Binder (repo2docker) does with this repository, done here in a fresh virtual
# environment on a copy of the work tree:
#   1. pip install -r binder/requirements.txt (repo2docker brings JupyterLab itself; here we add
#      jupyterlab, and nbval + pytest to run the lessons);
#   2. run binder/postBuild from the repository root (it installs this repository);
#   3. check: pip check, the installed quivira is the one imported, the widget lab extensions
#      (@jupyter-widgets/jupyterlab-manager, jupyter-matplotlib from ipympl) are listed;
#   4. execute every lesson notebooks/NN_*.ipynb with nbval in that environment (scratch
#      notebooks a user adds are not lessons and are left out).
# Then, in a second throw-away environment, `jupyter-repo2docker --no-build --debug` prints the
# Dockerfile Binder would build (no Docker daemon is needed for that), and we check that it uses
# binder/requirements.txt, binder/postBuild and Python from binder/runtime.txt.
#
# Usage (from anywhere):  bash binder/check.sh
#   PYTHON=python3.11     interpreter for the virtual environments (default: python3)
#   KEEP=1                keep the temporary directory (printed at the start)
#   SKIP_REPO2DOCKER=1    skip step 5 (e.g. where jupyter-repo2docker cannot be installed)
# Exits non-zero on the first failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/quivira-binder-check.XXXXXX")
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then
        echo "kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
echo "binder check in $work"

fail() {
    echo "error: $*" >&2
    exit 1
}

echo "== binder files"
for f in requirements.txt postBuild runtime.txt; do
    [ -f "$repo/binder/$f" ] || fail "binder/$f is missing"
done
[ -x "$repo/binder/postBuild" ] || echo "note: binder/postBuild is not executable (repo2docker chmods it)"
# repo2docker provides JupyterLab, the notebook server and jupyter_server; pinning them here
# would fight with its own environment.
if grep -Eiq '^[[:space:]]*(jupyterlab|notebook|jupyter[-_]server)[[:space:]]*([=<>!~]|$)' \
        "$repo/binder/requirements.txt"; then
    fail "binder/requirements.txt must not pin jupyterlab, notebook or jupyter_server"
fi
runtime=$(tr -d '[:space:]' < "$repo/binder/runtime.txt")
want=${runtime#python-}
have=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
echo "binder/runtime.txt: $runtime; $python here is Python $have"
[ "$have" = "$want" ] || echo "warning: binder uses Python $want, this check runs Python $have" >&2

echo "== copy of the work tree (what a commit would hold: tracked and new, not ignored files)"
src="$work/src"
mkdir -p "$src"
if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$repo" && git ls-files -co --exclude-standard -z \
        | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf -) | tar -xf - -C "$src"
else
    (cd "$repo" && tar --exclude=.git --exclude=.ci-venv --exclude=.venv -cf - .) \
        | tar -xf - -C "$src"
fi
echo "$(find "$src" -type f | wc -l) files"

# Keep Jupyter, IPython and matplotlib away from the user's own configuration.
export JUPYTER_CONFIG_DIR="$work/home/jupyter-config"
export JUPYTER_DATA_DIR="$work/home/jupyter-data"
export JUPYTER_RUNTIME_DIR="$work/home/jupyter-runtime"
export IPYTHONDIR="$work/home/ipython"
export MPLCONFIGDIR="$work/home/matplotlib"
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH

echo "== virtual environment from binder/requirements.txt (+ jupyterlab, nbval, pytest)"
"$python" -m venv "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -r "$src/binder/requirements.txt" jupyterlab nbval pytest \
    pytest-timeout

echo "== binder/postBuild (from the repository root)"
(cd "$src" && bash ./binder/postBuild)

echo "== pip check"
python -m pip check

echo "== the installed packages are the ones imported"
(cd "$work" && python - <<'EOF'
import os
import sys
from importlib.metadata import version

import quivira
import quivira_widgets

for mod in (quivira, quivira_widgets):
    where = os.path.realpath(mod.__file__)
    assert where.startswith(os.path.realpath(sys.prefix)), f"{mod.__name__} from {where}"
    print(f"{mod.__name__} {mod.__version__} from {os.path.dirname(where)}")
assert version("quivira") == quivira.__version__
EOF
)
python -m pip list --format=freeze | grep -Ei '^(heyoka|numpy|ipywidgets|matplotlib|ipympl|scipy|sympy|jupyterlab|nbval|pytest)=='

echo "== JupyterLab extensions"
extensions=$(jupyter labextension list 2>&1)
echo "$extensions"
for ext in "@jupyter-widgets/jupyterlab-manager" "jupyter-matplotlib"; do
    grep -q -- "$ext .*enabled.*OK" <<<"$extensions" \
        || fail "lab extension $ext is not listed as enabled and OK"
done
grep -q "@jupyterlab/apputils-extension:announcements" <<<"$extensions" \
    || fail "postBuild did not disable the announcements plugin"

echo "== every lesson, with nbval"
shopt -s nullglob
lessons=("$src"/notebooks/[0-9][0-9]_*.ipynb)
[ "${#lessons[@]}" -gt 0 ] || fail "no notebooks in notebooks/"
echo "${#lessons[@]} notebooks"
(cd "$src" && python -m pytest --nbval-lax --nbval-current-env -p no:cacheprovider notebooks)

if [ "${SKIP_REPO2DOCKER:-0}" = 1 ]; then
    echo "== repo2docker: skipped (SKIP_REPO2DOCKER=1)"
else
    echo "== repo2docker --no-build: the Dockerfile Binder would build"
    deactivate
    "$python" -m venv "$work/r2d-venv"
    "$work/r2d-venv/bin/python" -m pip install --quiet jupyter-repo2docker
    "$work/r2d-venv/bin/jupyter-repo2docker" --version
    # --no-build prints the Dockerfile (with --debug) and talks to no Docker daemon. The user id
    # and name are Binder's (repo2docker would otherwise take the current user's, root here).
    (cd "$src" && "$work/r2d-venv/bin/jupyter-repo2docker" --no-build --debug \
        --user-id 1000 --user-name jovyan .) > "$work/Dockerfile" 2> "$work/repo2docker.log"
    cat "$work/repo2docker.log"
    dockerfile="$work/Dockerfile"
    check_df() {
        grep -Eq -- "$1" "$dockerfile" || fail "the repo2docker Dockerfile does not $2"
        echo "ok: the Dockerfile does $2"
    }
    check_df 'COPY .*src/binder/requirements\.txt' "copy binder/requirements.txt"
    check_df 'pip install .*-r "?binder/requirements\.txt' "install binder/requirements.txt"
    check_df 'COPY .*src/ ' "copy the repository"
    # postBuild's `pip install .` builds in the repository, so the user must own it
    check_df 'COPY --chown=1000:1000 src/ ' "give the copied repository to the notebook user"
    check_df '^RUN \./binder/postBuild' "run binder/postBuild"
    check_df '^USER \$\{NB_USER\}' "run as the notebook user"
    grep -q "python=$want" "$work/repo2docker.log" \
        || fail "repo2docker does not build Python $want (binder/runtime.txt)"
    echo "ok: repo2docker builds Python $want"
    # postBuild runs after the repository is copied and after requirements.txt is installed
    req_line=$(grep -n 'binder/requirements\.txt"' "$dockerfile" | head -1 | cut -d: -f1)
    copy_line=$(grep -n 'COPY .*src/ ' "$dockerfile" | head -1 | cut -d: -f1)
    post_line=$(grep -n '^RUN \./binder/postBuild' "$dockerfile" | head -1 | cut -d: -f1)
    [ "$req_line" -lt "$post_line" ] && [ "$copy_line" -lt "$post_line" ] \
        || fail "postBuild does not run after requirements.txt and the copy of the repository"
    echo "ok: postBuild runs after the requirements and the copy of the repository"
fi

echo "== binder check passed"
