#!/usr/bin/env bash
# The GPU suite on a host of several GPUs, run so that a failure can be
# named and placed (docs/design.md 11, "Several GPUs"):
#
#   all        python3 -m pytest test/gpu, every GPU visible, one process
#              (JAX and PyTorch together, as the failing 4-GPU run was)
#   torch      the same without JAX: the files that import JAX are not
#              collected, and test_multi_device.py's JAX tests deselected
#   jax        the JAX tests alone, in a process of their own
#   all-1gpu   `all` with CUDA_VISIBLE_DEVICES set to one GPU
#   torch-1gpu, jax-1gpu   likewise
#
# Usage: bash scripts/gpu_suite_multi.sh [RUN...]   (default: all torch jax
# all-1gpu). Each run's output is kept whole in $OUT/gpu_suite_<run>.log
# ($OUT if set, else a new temporary directory), and one summary line per
# run is printed at the end with the FAILED lines of that run (-rf). Exits
# non-zero if any run failed.
set -uo pipefail
cd "$(dirname "$0")/.."

LOGS=${OUT:-$(mktemp -d -t pyptx-gpu-suite-XXXXXX)}
mkdir -p "$LOGS"
# The GPU of the one-GPU runs: the first of those visible now.
ONE_GPU=${CUDA_VISIBLE_DEVICES:-0}
ONE_GPU=${ONE_GPU%%,*}
# Test files that import JAX when collected (JAX then holds a context on
# every visible GPU for the rest of the process).
mapfile -t JAX_FILES < <(grep -l -E '^(jax = pytest\.importorskip|import jax)' test/gpu/test_*.py)
IGNORE_JAX=()
for f in "${JAX_FILES[@]}"; do IGNORE_JAX+=("--ignore=$f"); done

runs=("$@")
((${#runs[@]})) || runs=(all torch jax all-1gpu)

summary=()
status=0
for run in "${runs[@]}"; do
  case ${run%-1gpu} in
    all) args=(test/gpu) ;;
    torch) args=(test/gpu "${IGNORE_JAX[@]}" -k "not jax") ;;
    jax) args=("${JAX_FILES[@]}" test/gpu/test_multi_device.py -k jax) ;;
    *) echo "unknown run '$run' (all, torch, jax, each optionally -1gpu)" >&2; exit 2 ;;
  esac
  env_prefix=()
  visible="all (${CUDA_VISIBLE_DEVICES:-unset})"
  if [[ $run == *-1gpu ]]; then
    env_prefix=(env "CUDA_VISIBLE_DEVICES=$ONE_GPU")
    visible=$ONE_GPU
  fi
  log="$LOGS/gpu_suite_$run.log"
  echo "== $run: CUDA_VISIBLE_DEVICES=$visible: python3 -m pytest ${args[*]} -rf -p no:randomly"
  start=$SECONDS
  "${env_prefix[@]}" python3 -m pytest "${args[@]}" -rf -p no:randomly 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  # rc 5: nothing collected (a run whose tests all need what is missing).
  if [[ $rc -ne 0 && $rc -ne 5 ]]; then status=1; fi
  last=$(grep -E '(passed|failed|skipped|error|no tests ran)' "$log" | tail -1)
  summary+=("gpu-suite $run (CUDA_VISIBLE_DEVICES=$visible): ${last:-no pytest summary} [rc $rc, $((SECONDS - start)) s, $log]")
  while IFS= read -r line; do summary+=("    $line"); done < <(grep -E '^(FAILED|ERROR) ' "$log")
done

echo
printf '%s\n' "${summary[@]}"
exit $status
