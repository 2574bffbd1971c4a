# SPDX-License-Identifier: Apache-2.0
"""docs/python.md stays true: every ```python block of the page runs as
one doctest session (blocks in order, names carried over), and each
output must match what the page shows, literally (repr where the page
shows an expression's value, the exception line where it raises). The
blocks that use numpy (the kernels) run when numpy is installed
(scripts/test_python.sh installs it); without numpy the others run and
the test then reports itself skipped, naming what was left out."""

import doctest
import os

import pytest

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "docs", "python.md")


def python_blocks(text, numpy=True):
    """Markdown "text" with every line outside its ```python blocks
    blanked (so doctest's line numbers are the page's); without "numpy",
    the blocks that use numpy (the kernel examples) are blanked too."""
    lines = text.split("\n")
    out = [""] * len(lines)
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[i + 1:j]
        uses_numpy = any("np." in b or "import numpy" in b for b in body)
        if lines[i] == "```python" and (numpy or not uses_numpy):
            out[i + 1:j] = body
        i = j + 1
    return "\n".join(out)


def test_python_md_examples_are_true(tmp_path, monkeypatch):
    if not os.path.exists(PAGE):
        pytest.skip(f"{PAGE} not found (tests run outside the source tree)")
    try:
        import numpy  # noqa: F401
        has_numpy = True
    except ImportError:  # the other examples still run
        has_numpy = False
    monkeypatch.setenv("AXE_KERNEL_CACHE", str(tmp_path / "kernels"))
    with open(PAGE) as f:
        source = python_blocks(f.read(), has_numpy)
    assert source.count(">>>") >= 50
    test = doctest.DocTestParser().get_doctest(source, {}, "python.md",
                                               PAGE, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} examples of docs/python.md"
    if not has_numpy:
        pytest.skip("numpy is not installed: the other examples of "
                    "docs/python.md passed, its kernel examples (numpy "
                    "arrays) were not run")
