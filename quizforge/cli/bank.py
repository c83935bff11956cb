"""`quiz bank`, `quiz ask`, `quiz explain`, `quiz check`: the question bank from the command line."""

from __future__ import annotations

import click

from quizforge.cli.output import emit_json
from quizforge.errors import InputError
from quizforge.practice.open_papers import refuse_open_mock_question


@click.group()
def bank() -> None:
    """The question bank's templates."""


@bank.command("list", short_help="List the templates.")
@click.option("--topic", help="Only this topic (dims, params, flops, memory, attention, softmax, positional, norms, "
              "sampling, concepts, matrices).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def bank_list(topic, as_json) -> None:
    """List the templates with their topic, kind, marks and difficulty, the GATE DA syllabus
    topics each exercises, and which are fixed-fact (too few distinct questions for per-student
    variants)."""
    from quizforge.bank.registry import all_templates
    from quizforge.bank.syllabus import syllabus_tags
    from quizforge.bank.template import TOPICS

    if topic is not None and topic not in TOPICS:
        from quizforge.suggest import did_you_mean

        raise InputError(f"unknown topic {topic!r}{did_you_mean(topic, TOPICS)}; topics: {', '.join(TOPICS)}")
    templates = [t for t in all_templates() if topic is None or t.topic == topic]
    if as_json:
        emit_json([{"id": t.id, "topic": t.topic, "kind": t.kind, "marks": t.marks, "difficulty": t.difficulty,
                    "title": t.title, "gate_da_syllabus": list(syllabus_tags(t.id)),
                    "fixed_fact": t.fixed_fact or None} for t in templates])
        return
    from quizforge.render.question import templates_table
    from quizforge.render import console

    console().print(templates_table(templates))


def _seed(value: str | None) -> int | None:
    if value is None:
        return None
    text = value.strip().lower()
    try:
        seed = int(text, 16) if text.startswith("0x") else int(text)
    except ValueError:
        raise InputError(f"--seed {value!r} is not a whole number (0..65535, or hex like 0x7f3a)") from None
    return seed


@click.command()
@click.argument("selector", required=False, metavar="[TOPIC|TEMPLATE|QUESTION-ID]")
@click.option("--seed", help="Question seed, 0..65535 (or hex, 0x7f3a); the same seed gives the same question.")
@click.option("--json", "as_json", is_flag=True, help="Print the question as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the question as Markdown with LaTeX math.")
@click.option("--with-answer", is_flag=True, help="Include the answer and the worked solution.")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Where history is kept (an open mock's questions are refused)  [env: QUIZFORGE_HOME]")
def ask(selector, seed, as_json, as_markdown, with_answer, data_dir) -> None:
    """Draw one question, from a topic or template or from the whole bank, or show the one a
    question ID names.

    \b
    Examples:
      quiz ask params
      quiz ask attention.weight --seed 42 --with-answer
      quiz ask params.projections-7f3a
    """
    from quizforge.bank.registry import draw
    from quizforge.render import Progress

    with Progress(quiet=as_json or as_markdown) as progress:  # a template may import torch: seconds
        progress.step(f"drawing a question{f' from {selector}' if selector else ''}")
        question = draw(selector, _seed(seed))
    if with_answer:
        refuse_open_mock_question(question.id, "its answer is shown", data_dir)
    if as_json:
        from quizforge.bank.export import question_json

        emit_json(question_json(question, with_answer))
        return
    if as_markdown:
        from quizforge.bank.export import question_markdown

        click.echo(question_markdown(question, with_answer))
        return
    from quizforge.render.question import question_panel, solution_view
    from quizforge.render import console as make_console

    console = make_console()
    console.print(question_panel(question))
    if with_answer:
        console.print(solution_view(question))
    else:
        from quizforge.render.terminal import Commands

        console.print(Commands(("Answer with", f"quiz check {question.id} ANSWER"),
                               ("solution", f"quiz explain {question.id}")))


@click.command()
@click.argument("question_id")
@click.option("--json", "as_json", is_flag=True, help="Print the question, answer and solution as JSON.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print Markdown with LaTeX math.")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Where history is kept (an open mock's questions are refused)  [env: QUIZFORGE_HOME]")
def explain(question_id, as_json, as_markdown, data_dir) -> None:
    """The worked solution of a question, regenerated from its ID."""
    refuse_open_mock_question(question_id, "its worked solution is shown", data_dir)
    from quizforge.bank.registry import question as lookup
    from quizforge.render import Progress

    with Progress(quiet=as_json or as_markdown) as progress:  # regenerating it may import torch: seconds
        progress.step(f"regenerating {question_id} and its worked solution")
        question = lookup(question_id)
    if as_json:
        from quizforge.bank.export import question_json

        emit_json(question_json(question, with_answer=True))
        return
    if as_markdown:
        from quizforge.bank.export import question_markdown

        click.echo(question_markdown(question, with_answer=True))
        return
    from quizforge.render.question import question_panel, solution_view
    from quizforge.render import console as make_console

    console = make_console()
    console.print(question_panel(question))
    console.print(solution_view(question))


# A negative number is an answer, not a flag: '-0.737' goes to ANSWER instead of "No such option".
# ANSWER takes every word left, so `quiz check ID -- -0.737 --json` and `quiz check ID 6 553 600` both work.
@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("question_id")
@click.argument("answer", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON (also after the answer, or after --).")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Where history is kept (an open mock's questions are refused)  [env: QUIZFORGE_HOME]")
def check(question_id, answer, as_json, data_dir) -> None:
    """Grade one answer (GATE marking) and name the mistake behind a wrong one.

    \b
    Examples:
      quiz check params.projections-7f3a '4*1280^2'
      quiz check dims.shapes-7f3a b
      quiz check positional.pe_value-0007 -0.737
      quiz check positional.pe_value-0007 -- -0.737 --json
    """
    from quizforge.answers.check import answer_text, check_answer
    from quizforge.bank.registry import question as lookup

    words = [w for w in answer if w != "--json"]
    as_json = as_json or len(words) < len(answer)
    if not words:
        raise InputError("no answer given: quiz check QUESTION-ID ANSWER [--json]")
    refuse_open_mock_question(question_id, "answers to it are checked", data_dir)
    question = lookup(question_id)
    verdict = check_answer(question, answer_text(question, words))
    if as_json:
        emit_json(verdict.to_json())
        return
    from quizforge.render.question import verdict_view
    from quizforge.render import console

    console().print(verdict_view(verdict))
