"""The keys of an open mock's questions stay hidden until it is submitted.

`quiz explain`, `quiz ask --with-answer` and `quiz check` would print the key (or the verdict)
of a question in a mock that is still running or paused; they ask here first. Where there is
no history file yet, none is made.
"""

from __future__ import annotations

import os
from pathlib import Path

from quizforge.errors import InputError


def _same_question(a: str, b: str) -> bool:
    """Whether two IDs name one question ('dims.d_k-0001' and 'DIMS.D_K-1' do)."""
    from quizforge.bank.registry import parse_question_id

    try:
        (ta, sa), (tb, sb) = parse_question_id(a), parse_question_id(b)
    except InputError:
        return False
    return ta.id == tb.id and sa == sb


def open_mock_holding(history_file: Path, question_id: str):
    """The open (running or paused) mock whose paper holds `question_id`, or None."""
    from quizforge.practice.store import read_history

    with read_history(history_file) as history:
        paused = history.paused_mocks()
    return next((m for m in paused if any(_same_question(question_id, q) for q in m.paper)), None)


def refuse_open_mock_question(question_id: str, what: str, data_dir: str | os.PathLike | None = None) -> None:
    """InputError when `question_id` is in a mock not yet submitted; `what` is what was asked for."""
    from quizforge.practice.paths import history_path

    mock = open_mock_holding(history_path(data_dir), question_id)
    if mock is not None:
        number = next(i for i, q in enumerate(mock.paper, 1) if _same_question(question_id, q))
        raise InputError(f"{question_id} is question {number} of mock #{mock.number}, which is still open: "
                         f"{what} once it is submitted (quiz practice --resume {mock.number})")
