"""The README's list of coding challenges, rendered from the challenge folders.

    python -m quizforge.maintainer.readme_challenges           # rewrite README.md's list
    python -m quizforge.maintainer.readme_challenges --check   # exit 1 if it is out of date

Each challenge's line is its `summary` in exercises/<id>/meta/challenge.toml, so adding a
challenge is its folder (and its solution): the README follows from this command, and a test
fails until it has been run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from quizforge.challenges import challenge_ids, load_challenge

README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN = ("<!-- the list of challenges: generated from exercises/*/meta/challenge.toml "
         "by python -m quizforge.maintainer.readme_challenges -->")
END = "<!-- end of the list of challenges -->"
NUMBERS = ("Zero One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Thirteen Fourteen Fifteen "
           "Sixteen Seventeen Eighteen Nineteen Twenty Twenty-one Twenty-two Twenty-three Twenty-four "
           "Twenty-five Twenty-six Twenty-seven Twenty-eight Twenty-nine Thirty").split()


def render() -> str:
    """The list as Markdown: a count in words, then one line per challenge, in `quiz challenges
    list`'s order."""
    ids = challenge_ids()
    count = NUMBERS[len(ids)] if len(ids) < len(NUMBERS) else f"{len(ids):,}"
    lines = [f"{count} pieces of a transformer and its training to implement yourself, one folder each:", ""]
    lines += [f"- `{cid}`: {load_challenge(cid).summary};" for cid in ids]  # the README's sentence goes on
    return "\n".join(lines) + "\n"


def _parts(text: str) -> tuple[str, str, str]:
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise SystemExit(f"{README}: the list of challenges must sit between\n{BEGIN}\nand\n{END}")
    before, rest = text.split(BEGIN, 1)
    inside, after = rest.split(END, 1)
    return before, inside, after


def listed(text: str) -> str:
    """What README.md holds between the markers."""
    return _parts(text)[1].strip("\n") + "\n"


def rewritten(text: str) -> str:
    before, _, after = _parts(text)
    return f"{before}{BEGIN}\n{render()}{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m quizforge.maintainer.readme_challenges",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether README.md's list is up to date")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    new = rewritten(text)
    if new == text:
        print("README.md: the list of challenges is up to date")
        return 0
    if args.check:
        print("README.md: the list of challenges is out of date: run python -m quizforge.maintainer.readme_challenges")
        return 1
    README.write_text(new, encoding="utf-8")
    print("README.md: rewrote the list of challenges")
    return 0


if __name__ == "__main__":
    sys.exit(main())
