# SPDX-License-Identifier: Apache-2.0
"""docs/python.md stays true: every ```python block of the page runs as
one doctest session (blocks in order, names carried over), and each
output must match what the page shows, literally (repr where the page
shows an expression's value, the exception line where it raises)."""

import doctest
import os

import pytest

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                    "docs", "python.md")


def python_blocks(text):
    """Markdown "text" with every line outside its ```python blocks
    blanked (so doctest's line numbers are the page's)."""
    out, inside = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            inside = line == "```python"
            out.append("")
        else:
            out.append(line if inside else "")
    return "\n".join(out)


def test_python_md_examples_are_true():
    if not os.path.exists(PAGE):
        pytest.skip(f"{PAGE} not found (tests run outside the source tree)")
    with open(PAGE) as f:
        source = python_blocks(f.read())
    assert source.count(">>>") >= 50
    test = doctest.DocTestParser().get_doctest(source, {}, "python.md",
                                               PAGE, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} examples of docs/python.md"
