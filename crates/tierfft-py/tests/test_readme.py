"""The Python examples of the READMEs, run as written (they must stay true)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
READMES = [ROOT / "README.md", ROOT / "crates" / "tierfft-py" / "README.md"]


def blocks():
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
            yield pytest.param(code, id=f"{readme.parent.name}-{i}")


@pytest.mark.parametrize("code", list(blocks()))
def test_readme_example_runs(code):
    exec(compile(code, "<readme>", "exec"), {})
