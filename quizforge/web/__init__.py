"""The GATE mock in a browser: a local server in front of the same MockEngine and history.

Needs the optional `[web]` extra (Starlette, uvicorn, Jinja2); the terminal product does not.
"""

from __future__ import annotations

import importlib.util

WEB_EXTRA = ("starlette", "uvicorn", "jinja2")
INSTALL_HINT = 'the browser mock needs the web extra: pip install -e ".[web]"'


def missing_web_extra() -> str | None:
    """The one-line install hint when a package of the [web] extra is missing, else None."""
    missing = [name for name in WEB_EXTRA if importlib.util.find_spec(name) is None]
    return f"{INSTALL_HINT} (missing: {', '.join(missing)})" if missing else None
