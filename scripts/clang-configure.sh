#!/usr/bin/env bash
# Configures a clang build of pyptx in DIR (once: an existing build.ninja is
# kept) with the extra CMake options given, for scripts/fuzz.sh and
# scripts/sanitize.sh.   usage: scripts/clang-configure.sh DIR [-DOPTION=...]
set -uo pipefail
cd "$(dirname "$0")/.."
dir=$1; shift
CLANG_BIN=${PYPTX_CLANG_BIN:-/usr/lib/llvm-22/bin}
if [[ ! -x $CLANG_BIN/clang++ ]]; then
  echo "no clang in $CLANG_BIN (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 1
fi
[[ -f $dir/build.ninja ]] && exit 0
nice -n 19 cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CLANG_BIN/clang" -DCMAKE_CXX_COMPILER="$CLANG_BIN/clang++" \
  "$@" >/dev/null
