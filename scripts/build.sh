#!/usr/bin/env bash
# Configures (once) and builds pyptx in build/ (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PYPTX_BUILD_DIR:-build}
if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ >/dev/null
fi
ninja -C "$BUILD_DIR" "$@"
