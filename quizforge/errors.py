"""Errors that carry a one-line message meant for the user, not a traceback."""


class InputError(ValueError):
    """Bad user input: a size, a preset name, a matrix. The CLI prints it and exits with 2.

    `param` names the library parameter the bad value came in by (e.g. "topic"), when there
    is one: the message speaks of the library's terms, and the CLI names its own flag."""

    def __init__(self, message: str = "", *, param: str | None = None):
        super().__init__(message)
        self.param = param
