#!/usr/bin/env bash
# Installs what pyptx's build and tests need. Idempotent: installs only what
# is missing, so a second run takes a second.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libzstd-dev zlib1g-dev libgtest-dev pybind11-dev
  clang-22 libclang-rt-22-dev   # libFuzzer and the sanitizers (fuzz/, scripts/sanitize.sh)
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      SUDO=sudo
    else
      echo "setup: error: need root (or passwordless sudo) to apt-get install:" >&2
      echo "       ${missing[*]}" >&2
      exit 1
    fi
  else
    SUDO=
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get update -qq; then
    echo "setup: error: apt-get update failed (no network or no Debian mirror?)" >&2
    exit 1
  fi
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    echo "setup: error: apt-get install failed for: ${missing[*]}" >&2
    exit 1
  fi
fi

if [[ ! -x /usr/lib/llvm-22/bin/mlir-tblgen ]]; then
  echo "setup: error: /usr/lib/llvm-22/bin/mlir-tblgen is missing after install" >&2
  exit 1
fi

# Python: the module builds against the python3 on PATH, and the pytest
# suite needs pytest and numpy, PyTorch (a CPU build: custom op, fake
# tensors, torch.compile) and jax (CPU: lowering for CUDA) -- pip, into that
# Python, only what is missing. jax is pinned low: the JAX handler is built
# against jaxlib 0.10.2's FFI headers (third_party/xla) and runs under that
# jaxlib and later ones only.
py_missing=()
for mod in pybind11 pytest numpy; do
  python3 -c "import $mod" 2>/dev/null || py_missing+=("$mod")
done
python3 -c "import torch" 2>/dev/null || py_missing+=("torch==2.13.0")
python3 -c "import jax" 2>/dev/null || py_missing+=("jax==0.10.2")
if ((${#py_missing[@]})); then
  echo "setup: pip installing ${py_missing[*]} for $(python3 --version)"
  if ! python3 -m pip install --quiet "${py_missing[@]}"; then
    echo "setup: error: pip install ${py_missing[*]} failed" >&2
    exit 1
  fi
fi

# ptxas is optional: without it, the tests that assemble PTX are reported as
# unsupported by lit rather than passed.
if command -v ptxas >/dev/null || [[ -x /usr/local/cuda/bin/ptxas ]]; then
  echo "setup: ok (ptxas found)"
else
  echo "setup: ok (no ptxas: PTX assembly checks will be skipped)"
fi
