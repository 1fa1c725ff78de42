"""The documentation's examples run: every ```python block of README.md and docs/**/*.md is
executed, so an example cannot rot when an API changes.

A block runs on its own (its imports included) in a fresh namespace, in a temporary folder (files
it writes land there) with ``DPCDA_HOME`` there too (no job store of the user's is touched).
A block that loads a dataset other than ``digits`` (``load_dataset("mnist")``, ...) skips, naming
``DPCDA_DATA_DIR``, where the files are missing. An HTML comment on the line right before the
fence says how to treat the block:

- ``<!-- no-test: why -->`` (or ``<!-- test: skip ... -->``): not run (e.g. a fragment);
- ``<!-- test: slow ... -->``: run in the ``slow`` lane only (``pytest -m slow``).

Fences other than ``python`` (``bash``, output, ...) are not run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
DIRECTIVE = re.compile(r"^\s*<!--\s*(no-test|test:\s*(skip|slow))\b.*-->\s*$")
LOADS = re.compile(r"""load_dataset\(\s*["']([\w-]+)["']""")


def python_blocks(path: Path) -> list[tuple[int, str, str | None]]:
    """(first line number, code, directive) of every ```python block of a Markdown file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        if lang in ("python", "py", "python3"):
            d = DIRECTIVE.match(lines[i - 1]) if i > 0 else None
            directive = None
            if d:
                directive = "skip" if d.group(1) == "no-test" else d.group(2)
            blocks.append((i + 1, "\n".join(lines[i + 1:j]) + "\n", directive))
        i = j + 1
    return blocks


def _params():
    for path in DOC_FILES:
        rel = path.relative_to(REPO).as_posix()
        for line, code, directive in python_blocks(path):
            marks = []
            if directive == "skip":
                marks.append(pytest.mark.skip(reason="marked not runnable in the document"))
            elif directive == "slow":
                marks.append(pytest.mark.slow)
            yield pytest.param(rel, line, code, id=f"{rel}:{line}", marks=marks)


@pytest.mark.parametrize("doc, line, code", list(_params()))
def test_doc_block_runs(doc, line, code, real_data, tmp_path, monkeypatch):
    for name in sorted(set(LOADS.findall(code)) - {"digits"}):
        real_data(name)  # skips, naming DPCDA_DATA_DIR, when the files are missing
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DPCDA_HOME", str(tmp_path / "home"))
    exec(compile(code, f"{doc}:{line}", "exec"), {"__name__": "__doc_example__"})


def test_the_parser_finds_the_quickstart_and_the_directives(tmp_path):
    blocks = python_blocks(REPO / "README.md")
    assert any("generate_from_dataset" in code for _, code, _ in blocks)  # the library quickstart
    md = tmp_path / "x.md"
    md.write_text("text\n\n```python\na = 1\n```\n\n<!-- no-test: a fragment -->\n```python\nb(\n```\n"
                  "<!-- test: slow (long) -->\n```python\nc = 3\n```\n```bash\nls\n```\n"
                  "````python\nd = '```'\n````\n")
    assert python_blocks(md) == [(3, "a = 1\n", None), (8, "b(\n", "skip"), (12, "c = 3\n", "slow"),
                                 (18, "d = '```'\n", None)]
