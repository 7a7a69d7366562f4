#!/usr/bin/env bash
# The sanitizer build: pyptx's own code (tools, libraries, the Python
# modules, the unit tests) built with clang's AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan/ (-DPYPTX_SANITIZE=ON; MLIR's apt
# libraries stay uninstrumented), then the suites of scripts/test.sh run
# against it: lit, GoogleTest, the corpus round trips, the transpiler round
# trips, the importer fuzzer, the ISA coverage and mutants, and pytest.
# Any sanitizer report stops the process that made it (halt_on_error, and
# abort_on_error so that lit's `not` cannot mistake it for an expected
# failure); LeakSanitizer checks every tool at exit. Python is not
# instrumented: the pytest and transpiler runs preload clang's ASan runtime
# (LD_PRELOAD) and leave out leak checks (CPython keeps its objects at
# exit). The last line gives the counts; exit status 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${PYPTX_ASAN_BUILD_DIR:-build-asan}
CLANG_BIN=${PYPTX_CLANG_BIN:-/usr/lib/llvm-22/bin}
bash scripts/clang-configure.sh "$BUILD_DIR" -DPYPTX_SANITIZE=ON || exit 1
nice -n 19 ninja -C "$BUILD_DIR" || exit 1

ASAN_RT=$("$CLANG_BIN/clang" -print-file-name=libclang_rt.asan-x86_64.so)
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
# For the interpreter: the runtime preloaded, no leak check at exit, and
# third-party extensions (torch, jaxlib) left to their own allocation habits.
PY_ASAN="halt_on_error=1:abort_on_error=1:detect_leaks=0:alloc_dealloc_mismatch=0"
with_asan_python() { LD_PRELOAD=$ASAN_RT ASAN_OPTIONS=$PY_ASAN "$@"; }

LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
results=(); failed=0
record() { # name passed failed
  results+=("$1: $2 passed, $3 failed"); failed=$((failed + $3))
}
count() { sed -n "$1" "$LOG" | tail -1; }

echo "== lit ($BUILD_DIR)"
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
p=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$LOG" | tail -1)
f=$(sed -n 's/^ *\(Failed\|Unresolved\|Timed Out\) *: *\([0-9]*\).*/\2/p' "$LOG" | awk '{n+=$1} END {print n+0}')
((rc && !f)) && f=1
record lit "${p:-0}" "$f"

echo "== gtest"
"$BUILD_DIR/bin/pyptx-unittests" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
p=$(count 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p'); f=$(count 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
f=${f:-0}; ((rc && !f)) && f=1
record gtest "${p:-0}" "$f"

corpora=(); SHARED=../shared/corpus
[[ -d $SHARED/pyptx ]] && corpora+=("$SHARED/pyptx:$SHARED/pyptx-ptxas-valid.txt")
[[ -d test/corpus/generated ]] && corpora+=(test/corpus/generated)

echo "== corpus round trips"
python3 test/corpus/check_corpus.py --bin "$BUILD_DIR/bin" "${corpora[@]}" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
p=$(count 's/^corpus: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p'); f=$(count 's/^corpus: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
f=${f:-0}; ((rc && !f)) && f=1
record corpus "${p:-0}" "$f"

echo "== transpiler round trips"
tp=0; tf=0
runs=()
[[ -d $SHARED/pyptx ]] && runs+=("$SHARED/pyptx:$SHARED/pyptx-ptxas-valid.txt")
[[ -d test/corpus/generated ]] && runs+=("--no-ptxas test/corpus/generated")
for run_args in "${runs[@]}"; do
  # shellcheck disable=SC2086
  with_asan_python python3 test/corpus/check_transpile.py --bin "$BUILD_DIR/bin" \
    --python "$BUILD_DIR/python" $run_args 2>&1 | tee "$LOG"
  rc=${PIPESTATUS[0]}
  p=$(count 's/^transpile: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/p'); f=$(count 's/^transpile: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/p')
  f=${f:-0}; ((rc && !f)) && f=1
  tp=$((tp + ${p:-0})); tf=$((tf + f))
done
record transpile "$tp" "$tf"

echo "== importer fuzzing (fixed seed)"
python3 test/corpus/fuzz_import.py --bin "$BUILD_DIR/bin" --seed 1 --count 300 \
  --out "$(mktemp -d)" 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
n=$(count 's/^fuzz: \([0-9]*\) mutants, .*/\1/p'); f=$(count 's/^fuzz: .*, \([0-9]*\) failures$/\1/p')
f=${f:-1}; ((rc && !f)) && f=1
record fuzz-import $(( ${n:-0} - f )) "$f"

echo "== ISA coverage and mutants"
if python3 test/corpus/isa_coverage.py --bin "$BUILD_DIR/bin" | tail -5; then
  record isa-coverage 1 0; else record isa-coverage 0 1; fi
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x $PTXAS ]]; then
  if python3 test/corpus/isa_mutate.py --bin "$BUILD_DIR/bin" --ptxas "$PTXAS" \
       --seed 7 --count 400 --min-agreement 95 --max-false-reject 1 --show 3; then
    record isa-mutate 1 0; else record isa-mutate 0 1; fi
fi

echo "== special registers in mov and cvt against ptxas"
if [[ -x $PTXAS ]]; then
  python3 test/corpus/sreg_sizes.py --bin "$BUILD_DIR/bin" --ptxas "$PTXAS" | tee "$LOG" | tail -1
  p=$(count 's/^sreg-sizes: .* \([0-9]*\) agree, \([0-9]*\) disagree$/\1/p')
  f=$(count 's/^sreg-sizes: .* \([0-9]*\) agree, \([0-9]*\) disagree$/\2/p')
  record sreg-sizes "${p:-0}" "${f:-1}"
fi

echo "== Python (pytest, $BUILD_DIR's native modules, ASan preloaded)"
PYPTX_NATIVE_DIR=$PWD/$BUILD_DIR/python/pyptx with_asan_python \
  python3 -m pytest test/python -q -p no:cacheprovider 2>&1 | tee "$LOG"
rc=${PIPESTATUS[0]}
p=$(tail -1 "$LOG" | grep -o '[0-9]* passed' | grep -o '[0-9]*')
f=$(tail -1 "$LOG" | grep -o '[0-9]* \(failed\|error\)' | awk '{n+=$1} END {print n+0}')
((rc && !f)) && f=1
record pytest "${p:-0}" "$f"

printf '%s\n' "${results[@]}" | paste -sd';' | sed 's/;/; /g'
echo "sanitize: $( (IFS=+; echo "${results[*]}") | grep -o '[0-9]* passed' | awk '{n+=$1} END {print n+0}') passed, $failed failed"
[[ $failed -eq 0 ]]
