#!/usr/bin/env bash
# Installs a manylinux wheel of pyptx-mlir (default: dist/'s cp311 one) into
# a fresh venv in a Debian 11 root file system (glibc 2.31) and runs it
# there: `import pyptx`, a kernel traced to PTX, that PTX through
# pyptx-translate, and each console script's --version. Needs root
# (debootstrap, chroot).
#
# Made once and kept in $PYPTX_CHROOT (default ~/.cache/pyptx/chroot-bullseye):
# the root file system (debootstrap) and, in it, CPython 3.11 built from
# Debian's source package (Debian 11 has only 3.9).
set -euo pipefail
cd "$(dirname "$0")/.."
CHROOT=${PYPTX_CHROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/pyptx/chroot-bullseye}
WHEEL=${1:-$(ls -t dist/pyptx_mlir-*-cp311-*manylinux*.whl 2>/dev/null | head -1)}
[[ -f $WHEEL ]] || { echo "no wheel (scripts/build-wheels.sh makes them)" >&2; exit 1; }
# Another interpreter already in $PYPTX_CHROOT: $PYPTX_CHECK_PYTHON, e.g. the
# cp314 wheel in scripts/python314-from-debian.sh's sid root (glibc 2.43):
#   PYPTX_CHROOT=~/.cache/pyptx/chroot-sid PYPTX_CHECK_PYTHON=/usr/bin/python3.14 \
#     scripts/check-wheel-oldglibc.sh dist/pyptx_mlir-*-cp314-*.whl
PY=${PYPTX_CHECK_PYTHON:-/opt/python3.11/bin/python3.11}
BUILD_DEPS=gcc,make,libc6-dev,zlib1g-dev,libffi-dev,libssl-dev,libbz2-dev,liblzma-dev
START=$SECONDS

if [[ ! -x $CHROOT/bin/sh ]]; then
  echo "debootstrap Debian 11 into $CHROOT ..."
  debootstrap --variant=minbase --include="$BUILD_DEPS" bullseye "$CHROOT" \
    http://deb.debian.org/debian >/dev/null
fi
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
mount -t proc proc "$CHROOT/proc"
trap 'umount "$CHROOT/proc"' EXIT
in_chroot() { chroot "$CHROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root "$@"; }

if [[ ! -x $CHROOT$PY ]]; then
  echo "building CPython 3.11 in $CHROOT (once) ..."
  in_chroot apt-get install -y -qq --no-install-recommends ${BUILD_DEPS//,/ } >/dev/null
  apt_dir=$(mktemp -d)
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
       "http://deb.debian.org/debian bookworm main" > "$apt_dir/sources.list"
  opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
        -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  rm -rf "$CHROOT/tmp/cpython" && mkdir -p "$CHROOT/tmp/cpython"
  (cd "$CHROOT/tmp/cpython" && apt-get "${opts[@]}" source --download-only -qq python3.11 \
     && tar xzf python3.11_*.orig.tar.gz)
  rm -rf "$apt_dir"
  in_chroot sh -c "cd /tmp/cpython/Python-3.11* && ./configure -q --prefix=/opt/python3.11 \
    && make -s -j$(nproc) >/dev/null && make -s altinstall >/dev/null 2>&1"
  rm -rf "$CHROOT/tmp/cpython"
fi

echo "checking $(basename "$WHEEL") on $(in_chroot ldd --version | head -1)"
cp "$WHEEL" "$CHROOT/tmp/"
in_chroot sh -ec "
  rm -rf /tmp/venv && $PY -m venv /tmp/venv && . /tmp/venv/bin/activate
  pip install -q --no-deps --no-index /tmp/$(basename "$WHEEL")
  cd /tmp && python - <<'EOF'
import pyptx
from pyptx import kernel, reg, ptx
from pyptx.types import u32

@kernel(arch='sm_90a')
def tiny():
    tid = reg.from_(ptx.special.tid.x(), u32)
    ptx.inst.mov.u32(tid, tid + 1)
    ptx.ret()

print('pyptx', pyptx.__version__, 'from', pyptx.__file__)
open('/tmp/tiny.ptx', 'w').write(tiny.ptx())
print(tiny.ptx())
EOF
  pyptx-translate --import-ptx /tmp/tiny.ptx | pyptx-opt | grep -c pyptx.inst
  for tool in pyptx-opt pyptx-translate pyptx-codegen pyptx-aot pyptx-check; do
    \$tool --version
  done
  pyptx-check /tmp/tiny.ptx
"
rm -f "$CHROOT/tmp/$(basename "$WHEEL")"
echo "ok ($((SECONDS - START)) s)"
