#!/usr/bin/env bash
# Regenerates test/corpus/generated/ from test/corpus/src/.
#
#   src/cuda/*.cu        -> generated/nvcc/<arch>/<name>.<variant>.ptx
#                           variants: plain (-O3), lineinfo (-O3 -lineinfo), G (-O3 -G)
#   src/cuda/large/*.cu  -> generated/large/<name>.ptx      (one big file each)
#   src/llvm/*.ll        -> generated/llc/<arch>/<name>.ptx
#
# Every output is assembled with `ptxas -arch=<its .target>`; an output that
# does not assemble is deleted and reported, and the script exits non-zero.
#
# Per-source header lines (first 30 lines of the file):
#   // corpus-archs: sm_80 sm_90a sm_100a     archs to build (.cu); `; corpus-archs:` in .ll
#   // corpus-variants: plain lineinfo G      optional, default all three; a token
#                                             "G:sm_90a" limits that variant to the
#                                             listed archs (keeps -G CUB builds small)
#   // corpus-nvcc-flags: ...                 optional extra nvcc flags
#   // corpus-large: <arch> <nvcc flags...>   (src/cuda/large only)
#   ; corpus-llc-flags: -O0                   optional llc flags for a .ll (default -O3)
#
# usage: generate.sh [-j N] [--keep-stage] [FILTER]
#   -j N          parallel jobs (default: 2, or $JOBS)
#   --keep-stage  keep the staging directory (logs of every job under log/)
#   FILTER        only build sources whose file name contains FILTER; outputs
#                 of other sources are left alone (default: rebuild all; files
#                 in generated/{nvcc,llc,large} that no job produced are removed)
# Everything is built in the staging directory first; generated/ is updated at
# the end, and only files whose bytes changed are rewritten.
# Tools: $CUDA_HOME (default /usr/local/cuda) or $NVCC/$PTXAS, and $LLC
# (default /usr/lib/llvm-22/bin/llc). nvcc runs under `env -i` with
# PATH=$NVCC_PATH (default: nvcc's directory:/usr/bin:/bin; the host gcc must
# be found there). Works from any working directory.
#
# Determinism: nvcc writes the absolute source path into `.file` directives and
# hashes it into the names of internal-linkage symbols (_INTERNAL_<hash>_...),
# so sources are copied to a fixed staging directory ($CORPUS_STAGE, default
# /tmp/pyptx-corpus, guarded by a lock file) and compiled from there: the
# output does not depend on where this checkout lives. The second half of that
# name (the module id) comes from the first non-template external function of
# the translation unit; a .cu file without one gets a time/PID-based id, so
# every .cu here defines one, and the script rejects outputs that show a
# PID-based id. nvcc also runs with ASLR off (setarch -R), a fixed environment
# and stack limit, because some -G output follows heap addresses.
# Same tools + same sources -> same bytes.
set -euo pipefail

CORPUS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
PTXAS=${PTXAS:-$CUDA_HOME/bin/ptxas}
LLC=${LLC:-/usr/lib/llvm-22/bin/llc}
JOBS=${JOBS:-2}
STAGE=${CORPUS_STAGE:-/tmp/pyptx-corpus}
KEEP_STAGE=0
FILTER=""

while [ $# -gt 0 ]; do
  case "$1" in
    -j) JOBS=$2; shift 2 ;;
    -j*) JOBS=${1#-j}; shift ;;
    --keep-stage) KEEP_STAGE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    -*) echo "generate.sh: unknown option $1" >&2; exit 2 ;;
    *) FILTER=$1; shift ;;
  esac
done

for tool in "$NVCC" "$PTXAS" "$LLC"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "generate.sh: $tool not found" >&2; exit 1; }
done

# nvcc runs with a fixed, minimal environment, a fixed stack limit and address
# space randomisation off: with -G, cicc emits some module-level declarations
# (libcu++'s internal CPO objects) in an order that follows heap addresses, so
# without this the same input gives differently ordered files from run to run.
SETARCH_CMD=""
if setarch "$(uname -m)" -R true 2>/dev/null; then
  SETARCH_CMD="setarch $(uname -m) -R"
else
  echo "generate.sh: warning: 'setarch -R' unavailable; -G outputs may not be reproducible" >&2
fi
NVCC_PATH=${NVCC_PATH:-$(dirname "$NVCC"):/usr/bin:/bin}
nvcc_clean() {
  (
    ulimit -s 8192 2>/dev/null || true
    # shellcheck disable=SC2086
    exec env -i PATH="$NVCC_PATH" HOME=/tmp LANG=C LC_ALL=C $SETARCH_CMD "$NVCC" "$@"
  )
}

# PTX ISA version llc is asked for, per arch.
llc_ptx_version() {
  case "$1" in
    sm_80) echo 78 ;;
    sm_90a) echo 83 ;;
    sm_100a) echo 87 ;;
    *) echo "generate.sh: no PTX version for $1" >&2; return 1 ;;
  esac
}

header() { # header FILE KEY -> value of "<comment> corpus-KEY: value"
  sed -n '1,30p' "$1" | sed -n "s/^[\/;]*[[:space:]]*corpus-$2:[[:space:]]*//p" | head -n 1
}

case "$STAGE" in
  "" | / | /tmp | /tmp/ | "$HOME" | "$CORPUS_DIR"*) echo "generate.sh: refusing staging directory '$STAGE'" >&2; exit 2 ;;
esac
mkdir -p "$(dirname "$STAGE")"
exec 9>"$STAGE.lock"
flock -n 9 || { echo "generate.sh: another run holds $STAGE.lock" >&2; exit 1; }

START=$(date +%s)
rm -rf "$STAGE"
mkdir -p "$STAGE/out" "$STAGE/log"
cp -R "$CORPUS_DIR/src" "$STAGE/src"
: >"$STAGE/failures"

# Outputs are built under $STAGE/out and only copied into generated/ once all
# jobs are done (unchanged files are left untouched), so generated/ is never
# seen half-rebuilt.
OUT="$CORPUS_DIR/generated"

# ---- job list: "kind arch relsrc variant relout" ------------------------------
JOBLIST="$STAGE/jobs"
: >"$JOBLIST"
matches() { [ -z "$FILTER" ] || [[ "$(basename "$1")" == *"$FILTER"* ]]; }

shopt -s nullglob
for src in "$STAGE"/src/cuda/large/*.cu; do
  matches "$src" || continue
  spec=$(header "$src" large)
  [ -n "$spec" ] || { echo "generate.sh: $src has no corpus-large header" >&2; exit 1; }
  arch=${spec%% *}
  flags=${spec#"$arch"}
  name=$(basename "$src" .cu)
  flags=${flags// /,}
  flags=${flags#,}
  echo "nvcc-large $arch ${src#"$STAGE"/} ${flags:--} large/$name.ptx" >>"$JOBLIST"
done
# -G builds first: they are the slowest, so the tail of the run stays parallel.
for variant in G lineinfo plain; do
  for src in "$STAGE"/src/cuda/*.cu; do
    matches "$src" || continue
    archs=$(header "$src" archs)
    [ -n "$archs" ] || { echo "generate.sh: $src has no corpus-archs header" >&2; exit 1; }
    variants=$(header "$src" variants)
    variants=${variants:-plain lineinfo G}
    name=$(basename "$src" .cu)
    for arch in $archs; do
      # A variant token is "V" (every arch) or "V:arch1,arch2" (those archs only).
      for tok in $variants; do
        v=${tok%%:*}
        [ "$v" = "$variant" ] || continue
        [ "$tok" = "$v" ] || [[ ",${tok#*:}," == *",$arch,"* ]] || continue
        echo "nvcc $arch ${src#"$STAGE"/} $variant nvcc/$arch/$name.$variant.ptx" >>"$JOBLIST"
      done
    done
  done
done
for src in "$STAGE"/src/llvm/*.ll; do
  matches "$src" || continue
  archs=$(header "$src" archs)
  [ -n "$archs" ] || { echo "generate.sh: $src has no corpus-archs header" >&2; exit 1; }
  name=$(basename "$src" .ll)
  for arch in $archs; do
    echo "llc $arch ${src#"$STAGE"/} - llc/$arch/$name.ptx" >>"$JOBLIST"
  done
done
shopt -u nullglob

TOTAL=$(wc -l <"$JOBLIST")
[ "$TOTAL" -gt 0 ] || { echo "generate.sh: nothing to build" >&2; exit 1; }
echo "generate.sh: $TOTAL jobs, $JOBS in parallel; staging in $STAGE"

# ---- one job ------------------------------------------------------------------
run_job() {
  local idx=$1 kind=$2 arch=$3 rel=$4 variant=$5 relout=$6
  local src="$STAGE/$rel" tmp="$STAGE/out/$relout"
  local log="$STAGE/log/${relout//\//_}.log"
  local label flags=() t0 t1 rc=0 target
  mkdir -p "$(dirname "$tmp")"
  t0=$(date +%s.%N)
  case "$kind" in
    nvcc)
      case "$variant" in
        plain) flags=() ; label="" ;;
        lineinfo) flags=(-lineinfo) ; label=" -lineinfo" ;;
        G) flags=(-G) ; label=" -G" ;;
      esac
      # shellcheck disable=SC2207
      local extra=($(header "$src" nvcc-flags))
      (cd "$(dirname "$src")" &&
        nvcc_clean -ptx -O3 -arch="$arch" "${flags[@]}" "${extra[@]}" "$(basename "$src")" -o "$tmp") >"$log" 2>&1 || rc=$?
      label="nvcc $arch $(basename "$src")$label"
      ;;
    nvcc-large)
      [ "$variant" = - ] || IFS=, read -r -a flags <<<"$variant"
      (cd "$(dirname "$src")" &&
        nvcc_clean -ptx -O3 -arch="$arch" "${flags[@]}" "$(basename "$src")" -o "$tmp") >"$log" 2>&1 || rc=$?
      label="nvcc $arch large/$(basename "$src") ${flags[*]}"
      ;;
    llc)
      local ver
      ver=$(llc_ptx_version "$arch")
      # shellcheck disable=SC2207
      local lflags=($(header "$src" llc-flags))
      [ ${#lflags[@]} -gt 0 ] || lflags=(-O3)
      (cd "$(dirname "$src")" &&
        "$LLC" -march=nvptx64 -mcpu="$arch" -mattr=+ptx"$ver" "${lflags[@]}" "$(basename "$src")" -o "$tmp") >"$log" 2>&1 || rc=$?
      label="llc $arch $(basename "$src") +ptx$ver ${lflags[*]}"
      ;;
  esac
  # nvcc names internal-linkage entities _INTERNAL_<hash>_<len>_<file>_<id>...;
  # when the TU has no non-template external function to derive <id> from, it
  # uses a time/PID-based id ("..._cu_<8 hex>_<pid>"), which is not reproducible.
  if [ $rc -eq 0 ] && [ "$kind" != llc ] &&
    grep -Eq '_INTERNAL_[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]{8}_[0-9]' "$tmp"; then
    echo "non-reproducible module id in _INTERNAL_ names: give the source a non-template external function" >>"$log"
    rc=3
  fi
  if [ $rc -eq 0 ]; then
    target=$(sed -n 's/^\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$tmp" | head -n 1)
    if [ -z "$target" ]; then
      echo "no .target directive" >>"$log"
      rc=1
    elif ! "$PTXAS" -arch="$target" "$tmp" -o "$tmp.cubin" >>"$log" 2>&1; then
      echo "ptxas -arch=$target rejected the file" >>"$log"
      rc=2
    fi
    rm -f "$tmp.cubin"
  fi
  t1=$(date +%s.%N)
  local secs
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  if [ $rc -eq 0 ]; then
    printf '[%d/%d] %s  ok  %d KB  %ss\n' "$idx" "$TOTAL" "$label" $(( $(stat -c %s "$tmp") / 1024 )) "$secs"
  else
    rm -f "$tmp"
    printf '%s (%s)\n' "$relout" "$(tail -n 3 "$log" | tr '\n' ' ')" >>"$STAGE/failures"
    printf '[%d/%d] %s  FAILED (%s)\n' "$idx" "$TOTAL" "$label" \
      "$(case $rc in 2) echo ptxas ;; 3) echo nondeterministic ;; *) echo compile ;; esac)"
    sed 's/^/    /' "$log" | tail -n 20
  fi
  return 0
}
export -f run_job header llc_ptx_version nvcc_clean
export STAGE OUT TOTAL NVCC PTXAS LLC SETARCH_CMD NVCC_PATH

awk '{ print NR, $0 }' "$JOBLIST" | xargs -P "$JOBS" -L 1 bash -c 'run_job "$@"' _

# ---- install into generated/ ----------------------------------------------------
# Full run: generated/{nvcc,llc,large} becomes exactly the set of outputs that
# compiled and assembled. FILTER run: only the filtered jobs' files change.
mkdir -p "$OUT"
changed=0
removed=0
while read -r _ _ _ _ relout; do
  if [ -f "$STAGE/out/$relout" ]; then
    if ! cmp -s "$STAGE/out/$relout" "$OUT/$relout"; then
      mkdir -p "$(dirname "$OUT/$relout")"
      cp "$STAGE/out/$relout" "$OUT/$relout.tmp.$$"
      mv -f "$OUT/$relout.tmp.$$" "$OUT/$relout"
      changed=$((changed + 1))
    fi
  elif [ -e "$OUT/$relout" ]; then
    rm -f "$OUT/$relout"
    removed=$((removed + 1))
  fi
done <"$JOBLIST"
if [ -z "$FILTER" ]; then
  # Outputs of sources, archs or variants that no longer exist.
  for d in nvcc llc large; do
    [ -d "$OUT/$d" ] || continue
    while read -r stale; do
      awk -v f="$stale" '$5 == f { found = 1 } END { exit !found }' "$JOBLIST" ||
        { rm -f "$OUT/$stale"; removed=$((removed + 1)); }
    done < <(cd "$OUT" && find "$d" -type f | LC_ALL=C sort)
    find "$OUT/$d" -type d -empty -delete
  done
fi
echo
echo "generated/: $changed file(s) written, $removed removed, the rest unchanged"

# ---- summary ------------------------------------------------------------------
END=$(date +%s)
# One line per output: "<relpath> <bytes> <target arch>".
INDEX="$STAGE/index"
(cd "$OUT" && find . -name '*.ptx' -printf '%P %s\n' | LC_ALL=C sort) | while read -r path size; do
  echo "$path $size $(sed -n 's/^\.target[[:space:]]*\([a-z0-9_]*\).*/\1/p' "$OUT/$path" | head -n 1)"
done >"$INDEX"
echo
echo "== corpus totals (generated/) =="
awk -v secs=$((END - START)) -v jobs="$JOBS" '
  function row(label, n, b) { printf "  %-22s %4d files %10d bytes (%6.2f MB)\n", label, n, b, b / 1048576 }
  {
    n++; b += $2
    an[$3]++; ab[$3] += $2
    split($1, parts, "/")
    if (parts[1] == "nvcc") { v = $1; sub(/\.ptx$/, "", v); sub(/.*\./, "", v); k = "nvcc " v }
    else k = parts[1]
    kn[k]++; kb[k] += $2
    cell = parts[1] == "nvcc" ? k " " $3 : k " " $3
    cn[cell]++
  }
  END {
    row("all", n, b)
    split("sm_80 sm_90a sm_100a", archs, " ")
    for (i = 1; i <= 3; i++) row(".target " archs[i], an[archs[i]], ab[archs[i]])
    split("nvcc plain|nvcc lineinfo|nvcc G|llc|large", kinds, "|")
    for (i = 1; i <= 5; i++) row(kinds[i], kn[kinds[i]], kb[kinds[i]])
    printf "  files per kind and arch:\n"
    for (i = 1; i <= 5; i++) {
      printf "    %-15s", kinds[i]
      for (j = 1; j <= 3; j++) printf "  %s=%d", archs[j], cn[kinds[i] " " archs[j]]
      printf "\n"
    }
    printf "  time: %d s with %d parallel jobs\n", secs, jobs
  }' "$INDEX"

status=0
if [ -s "$STAGE/failures" ]; then
  echo
  echo "== $(wc -l <"$STAGE/failures") output(s) failed and were not written =="
  sed 's/^/  /' "$STAGE/failures"
  status=1
fi
[ "$KEEP_STAGE" = 1 ] || rm -rf "$STAGE"
exit $status
