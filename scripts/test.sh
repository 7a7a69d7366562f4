#!/usr/bin/env bash
# Runs every test suite: lit (dialect, export) and GoogleTest. The last line
# gives the combined counts.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1
BUILD_DIR=${PYPTX_BUILD_DIR:-build}
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

echo "== lit"
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test" 2>&1 | tee "$LOG"
lit_rc=${PIPESTATUS[0]}
lit_passed=$(awk '/^ *Passed *:/ {print $3}' "$LOG"); lit_passed=${lit_passed:-0}
lit_failed=$(awk '/^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:/ {n+=$NF} END {print n+0}' "$LOG")
lit_unsupported=$(awk '/^ *Unsupported *:/ {print $3}' "$LOG"); lit_unsupported=${lit_unsupported:-0}

echo "== gtest"
"$BUILD_DIR/bin/pyptx-unittests" 2>&1 | tee "$LOG"
gtest_rc=${PIPESTATUS[0]}
gtest_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$LOG"); gtest_passed=${gtest_passed:-0}
gtest_failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$LOG"); gtest_failed=${gtest_failed:-0}
if [[ $gtest_rc -ne 0 && $gtest_failed -eq 0 ]]; then gtest_failed=1; fi

passed=$((lit_passed + gtest_passed))
failed=$((lit_failed + gtest_failed))
if [[ $lit_rc -ne 0 && $lit_failed -eq 0 ]]; then failed=$((failed + 1)); fi
echo "lit: $lit_passed passed, $lit_failed failed, $lit_unsupported unsupported; gtest: $gtest_passed passed, $gtest_failed failed"
echo "total: $passed passed, $failed failed, $lit_unsupported skipped"
[[ $failed -eq 0 && $passed -gt 0 ]]
