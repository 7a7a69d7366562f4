#!/usr/bin/env bash
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over every
# example kernel and the GPU suite's own kernels (test/gpu/sanitize_kernels.py
# launches each once at a small size), on a machine with a GPU.
#
# usage: scripts/sanitize_gpu.sh [--tools memcheck,racecheck,...] [CASE ...]
#        scripts/sanitize_gpu.sh --help
# Prints per tool the cases run, the sanitizer's summary line and a final
# table; exits 1 if any tool reported an error or hazard, or a case failed.
# Logs go to $SANITIZE_OUT (default: sanitize-out/).
set -uo pipefail
cd "$(dirname "$0")/.."
TOOLS=memcheck,racecheck,synccheck,initcheck
if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0
fi
if [[ ${1:-} == --tools ]]; then TOOLS=$2; shift 2; fi
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[[ -x $SAN ]] || { echo "compute-sanitizer not found (CUDA toolkit's bin)" >&2; exit 2; }
OUTDIR=${SANITIZE_OUT:-sanitize-out}
mkdir -p "$OUTDIR"
status=0
summary=()
for tool in ${TOOLS//,/ }; do
  extra=()
  [[ $tool == racecheck ]] && extra=(--racecheck-report all)
  log="$OUTDIR/$tool.log"
  echo "== $tool"
  # Only our kernels are checked (the pyptx-built ones); torch's own kernels
  # (random numbers, copies) are left to NVIDIA.
  "$SAN" --tool "$tool" "${extra[@]}" --kernel-name-exclude kns=at::native \
    --print-limit 20 --error-exitcode 99 python3 test/gpu/sanitize_kernels.py "$@" \
    >"$log" 2>&1
  rc=$?
  grep -E "^(ok|FAIL|SKIP) " "$log"
  line=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -1)
  [[ -z $line ]] && line="(no summary line; exit $rc; see $log)"
  echo "$line"
  if [[ $rc -ne 0 ]] || grep -q "^FAIL " "$log"; then status=1; fi
  summary+=("$(printf '%-10s exit %-3s %s' "$tool" "$rc" "$line")")
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
