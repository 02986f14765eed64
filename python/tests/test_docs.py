"""The Python docs run as written: every example under ``examples/python/`` prints exactly its
``.out`` file, and every ```` ```python ```` block of ``README.md`` and ``docs/*.md`` runs and,
where a plain ```` ``` ```` block follows it, prints exactly that. ``BLESS=1`` rewrites the
expected text."""

import contextlib
import io
import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import REPO

EXAMPLES = sorted((REPO / "examples" / "python").glob("*.py"))
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```\n(?:\n```\n(.*?)```\n)?", re.S)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_print_their_output(example):
    got = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, check=True,
                         cwd=REPO).stdout
    want_file = example.with_suffix(".out")
    if os.environ.get("BLESS") == "1":
        want_file.write_text(got)
    assert got == want_file.read_text()


def python_blocks():
    for doc in DOCS:
        for m in BLOCK.finditer(doc.read_text()):
            yield doc, m


def test_there_are_python_docs():
    assert EXAMPLES and any(True for _ in python_blocks())


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_python_blocks_print_what_follows_them(doc):
    text = doc.read_text()
    blessed = text
    for m in reversed(list(BLOCK.finditer(text))):
        code, want = m.group(1), m.group(2)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{doc.name}:python block", "exec"), {"__name__": "__doc__"})
        if want is None:
            continue
        if os.environ.get("BLESS") == "1":
            blessed = blessed[:m.start(2)] + out.getvalue() + blessed[m.end(2):]
        else:
            assert out.getvalue() == want, f"{doc.name}: a python block prints\n{out.getvalue()}"
    if blessed != text:
        doc.write_text(blessed)
