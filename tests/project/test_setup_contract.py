"""The README's commands are the project's contract; CI must run exactly the test one."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if "python3 -m venv" in line]


def test_readme_has_the_two_fresh_machine_commands():
    main_job, tests = _readme_commands()[:2]
    for command in (main_job, tests):
        # the pinned torch must come before the package, or pip resolves an unpinned one
        assert command.index("pip install torch==2.13.0") < command.index("pip install -e")
    assert main_job.endswith("&& quiz practice")   # the main job: a session on the built-in bank
    assert tests.endswith("python -m pytest")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = _readme_commands()[1]
    assert test_command in ci.splitlines()


def test_readme_gives_the_cpu_only_line_and_ci_does_not_need_it():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    cpu_line = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
    assert any(block.strip() == cpu_line for block in blocks)
    assert "CUDA build" in readme and "nvidia-*" in readme   # says what plain PyPI installs
    assert "download.pytorch.org" not in (ROOT / ".ci" / "run").read_text()


def test_every_bench_the_readme_names_exists():
    names = set(re.findall(r"bench/(\w+\.py)", (ROOT / "README.md").read_text()))
    assert names and all((ROOT / "bench" / n).is_file() for n in names), names


def test_readme_says_how_long_the_suite_takes_and_what_the_browser_tests_need():
    """Issue 34 item 14: a new user knows the suite's length, and that Chromium is needed."""
    from browser_support import CHROMIUM, why_no_browser

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "The suite takes about 20 CPU-minutes" in readme
    assert f"The browser tests drive Debian's Chromium at `{CHROMIUM}` (`sudo apt-get install chromium`" in readme
    assert "`python -m pytest -rs` lists every skip with its reason" in readme
    assert "apt-get install -y -q chromium" in (ROOT / ".ci" / "run").read_text()
    reason = why_no_browser()
    assert reason is None or "chromium" in reason.lower()   # a skip names what is missing
