"""Errors that carry a one-line message meant for the user, not a traceback."""


class InputError(ValueError):
    """Bad user input: a size, a preset name, a matrix. The CLI prints it and exits with 2."""
