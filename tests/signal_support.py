"""Children that Ctrl-C can interrupt however the suite was started."""

from __future__ import annotations

import signal


def sigint_as_usual() -> None:
    """A `preexec_fn`: SIGINT back to its default in the child. A suite started as a background job
    (`nohup … &`) runs with SIGINT ignored, an ignored signal stays ignored across exec, and Python
    then installs no KeyboardInterrupt handler: a Ctrl-C test would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
