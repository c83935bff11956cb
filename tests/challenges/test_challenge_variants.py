"""The variants as patches (issue #35): a planted bug or another style that is the reference
solution with a small change is stored as meta/variants/<name>.patch, a unified diff against
solutions/<id>.py, and applied strictly: a stale patch is refused, naming its file and hunk."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quizforge.challenges import challenge_ids, load_challenge, read_challenge
from quizforge.challenges.variants import apply_patch, make_patch
from quizforge.datafiles import ContentError

REPO = Path(__file__).resolve().parents[2]
PATCHES = sorted(REPO.glob("exercises/*/meta/variants/*.patch"))
SOLUTION = "def f(x):\n    a = x + 1\n    b = a * 2\n    c = b - 3\n    return c\n"


def test_many_variants_are_patches():
    assert len(PATCHES) >= 60


@pytest.mark.parametrize("patch", PATCHES, ids=lambda p: f"{p.parents[2].name}/{p.stem}")
def test_every_patch_applies_to_the_current_solution_and_changes_it(patch):
    challenge = load_challenge(patch.parents[2].name)
    solution = challenge.solution.read_text(encoding="utf-8")
    text = apply_patch(solution, patch.read_text(encoding="utf-8"), patch, f"solutions/{challenge.id}.py",
                       f"{patch.stem}.py")
    assert text != solution, "a variant that changes nothing plants nothing"
    assert not (patch.parent / f"{patch.stem}.py").exists(), "a variant is a .py or a .patch, not both"
    # What the challenge hands out is that text, and a patch stays small: the change, not a copy.
    kind = patch.stem.split("_", 1)[0]
    assert [v.text for v in challenge.variants(kind) if v.name == patch.stem] == [text]
    changed = [line for line in patch.read_text().splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert len(changed) < len(solution.splitlines()) / 2


def test_every_variant_is_read_with_its_name_and_text(tmp_path):
    names = set()
    for challenge_id in challenge_ids():
        for variant in load_challenge(challenge_id).variants("bug") + load_challenge(challenge_id).variants("ok"):
            assert variant.challenge_id == challenge_id and variant.source.stem == variant.name
            assert variant.kind in ("bug", "ok") and variant.text.endswith("\n")
            written = variant.write_to(tmp_path / challenge_id)
            assert written == tmp_path / challenge_id / f"{variant.name}.py" and written.read_text() == variant.text
            names.add(f"{challenge_id}/{variant.name}")
    assert "softmax/bug_global_max" in names and "multi_head_attention/bug_mask_ignored" in names


def test_a_patch_round_trips_and_may_begin_with_a_comment():
    changed = SOLUTION.replace("a * 2", "a * 3").replace("    return c\n", "    c += 1\n    return c\n")
    patch = make_patch(SOLUTION, changed, "solutions/f.py", "bug_x.py", comment="Bug: two changes.")
    assert patch.startswith("# Bug: two changes.\n--- solutions/f.py\n+++ bug_x.py\n")
    assert apply_patch(SOLUTION, patch, "bug_x.patch", "solutions/f.py", "bug_x.py") == changed
    first_line = make_patch(SOLUTION, "# added\n" + SOLUTION, "solutions/f.py", "ok_y.py")
    assert apply_patch(SOLUTION, first_line, "ok_y.patch", "solutions/f.py", "ok_y.py") == "# added\n" + SOLUTION
    # A blank context line whose leading space an editor trimmed is still a blank context line.
    blank = "x = 1\n\ny = 2\n"
    trimmed = make_patch(blank, blank.replace("y = 2", "y = 3"), "solutions/f.py", "bug_x.py").replace("\n \n", "\n\n")
    assert "\n\n" in trimmed and apply_patch(blank, trimmed, "bug_x.patch", "solutions/f.py", "bug_x.py") == "x = 1\n\ny = 3\n"


def test_a_patch_whose_context_does_not_match_is_refused_naming_file_and_hunk():
    patch = make_patch(SOLUTION, SOLUTION.replace("b - 3", "b - 4"), "solutions/f.py", "bug_x.py")
    moved_on = SOLUTION.replace("b = a * 2", "b = a * 5")  # the solution changed since the patch was made
    with pytest.raises(ContentError) as caught:
        apply_patch(moved_on, patch, "exercises/f/meta/variants/bug_x.patch", "solutions/f.py", "bug_x.py")
    assert str(caught.value) == ("exercises/f/meta/variants/bug_x.patch: hunk 1 (@@ -2,4 +2,4 @@) does not match "
                                 "solutions/f.py: its line 3 is '    b = a * 5\\n', the patch expects '    b = a * 2\\n'")
    # No offset, no fuzz: the same lines one line further down are not good enough either.
    with pytest.raises(ContentError, match=r"hunk 1 \(@@ -2,4 \+2,4 @@\) does not match solutions/f\.py"):
        apply_patch("# moved\n" + SOLUTION, patch, "bug_x.patch", "solutions/f.py", "bug_x.py")


@pytest.mark.parametrize(("patch", "error"), [
    ("no diff here\n", "not a unified diff"),
    ("--- solutions/g.py\n+++ bug_x.py\n@@ -1 +1 @@\n-def f(x):\n+def g(x):\n", "should name solutions/f.py"),
    ("--- solutions/f.py\n+++ bug_x.py\n@@ -1,2 +1,2 @@\n-def f(x):\n+def g(x):\n", "hunk 1 (@@ -1,2 +1,2 @@) has 1 old"),
    ("--- solutions/f.py\n+++ bug_x.py\nstray\n", "line 3: expected a hunk header"),
    ("--- solutions/f.py\n+++ bug_x.py\n@@ -4 +4 @@\n-    c = b - 3\n+    c = b\n@@ -2 +2 @@\n-    a = x + 1\n+    a = x\n",
     "hunk 2 (@@ -2 +2 @@) starts before the end of the hunk above it"),
])
def test_a_malformed_patch_is_refused(patch, error):
    with pytest.raises(ContentError, match=r"^bug_x\.patch: .*" + error.replace("(", r"\(").replace(")", r"\)")
                       .replace("+", r"\+")):
        apply_patch(SOLUTION, patch, "bug_x.patch", "solutions/f.py", "bug_x.py")


@pytest.fixture
def checkout(tmp_path) -> Path:
    """A copy of the softmax challenge with its solution beside, as in a checkout: exercises/, solutions/."""
    shutil.copytree(REPO / "exercises" / "softmax", tmp_path / "exercises" / "softmax",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "solutions").mkdir()
    shutil.copy(REPO / "solutions" / "softmax.py", tmp_path / "solutions" / "softmax.py")
    return tmp_path


def test_a_bug_may_be_a_patch_and_a_stale_one_fails_loudly(checkout):
    folder, solution = checkout / "exercises" / "softmax", checkout / "solutions" / "softmax.py"
    variants = folder / "meta" / "variants"
    (variants / "bug_global_max.py").unlink()
    text = solution.read_text()
    buggy = text.replace("keepdim=True", "keepdim=False", 1)
    assert buggy != text
    (variants / "bug_global_max.patch").write_text(make_patch(text, buggy, "solutions/softmax.py", "bug_global_max.py"))
    challenge = read_challenge(folder)
    assert [v.text for v in challenge.variants("bug") if v.name == "bug_global_max"] == [buggy]
    solution.write_text(text.replace("keepdim=True", "keepdim = True", 1))
    with pytest.raises(ContentError, match=r"bug_global_max\.patch: hunk 1 .* does not match solutions/softmax\.py"):
        read_challenge(folder).variants("bug")
    # A name that is both a .py and a .patch is refused, as is a patch without its solution.
    (variants / "bug_global_max.py").write_text(buggy)
    with pytest.raises(ContentError, match=r"bug_global_max is both bug_global_max\.patch and bug_global_max\.py"):
        read_challenge(folder)
    (variants / "bug_global_max.py").unlink()
    solution.unlink()
    with pytest.raises(ContentError, match=r"a patch against solutions/softmax\.py, which is not at"):
        read_challenge(folder).variants("bug")
