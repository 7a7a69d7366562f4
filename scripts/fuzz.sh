#!/usr/bin/env bash
# Coverage-guided fuzzing of the importer, the exporter and the builder with
# libFuzzer, under ASan, UBSan and LeakSanitizer (fuzz/README.md).
#
#   scripts/fuzz.sh --ci                   CI's short run: the regressions,
#                                          then 15 s per target (~50 s)
#   scripts/fuzz.sh --runs N [TARGET...]   N executions per target
#   scripts/fuzz.sh --time S [TARGET...]   S seconds per target
#
# TARGETs: import canonical builder (default: all). Targets run one after
# another, one process (niced: the machine is shared). Each starts from its
# corpus in build-fuzz/corpus/TARGET, seeded from ../shared/corpus/pyptx,
# test/corpus/generated and the lit suites' .ptx files (files up to
# --max-len bytes), and replays fuzz/regressions/TARGET first. A crash, hang
# (an input over 25 s), leak or out-of-memory is copied to
# fuzz/regressions/TARGET/ -- write its lit case under test/Fuzz/. The last
# lines give each target's executions and the total; the exit status is 1 if
# anything was found or a regression fails.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PYPTX_FUZZ_BUILD_DIR:-build-fuzz}
CLANG_BIN=${PYPTX_CLANG_BIN:-/usr/lib/llvm-22/bin}

mode=time; amount=60; max_len=1024; targets=()
while (($#)); do
  case $1 in
    --ci) mode=time; amount=15 ;;
    --runs) mode=runs; amount=$2; shift ;;
    --time) mode=time; amount=$2; shift ;;
    --max-len) max_len=$2; shift ;;
    import|canonical|builder) targets+=("$1") ;;
    *) echo "usage: scripts/fuzz.sh [--ci | --runs N | --time S] [--max-len B] [import canonical builder]" >&2
       exit 2 ;;
  esac
  shift
done
((${#targets[@]})) || targets=(import canonical builder)

if [[ ! -x $CLANG_BIN/clang++ ]]; then
  echo "fuzz: no clang in $CLANG_BIN (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 1
fi
if [[ ! -f $BUILD_DIR/build.ninja ]]; then
  nice -n 19 cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$CLANG_BIN/clang" -DCMAKE_CXX_COMPILER="$CLANG_BIN/clang++" \
    -DPYPTX_ENABLE_FUZZ=ON -DPYPTX_BUILD_PYTHON=OFF -DPYPTX_BUILD_TESTS=OFF >/dev/null || exit 1
fi
# shellcheck disable=SC2046
nice -n 19 ninja -C "$BUILD_DIR" $(printf 'pyptx-%s-fuzzer ' "${targets[@]}") >/dev/null ||
  { echo "fuzz: the build failed: ninja -C $BUILD_DIR" >&2; exit 1; }

# Seeds: PTX files of the corpora and of the lit suites, up to max_len.
seeds=$BUILD_DIR/seeds
rm -rf "$seeds"; mkdir -p "$seeds"
find ../shared/corpus/pyptx test/corpus/generated test/Target test/Dialect examples/ptx \
  -name '*.ptx' -size -"$((max_len + 1))"c 2>/dev/null |
  while read -r f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
total=0; found=0; report=()
for t in "${targets[@]}"; do
  bin=$BUILD_DIR/bin/pyptx-$t-fuzzer
  # A fresh artifacts directory per run: whatever lands in it is a find.
  corpus=$BUILD_DIR/corpus/$t; artifacts=$BUILD_DIR/artifacts/$t/$(date +%Y%m%d-%H%M%S)
  regressions=fuzz/regressions/$t
  mkdir -p "$corpus" "$artifacts"
  len=$max_len; [[ $t == builder ]] && len=$((max_len < 512 ? max_len : 512))

  # Every earlier find must pass now.
  if compgen -G "$regressions/*" >/dev/null; then
    if ! nice -n 19 "$bin" -runs=1 "$regressions"/* >"$artifacts/regressions.log" 2>&1; then
      echo "fuzz: $t: a regression fails again:"; tail -40 "$artifacts/regressions.log"
      found=$((found + 1)); continue
    fi
    echo "fuzz: $t: $(ls "$regressions" | wc -l) regression inputs pass"
  fi

  seed_dirs=("$seeds"); [[ $t == builder ]] && seed_dirs=()
  limit=(-max_total_time="$amount"); [[ $mode == runs ]] && limit=(-runs="$amount")
  log=$artifacts/run.log
  start=$(date +%s)
  nice -n 19 "$bin" "${limit[@]}" -max_len="$len" -timeout=25 -rss_limit_mb=2560 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" -dict=fuzz/ptx.dict \
    "$corpus" "${seed_dirs[@]}" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -1)
  execs=${execs:-0}; total=$((total + execs))
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\)/\1/p' "$log" | tail -1)
  report+=("$t: $execs executions in ${secs} s (${rate:-0} exec/s)")
  new=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \))
  if [[ $rc -ne 0 || -n $new ]]; then
    found=$((found + 1))
    mkdir -p "$regressions"
    for f in $new; do cp "$f" "$regressions/"; done
    echo "fuzz: $t: FOUND (exit $rc); inputs copied to $regressions/ -- add a lit case under test/Fuzz/:"
    grep -A12 'CONTRACT VIOLATION\|ERROR: \(Address\|Leak\|libFuzzer\)\|runtime error' "$log" | head -40
  fi
done
printf '%s\n' "${report[@]}"
echo "fuzz: $total executions, $found finds"
[[ $found -eq 0 ]]
