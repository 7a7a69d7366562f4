#!/usr/bin/env bash
# The main job: set up, build, trace a Python example kernel and export the
# MLIR example to PTX (checked with ptxas when present), round-trip an
# nvcc-generated PTX file through the dialect, and on a machine with a GPU
# launch the examples against their NumPy references.
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

echo "== trace examples/hopper/rms_norm.py (the Python DSL) for B=8, N=1024"
python3 examples/hopper/rms_norm.py 8 1024 > "$OUT/rms_norm.ptx"
cat "$OUT/rms_norm.ptx"
if [[ -x "$PTXAS" ]]; then
  "$PTXAS" -arch=sm_90a "$OUT/rms_norm.ptx" -o "$OUT/rms_norm.cubin"
  echo "== ptxas -arch=sm_90a: ok ($(stat -c %s "$OUT/rms_norm.cubin") byte cubin)"
fi

echo "== round trip examples/ptx/saxpy.ptx (nvcc -lineinfo output)"
"$BIN/pyptx-translate" --import-ptx examples/ptx/saxpy.ptx -o "$OUT/saxpy.mlir"
"$BIN/pyptx-opt" "$OUT/saxpy.mlir" -o "$OUT/saxpy.verified.mlir"
"$BIN/pyptx-translate" --export-ptx "$OUT/saxpy.verified.mlir" -o "$OUT/saxpy.ptx"
if cmp -s examples/ptx/saxpy.ptx "$OUT/saxpy.ptx"; then
  echo "== byte-identical ($(stat -c %s "$OUT/saxpy.ptx") bytes)"
else
  diff examples/ptx/saxpy.ptx "$OUT/saxpy.ptx" | head -20
  echo "== round trip differs" >&2
  exit 1
fi
"$BIN/pyptx-translate" --export-ptx --ptx-canonical "$OUT/saxpy.verified.mlir" -o "$OUT/saxpy.canonical.ptx"
if [[ -x "$PTXAS" ]]; then
  "$PTXAS" -arch=sm_90a examples/ptx/saxpy.ptx -o "$OUT/a.cubin"
  "$PTXAS" -arch=sm_90a "$OUT/saxpy.canonical.ptx" -o "$OUT/b.cubin"
  python3 test/corpus/cubin_sections.py "$OUT/a.cubin" "$OUT/b.cubin"
  echo "== canonical export assembles to the same cubin"
fi

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "== GPU found: launch every example (pyptx runtime) and compare with NumPy"
  python3 examples/run_on_gpu.py
else
  echo "== no GPU: examples traced and assembled, not launched"
fi
