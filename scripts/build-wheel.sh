#!/usr/bin/env bash
# Builds the pyptx wheel for one CPython (default: python3; e.g.
# `scripts/build-wheel.sh 3.12` uses pyenv's 3.12, the GPU machine's) into
# .whl/. The wheel links MLIR statically and installs without LLVM; it is
# tagged linux_x86_64 and needs this machine's glibc. The manylinux wheels
# that install anywhere: scripts/build-wheels.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
PY=python3
if [[ $# -ge 1 ]]; then
  PY=$(ls -d "$HOME"/.pyenv/versions/"$1"*/bin/python 2>/dev/null | tail -1)
  [[ -x $PY ]] || { echo "no CPython $1 under ~/.pyenv/versions" >&2; exit 1; }
fi
echo "building the wheel with $($PY --version) ..."
$PY -m pip wheel --no-deps -w .whl . 2>&1 | tail -3
ls -la .whl/
