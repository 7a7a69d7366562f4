#!/usr/bin/env bash
# Builds the docs site (mkdocs.yml) into site/ ($DOCS_SITE_DIR): mkdocs build --strict, so any
# warning (a broken link between pages, a missing anchor, a docstring that
# does not render) fails the build, then scripts/check_docs_links.py checks
# every internal link and anchor of the built HTML. External links are not
# checked: the build needs no network.
#
#   bash scripts/build-docs.sh            # build and check
#   bash scripts/build-docs.sh --setup    # pip install docs/requirements.txt's
#                                         # pins that are missing, and stop
set -euo pipefail
cd "$(dirname "$0")/.."

missing_requirements() {
  python3 - <<'PY'
from importlib.metadata import PackageNotFoundError, version
for line in open("docs/requirements.txt"):
    line = line.split("#")[0].strip()
    if line:
        name, _, pin = line.partition("==")
        try:
            found = version(name)
        except PackageNotFoundError:
            found = None
        if found != pin:
            print(line)
PY
}

if [[ ${1:-} == --setup ]]; then
  missing=$(missing_requirements)
  if [[ -n $missing ]]; then
    echo "build-docs: pip installing" $missing
    # shellcheck disable=SC2086
    python3 -m pip install --quiet $missing
  fi
  exit 0
fi

missing=$(missing_requirements)
if [[ -n $missing ]]; then
  echo "build-docs: error: missing" $missing "(bash scripts/build-docs.sh --setup installs them)" >&2
  exit 1
fi
export NO_MKDOCS_2_WARNING=1   # mkdocs-material's notice about its successor
site_dir=${DOCS_SITE_DIR:-site}   # where to build (the test builds into a temporary one)
python3 -m mkdocs build --strict --quiet --site-dir "$site_dir"
python3 scripts/check_docs_links.py "$site_dir"
