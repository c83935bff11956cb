"""A student's paper and its answer key, as Markdown with $…$ math (the bank's own format)."""

from __future__ import annotations

from quizforge.bank.steps import plural
from quizforge.problemsets.spec import SetSpec
from quizforge.problemsets.variants import Paper, Slot


def _header(spec: SetSpec, paper: Paper, what: str) -> list[str]:
    student = paper.student
    total = sum(q.marks for q in paper.questions)
    lines = [f"# {spec.title}{what}", "",
             f"**Name:** {student.name or '______________________'}  ",
             f"**Roll number:** {student.id}  ",
             f"**Time:** {spec.duration} minutes · **Total:** {total} {plural(total, 'mark')} · "
             f"{len(paper.questions)} {plural(len(paper.questions), 'question')}", ""]
    if spec.instructions:
        lines += [spec.instructions, ""]
    lines += ["Marking: a wrong MCQ answer costs 1/3 of its marks; MSQ and NAT carry no negative marks.", ""]
    return lines


def _question_md(question, number: int, with_answer: bool) -> list[str]:
    from quizforge.bank.export import question_markdown

    body = question_markdown(question, with_answer=with_answer).split("\n")
    # The bank's own heading names the question; a paper numbers it and keeps the ID for `quiz explain`.
    body[0] = f"### Q{number}. {question.title}" + (f" `{question.id}`" if with_answer else "")
    return body + [""]


def paper_markdown(spec: SetSpec, slots: list[Slot], paper: Paper) -> str:
    lines = _header(spec, paper, "")
    section = None
    for slot, question in zip(slots, paper.questions):
        if slot.section != section:
            section = slot.section
            lines += [f"## {section}", ""]
        lines += _question_md(question, slot.number, with_answer=False)
    return "\n".join(lines).rstrip() + "\n"


def key_markdown(spec: SetSpec, slots: list[Slot], paper: Paper) -> str:
    lines = _header(spec, paper, " — answer key")
    lines += ["Each question's ID regenerates it, with this worked solution: `quiz explain ID`.", ""]
    for slot, question in zip(slots, paper.questions):
        lines += _question_md(question, slot.number, with_answer=True)
    return "\n".join(lines).rstrip() + "\n"
