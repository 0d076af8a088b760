"""Every ```python block in README.md and docs/*.md runs, so the docs cannot drift from the code.

Blocks of one page run in order in one shared namespace, inside a fresh temporary directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def _blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


PAGES = [
    page for page in sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")]) if _blocks(page)
]


def test_the_main_pages_have_runnable_examples() -> None:
    """README and the guides carry code that this module runs."""
    names = {page.name for page in PAGES}
    assert {"README.md", "quickstart.md", "concepts.md", "navigator.md", "agent-tools.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_code_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's Python blocks execute without error, in order."""
    blocks = _blocks(page)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOCSEARCH_HOME", os.fspath(tmp_path / "home"))
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for number, source in enumerate(blocks, start=1):
        code = compile(source, f"{page.name} block {number}", "exec")
        exec(code, namespace)


MAP_LINE = re.compile(r"^- `([\w/]+(?:\.py|/))`: ", re.MULTILINE)


def test_the_module_map_names_every_module_once() -> None:
    """docs/concepts.md's "Where things live" lists every module of src/tocsearch (a package
    by its folder) and nothing that is not there, so the map cannot go stale."""
    text = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")
    mapped = MAP_LINE.findall(text.split("## Where things live", 1)[1])
    source = ROOT / "src" / "tocsearch"
    modules = {
        path.parent.relative_to(source).as_posix() + "/"
        if path.name == "__init__.py" and path.parent != source
        else path.relative_to(source).as_posix()
        for path in source.rglob("*.py")
    }
    assert len(mapped) == len(set(mapped))
    assert sorted(modules - set(mapped)) == [], "add a line for each to docs/concepts.md"
    assert sorted(set(mapped) - modules) == []
