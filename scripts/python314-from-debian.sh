#!/usr/bin/env bash
# Makes a CPython 3.14 that runs on this machine (Debian 12, glibc 2.36) from
# Debian sid's python3.14 binaries (built against glibc 2.43), for
# `scripts/build-wheels.sh`, and prints the interpreter's path:
#
#   scripts/build-wheels.sh "$(scripts/python314-from-debian.sh)"
#
# Made once and kept in $PYPTX_SID_ROOT (default ~/.cache/pyptx/chroot-sid):
# a sid root file system (debootstrap, root) with python3.14, -venv, -dev;
# in it, usr/bin/python3.14-host, which runs sid's python3.14 through sid's
# own dynamic loader and libraries (its children, cmake and gcc, get this
# machine's); and a venv with pip, whose python is what this prints.
# The same root file system checks the wheel (scripts/check-wheel-oldglibc.sh,
# with PYPTX_CHROOT and PYPTX_CHECK_PYTHON=/usr/bin/python3.14).
set -euo pipefail
R=${PYPTX_SID_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/pyptx/chroot-sid}
R=$(realpath -m "$R")
VENV=$R/opt/host-venv
ARCH=x86_64-linux-gnu

if [[ ! -x $R/usr/bin/python3.14 ]]; then
  echo "debootstrap Debian sid with python3.14 into $R ..." >&2
  debootstrap --variant=minbase --include=python3.14,python3.14-venv,python3.14-dev \
    sid "$R" http://deb.debian.org/debian >/dev/null
fi

# The launcher: sid's loader, sid's libraries (--library-path, which, unlike
# LD_LIBRARY_PATH, its children do not inherit), and argv[0] this script's
# path, so that sys.executable is the launcher (pip's build subprocesses)
# and the prefix (its stdlib, lib-dynload, include/) is sid's usr/.
cat > "$R/usr/bin/python3.14-host" <<EOF
#!/bin/sh
exec "$R/usr/lib/$ARCH/ld-linux-x86-64.so.2" --library-path "$R/usr/lib/$ARCH" \\
  --argv0 "\$0" "$R/usr/bin/python3.14" "\$@"
EOF
chmod +x "$R/usr/bin/python3.14-host"

# Debian's include/python3.14/pyconfig.h includes <$ARCH/python3.14/pyconfig.h>,
# found in sid's /usr/include, not this machine's: the real one in its place.
if grep -q "include <$ARCH/python3.14/pyconfig.h>" "$R/usr/include/python3.14/pyconfig.h"; then
  cp "$R/usr/include/$ARCH/python3.14/pyconfig.h" "$R/usr/include/python3.14/pyconfig.h"
fi

# pip: sid's wheel (Debian's ensurepip would take this machine's, from
# /usr/share/python-wheels), installed by itself.
if [[ ! -x $VENV/bin/pip ]]; then
  "$R/usr/bin/python3.14-host" -m venv --clear --without-pip "$VENV" >&2
  pip_whl=$(ls "$R"/usr/share/python-wheels/pip-*.whl | head -1)
  "$VENV/bin/python3.14" "$pip_whl/pip" install -q --no-index "$pip_whl" >&2
fi
echo "$VENV/bin/python3.14"
