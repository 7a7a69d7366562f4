#!/usr/bin/env bash
# The main job: set up, build, export the example kernel to PTX, and check
# it with ptxas when present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
BIN=${PYPTX_BUILD_DIR:-build}/bin
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

echo "== verify examples/mlir/vector_add.mlir"
"$BIN/pyptx-opt" examples/mlir/vector_add.mlir -o "$OUT/vector_add.mlir"
echo "== export to PTX"
"$BIN/pyptx-translate" --export-ptx examples/mlir/vector_add.mlir -o "$OUT/vector_add.ptx"
cat "$OUT/vector_add.ptx"

PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x "$PTXAS" ]]; then
  "$PTXAS" -arch=sm_90a "$OUT/vector_add.ptx" -o "$OUT/vector_add.cubin"
  echo "== ptxas -arch=sm_90a: ok ($(stat -c %s "$OUT/vector_add.cubin") byte cubin)"
else
  echo "== ptxas not found: PTX not assembled"
fi
