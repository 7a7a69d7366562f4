"""mkdocs hook (mkdocs.yml `hooks:`): pyptx's docstrings are written in
reStructuredText's small habits, which Markdown prints literally. On each
page's HTML: a role (``:mod:`pyptx.smem` `` -> ``<code>pyptx.smem</code>``)
loses its ``:mod:`` prefix and, when it names a module of the API reference,
links to that module's page; a paragraph ending in ``::`` (reST's "a
literal block follows") ends in one colon."""
from __future__ import annotations

import os
import re

_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):<code>([^<]+)</code>")
_LITERAL_INTRO = re.compile(r"::(\s*</p>)")


def _reference_pages(config) -> set[str]:
    folder = os.path.join(config["docs_dir"], "reference")
    return {name[:-3] for name in os.listdir(folder) if name.endswith(".md")}


def on_page_content(html, page, config, files):
    modules = _reference_pages(config)
    depth = page.url.count("/")  # "reference/pyptx.kernel/" -> 2: ../../ to the root
    root = "../" * depth

    def role(match):
        name = match.group(1).lstrip("~")
        if name in modules:
            return f'<a href="{root}reference/{name}/"><code>{name}</code></a>'
        return f"<code>{name}</code>"

    return _LITERAL_INTRO.sub(r":\1", _ROLE.sub(role, html))
