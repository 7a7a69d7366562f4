#!/usr/bin/env python3
"""Checks the links of the built docs site: every relative link of every page
in SITE (default site/) names a file of the site, and every #fragment an id
of that page. mkdocs --strict checks the links between Markdown pages; this
also checks the anchors of links into the API reference and links written in
docstrings. External links (http:, https:, mailto:) are not checked: the
build needs no network.

    python3 scripts/check_docs_links.py [SITE]

Prints one line per broken link and exits 1 when there is one."""
from __future__ import annotations

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag in ("a", "link") and attrs.get("href") is not None:
            self.links.append(attrs["href"])
        if tag in ("img", "script") and attrs.get("src"):
            self.links.append(attrs["src"])


def _parse(path: str) -> _Page:
    page = _Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def _target(site: str, page_path: str, url: str) -> str | None:
    """The file a relative URL of page_path names (a directory means its
    index.html), or None for a URL that leaves the site."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:
        return page_path
    path = os.path.normpath(os.path.join(os.path.dirname(page_path), unquote(parts.path)))
    if os.path.isdir(path):
        path = os.path.join(path, "index.html")
    return path


def broken_links(site: str) -> list[str]:
    site = os.path.abspath(site)
    pages: dict[str, _Page] = {}
    for root, _, files in os.walk(site):
        for name in files:
            # 404.html links from the site's root (it is served at any path).
            if name.endswith(".html") and name != "404.html":
                path = os.path.join(root, name)
                pages[path] = _parse(path)
    problems = []
    for path, page in sorted(pages.items()):
        where = os.path.relpath(path, site)
        for url in page.links:
            target = _target(site, path, url)
            if target is None:
                continue
            if not target.startswith(site + os.sep) or not os.path.isfile(target):
                problems.append(f"{where}: link to a missing file: {url}")
                continue
            fragment = urlsplit(url).fragment
            if fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(fragment) not in ids:
                    problems.append(f"{where}: link to a missing anchor: {url}")
    return problems


def main(argv: list[str]) -> int:
    site = argv[1] if len(argv) > 1 else "site"
    if not os.path.isfile(os.path.join(site, "index.html")):
        print(f"check_docs_links: no built site in {site}/", file=sys.stderr)
        return 2
    problems = broken_links(site)
    for line in problems:
        print(line)
    print(f"check_docs_links: {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
