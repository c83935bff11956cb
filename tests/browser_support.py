"""Starts Debian's Chromium under Playwright for the browser tests, or says why it can't.

CI installs `chromium` with apt-get (see .ci/run); elsewhere the tests skip with the reason.
"""
from __future__ import annotations

import contextlib
import shutil
import tempfile

import pytest

CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps dialling Google on a closed network.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def why_no_browser() -> str | None:
    """The reason the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    if shutil.which(CHROMIUM) is None:
        return f"Chromium is not at {CHROMIUM} (apt-get install chromium)"
    return None


@contextlib.contextmanager
def chromium_browser():
    """A headless Chromium for the length of the block; skips the test when there is none."""
    reason = why_no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="quizforge-chromium-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1366, "height": 768},
        )
        try:
            yield context
        finally:
            context.close()
