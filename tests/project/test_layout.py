"""The README's Layout section is the map of the tree: every package and module at the top of
quizforge/ is on it (test_challenge_layout.py checks that everything it names exists)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _layout_block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Layout", 1)[1]
    return re.search(r"```\n(.*?)```", section, flags=re.S).group(1)


def _named_paths(block: str) -> set[str]:
    """Paths as the block writes them: 'quizforge/bank/', and 'quizforge/a.py b.py' for several
    modules of one folder on one line."""
    paths = set()
    for line in block.splitlines():
        words = line.split()
        if not words or not ("/" in words[0] or words[0].endswith(".py")):
            continue
        folder = words[0].rsplit("/", 1)[0] + "/" if "/" in words[0].rstrip("/") else ""
        paths.add(words[0])
        for word in words[1:]:
            if re.fullmatch(r"\w+\.py", word):
                paths.add(folder + word)
            elif re.fullmatch(r"[\w/]+/", word):
                paths.add(word)
            else:
                break
    return paths


def test_every_top_level_package_and_module_is_on_the_map():
    named = _named_paths(_layout_block())
    assert "quizforge/answers/" in named and "quizforge/render/" in named and "quizforge/torch_import.py" in named
    entries = [p for p in (ROOT / "quizforge").iterdir()
               if not p.is_symlink() and p.name not in ("__init__.py", "__main__.py", "__pycache__")
               and (p.is_dir() or p.suffix == ".py")]
    unlisted = sorted(p.name for p in entries
                      if f"quizforge/{p.name}{'/' if p.is_dir() else ''}" not in named)
    assert unlisted == []
