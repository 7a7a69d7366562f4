#!/usr/bin/env bash
# Coverage-guided fuzzing of the importer, the exporter and the builder with
# libFuzzer, under ASan, UBSan and LeakSanitizer (fuzz/README.md).
#
#   scripts/fuzz.sh --ci                   CI's short run: the regressions,
#                                          then 15 s per target (~50 s)
#   scripts/fuzz.sh --runs N [TARGET...]   N executions per target
#   scripts/fuzz.sh --time S [TARGET...]   S seconds per target
#   --jobs J      J processes per target, and the targets at once (a
#                 many-core machine; default 1: one process at a time)
#   --bin DIR     take the fuzzers built in DIR (another machine's build,
#                 e.g. on a host without clang) instead of building
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

mode=time; amount=60; max_len=1024; targets=(); jobs=1; prebuilt=
while (($#)); do
  case $1 in
    --ci) mode=time; amount=15 ;;
    --runs) mode=runs; amount=$2; shift ;;
    --time) mode=time; amount=$2; shift ;;
    --max-len) max_len=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --bin) prebuilt=$2; shift ;;
    import|canonical|builder) targets+=("$1") ;;
    *) echo "usage: scripts/fuzz.sh [--ci | --runs N | --time S] [--max-len B] [--jobs J] [--bin DIR] [import canonical builder]" >&2
       exit 2 ;;
  esac
  shift
done
((${#targets[@]})) || targets=(import canonical builder)

if [[ -n $prebuilt ]]; then
  BIN_DIR=$prebuilt
else
  BIN_DIR=$BUILD_DIR/bin
  bash scripts/clang-configure.sh "$BUILD_DIR" -DPYPTX_ENABLE_FUZZ=ON \
    -DPYPTX_BUILD_PYTHON=OFF -DPYPTX_BUILD_TESTS=OFF || exit 1
  # shellcheck disable=SC2046
  nice -n 19 ninja -C "$BUILD_DIR" $(printf 'pyptx-%s-fuzzer ' "${targets[@]}") >/dev/null ||
    { echo "fuzz: the build failed: ninja -C $BUILD_DIR" >&2; exit 1; }
fi

# Seeds: PTX files of the corpora and of the lit suites, up to max_len.
seeds=$BUILD_DIR/seeds
rm -rf "$seeds"; mkdir -p "$seeds"
find ../shared/corpus/pyptx test/corpus/generated test/Target test/Dialect examples/ptx \
  -name '*.ptx' -size -"$((max_len + 1))"c 2>/dev/null |
  while read -r f; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
stamp=$(date +%Y%m%d-%H%M%S)

# One target: the regressions, then `jobs` fuzzing processes sharing the
# target's corpus. Writes "execs secs rate finds" to $artifacts/result.
fuzz_target() {
  local t=$1 bin=$BIN_DIR/pyptx-$1-fuzzer
  # A fresh artifacts directory per run: whatever lands in it is a find.
  local corpus=$BUILD_DIR/corpus/$t artifacts=$BUILD_DIR/artifacts/$t/$stamp
  local regressions=fuzz/regressions/$t
  mkdir -p "$corpus" "$artifacts"
  local len=$max_len; [[ $t == builder ]] && len=$((max_len < 512 ? max_len : 512))

  # Every earlier find must pass now.
  if compgen -G "$regressions/*" >/dev/null; then
    if ! nice -n 19 "$bin" -runs=1 "$regressions"/* >"$artifacts/regressions.log" 2>&1; then
      echo "fuzz: $t: a regression fails again:"; tail -40 "$artifacts/regressions.log"
      echo "0 0 0 1" >"$artifacts/result"; return
    fi
    echo "fuzz: $t: $(ls "$regressions" | wc -l) regression inputs pass"
  fi

  local seed_dirs=("$seeds"); [[ $t == builder ]] && seed_dirs=()
  local limit=(-max_total_time="$amount"); [[ $mode == runs ]] && limit=(-runs="$amount")
  local start; start=$(date +%s)
  local j pids=()
  for ((j = 0; j < jobs; j++)); do
    nice -n 19 "$bin" "${limit[@]}" -max_len="$len" -timeout=25 \
      -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      -dict=fuzz/ptx.dict "$corpus" "${seed_dirs[@]}" >"$artifacts/run-$j.log" 2>&1 &
    pids+=($!)
  done
  local rc=0 pid
  for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
  local secs=$(( $(date +%s) - start ))
  local execs
  execs=$(cat "$artifacts"/run-*.log |
          sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' | awk '{n+=$1} END {print n+0}')
  local new finds=0
  new=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
        -o -name 'timeout-*' -o -name 'oom-*' \))
  if [[ $rc -ne 0 || -n $new ]]; then
    finds=1
    mkdir -p "$regressions"
    for f in $new; do cp "$f" "$regressions/"; done
    echo "fuzz: $t: FOUND (exit $rc); inputs copied to $regressions/ -- add a lit case under test/Fuzz/:"
    cat "$artifacts"/run-*.log |
      grep -A12 'CONTRACT VIOLATION\|ERROR: \(Address\|Leak\|libFuzzer\)\|runtime error' | head -40
  fi
  echo "$execs $secs $((execs / (secs > 0 ? secs : 1))) $finds" >"$artifacts/result"
}

if ((jobs > 1)); then
  for t in "${targets[@]}"; do fuzz_target "$t" & done
  wait
else
  for t in "${targets[@]}"; do fuzz_target "$t"; done
fi

total=0; found=0
for t in "${targets[@]}"; do
  read -r execs secs rate finds <"$BUILD_DIR/artifacts/$t/$stamp/result"
  echo "$t: $execs executions in $secs s ($rate exec/s, $jobs process(es))"
  total=$((total + execs)); found=$((found + finds))
done
echo "fuzz: $total executions, $found finds"
[[ $found -eq 0 ]]
