#!/usr/bin/env bash
# The venv of modern DLPack peers that the tests embed and spawn (test/peers.test.js,
# test/python-worker.test.js; docs/development.md "Peers"): every package of
# scripts/peers-requirements.txt, pinned, installed into
# ${DLPACK_PEERS_VENV:-$HOME/.cache/dlpack-ci/peers-venv}.
#
#   bash scripts/peers-venv.sh            make it, or leave it as it is when it is up to date
#   bash scripts/peers-venv.sh --force    make it anew
#
# Up to date means its stamp file names the same requirements and interpreter:
# a second run costs a second. The interpreter is DLPACK_PEERS_PYTHON, else
# python3.11 on PATH; it must have a shared libpython (the tests embed it in Node:
# Py_ENABLE_SHARED). Needs PyPI (pip's own configuration: a local wheel directory
# through find-links, PIP_EXTRA_INDEX_URL for PyTorch's CPU index elsewhere).
# Not shipped in the npm package (package.json "files").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

force=0
for arg in "$@"; do
  case $arg in
    --force) force=1 ;;
    *) echo "usage: scripts/peers-venv.sh [--force]" >&2; exit 2 ;;
  esac
done

venv=${DLPACK_PEERS_VENV:-$HOME/.cache/dlpack-ci/peers-venv}
requirements=scripts/peers-requirements.txt
base=${DLPACK_PEERS_PYTHON:-$(command -v python3.11 || true)}
[[ -n $base ]] || { echo "peers-venv: no python3.11 on PATH; name one with DLPACK_PEERS_PYTHON" >&2; exit 1; }
# The real interpreter behind a shim (pyenv), and whether it can be embedded.
read -r real shared < <("$base" -c 'import sys, sysconfig; print(sys.executable, sysconfig.get_config_var("Py_ENABLE_SHARED") or 0)')
[[ $shared == 1 ]] ||
  { echo "peers-venv: $real has no shared libpython (Py_ENABLE_SHARED=0); the tests embed it" >&2; exit 1; }

stamp="$venv/.dlpack-peers"
want="$(sha256sum "$requirements" | cut -d' ' -f1) $real $("$real" -c 'import sys; print(sys.version.split()[0])')"
if [[ $force == 0 && -x $venv/bin/python && -f $stamp && $(cat "$stamp") == "$want" ]]; then
  echo "peers-venv: $venv is up to date ($want)"
  exit 0
fi

echo "peers-venv: making $venv with $real"
rm -rf "$venv"
"$real" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --progress-bar off \
  -r "$requirements"
# What was pinned is what is there; what pip pulled in unpinned is named (pin it).
"$venv/bin/python" - "$requirements" <<'PY'
import importlib.metadata as md, re, sys
key = lambda name: re.sub(r'[-_.]+', '-', name.split('[')[0].strip()).lower()
pinned = {}
for line in open(sys.argv[1]):
    line = line.split('#')[0].strip()
    if line:
        name, version = line.split('==')
        pinned[key(name)] = version.strip()
have = {key(d.metadata['Name']): d.version for d in md.distributions()}
have.pop('pip', None)
wrong = [f'{n}: pinned {v}, installed {have.get(n)}' for n, v in pinned.items() if have.get(n) != v]
if wrong:
    sys.exit('peers-venv: the venv is not what the requirements pin:\n  ' + '\n  '.join(wrong))
extra = sorted(set(have) - set(pinned))
if extra:
    print('peers-venv: installed but not pinned: ' + ', '.join(f'{n}=={have[n]}' for n in extra))
PY
"$venv/bin/python" -c '
import numpy, torch, jax, paddle
print("peers-venv: numpy", numpy.__version__, "torch", torch.__version__, "jax", jax.__version__,
      "paddle", paddle.__version__)' 2>&1 | grep '^peers-venv:'
printf '%s\n' "$want" >"$stamp"
