"""Finding templates and questions: by template id, topic, or question ID."""

from __future__ import annotations

import importlib
import re
import secrets

from quizforge.bank.question import Question
from quizforge.bank.seeds import ROOT
from quizforge.bank.template import REGISTRY, TOPICS, Template
from quizforge.bank.templates import MODULES
from quizforge.errors import InputError
from quizforge.suggest import did_you_mean

_QUESTION_ID = re.compile(r"(?P<template>[a-z]+\.[a-z0-9_]+)-(?P<seed>[0-9a-f]{4})")
_loaded = False


def _load() -> None:
    global _loaded
    if not _loaded:
        for name in MODULES:
            importlib.import_module(f"quizforge.bank.templates.{name}")
        _loaded = True


def all_templates() -> list[Template]:
    _load()
    return sorted(REGISTRY.values(), key=lambda t: (list(TOPICS).index(t.topic), t.id))


def get_template(template_id: str) -> Template:
    _load()
    if template_id not in REGISTRY:
        hint = did_you_mean(template_id, sorted(REGISTRY))
        raise InputError(f"unknown template {template_id!r}{hint}; run `quiz bank list`")
    return REGISTRY[template_id]


def templates_for(selector: str | None) -> list[Template]:
    """Templates matching a topic id, a template id, or everything for None."""
    if not selector:
        return all_templates()
    if selector in TOPICS:
        return [t for t in all_templates() if t.topic == selector]
    _load()
    if selector not in REGISTRY:
        hint = did_you_mean(selector, [*TOPICS, *sorted(REGISTRY)])
        raise InputError(f"unknown topic or template {selector!r}{hint}; topics: {', '.join(TOPICS)} "
                         "(templates: `quiz bank list`)")
    return [REGISTRY[selector]]


def parse_question_id(question_id: str) -> tuple[Template, int]:
    m = _QUESTION_ID.fullmatch(question_id.strip().lower()) if isinstance(question_id, str) else None
    if m is None:
        raise InputError(f"{question_id!r} is not a question ID (they look like params.projections-7f3a)")
    return get_template(m["template"]), int(m["seed"], 16)


def question(question_id: str) -> Question:
    template, seed = parse_question_id(question_id)
    return template.question(seed)


def draw(selector: str | None = None, seed: int | None = None) -> Question:
    """A question from a topic or template, with a seed the same one every time; or the
    question a question ID names, as `quiz explain` takes it."""
    if selector and _QUESTION_ID.fullmatch(selector.strip().lower()):
        if seed is not None:
            raise InputError(f"{selector.strip()} is a question ID, which names its seed: drop --seed")
        return question(selector)
    if seed is not None and not 0 <= seed <= 0xFFFF:
        raise InputError(f"seed {seed} is out of range (0..65535)", param="seed")
    candidates = templates_for(selector)
    if seed is None:
        return secrets.choice(candidates).question(secrets.randbelow(0x10000))
    if len(candidates) == 1:
        return candidates[0].question(seed)

    stream = ROOT.child("draw").child(selector or "all").child(f"{seed:04x}").stream("template")
    return stream.choice(candidates).question(seed)
