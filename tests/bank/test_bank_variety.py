"""Issue 33 items 6, 7 and 11: a class's worth of distinct questions from every template (or a
fixed-fact mark, which `quiz bank list` shows and `set make` warns of), weak variants rare, and
every template tagged with the GATE DA syllabus topics it exercises."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from bank_draws import questions
from quizforge.bank import registry
from quizforge.bank.syllabus import GATE_DA, in_syllabus, syllabus_tags
from quizforge.cli import cli
from quizforge.problemsets.variants import question_text_key

TEMPLATES = registry.all_templates()
CLASS = 300


def _distinct(template_id: str, n: int = CLASS) -> int:
    return len({question_text_key(q) for q in questions(template_id)[:n]})


@pytest.mark.parametrize("template", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_a_template_gives_a_class_its_own_questions_or_is_marked_fixed_fact(template):
    distinct = _distinct(template.id)
    # The mark is honest both ways: set on every template under 100, and on no other.
    assert (distinct < 100) == bool(template.fixed_fact), (template.id, distinct, template.fixed_fact)


@pytest.mark.parametrize("narrow, wide, at_least", [
    ("params.gpt3_layer", "params.gpt3_shaped_layer", 100), ("params.model", "params.scaled_model", 150),
    ("params.gpt3_table", "params.gpt3_shaped", 250), ("params.transformer_paper", "params.transformer_shaped", 250),
    ("params.ffn", "params.ffn_wide", 100), ("memory.kv_reduction", "memory.kv_reduction_wide", 100),
])
def test_the_preset_and_narrow_templates_keep_their_questions_and_have_wide_siblings(narrow, wide, at_least):
    assert _distinct(wide) >= at_least, wide
    assert wide in registry.get_template(narrow).fixed_fact


def test_existing_ids_keep_regenerating_their_questions():
    """The README's and earlier keys' IDs: widening added templates, it did not change these."""
    assert "$d_{model} = 1280$" in registry.question("params.projections-7f3a").prompt
    assert "**gpt3-175b**" in registry.question("params.gpt3_layer-000b").prompt
    assert registry.question("params.gpt3_layer-000b").answer == 1_812_099_072


def test_weak_variants_are_at_most_two_percent_over_a_thousand_seeds():
    score = questions("attention.score")
    assert sum(q.answer == 0 for q in score) <= 20                       # √d_k changes nothing on 0.00
    weights = questions("matrices.attention_weights")
    two_by_two_causal = sum(len(q.answer) == 2 and "causal mask is applied" in q.prompt for q in weights)
    assert two_by_two_causal <= 20                                        # one number left to compute
    keys = Counter(q.answer for q in questions("dims.d_k"))
    assert max(keys.values()) <= 20, keys.most_common(3)                  # no key shared by many prompts


def test_every_template_is_tagged_with_the_syllabus_or_beyond_it():
    for t in TEMPLATES:
        assert set(syllabus_tags(t.id)) <= set(GATE_DA), t.id
    assert in_syllabus("attention.weight") and not in_syllabus("memory.kv_cache")
    assert syllabus_tags("params.ffn_wide") == syllabus_tags("params.ffn") == ("mlp",)


def test_bank_list_shows_the_syllabus_and_the_fixed_fact_marks():
    listed = json.loads(CliRunner().invoke(cli, ["bank", "list", "--json"]).output)
    by_id = {t["id"]: t for t in listed}
    assert by_id["attention.weight"]["gate_da_syllabus"] == ["matrices", "probability", "functions"]
    assert by_id["params.gpt3_table"]["fixed_fact"] and by_id["params.gpt3_shaped"]["fixed_fact"] is None
    table = CliRunner().invoke(cli, ["bank", "list", "--topic", "params"], env={"COLUMNS": "160"}).output
    rows = table.splitlines()
    at = next(i for i, row in enumerate(rows) if row.startswith("params.gpt3_table "))
    assert "GATE DA: mlp" in rows[at + 1] and "fixed-fact" in rows[at + 1], rows[at:at + 2]     # under the title
    memory = CliRunner().invoke(cli, ["bank", "list", "--topic", "memory"], env={"COLUMNS": "160"}).output
    assert "beyond the GATE DA syllabus" in memory


def test_bank_list_help_names_every_topic():
    from quizforge.bank.template import TOPICS

    text = " ".join(CliRunner().invoke(cli, ["bank", "list", "--help"]).output.split())
    assert all(topic in text for topic in TOPICS), text


def test_practice_syllabus_gate_drills_only_in_syllabus_templates():
    from quizforge.practice.drill import NoTemplates, drill_templates

    chosen = drill_templates(None, None, "gate")
    assert chosen and all(in_syllabus(t.id) for t in chosen)
    assert len(chosen) < len(drill_templates(None, None))
    with pytest.raises(NoTemplates):
        drill_templates("concepts", None, "gate")


def test_practice_syllabus_gate_from_the_command_line(tmp_path):
    from practice_helpers import run_quiz

    done = run_quiz(tmp_path, "practice", "--syllabus", "gate", "--topic", "concepts", input="")
    assert done.returncode == 2 and done.stderr.strip() == ("error: no templates match --topic concepts --syllabus "
                                                            "gate (beyond the GATE DA syllabus)"), done.stderr
    done = run_quiz(tmp_path, "practice", "--syllabus", "gate", "--mock", "gate", input="")
    assert done.returncode == 2 and "--syllabus belongs to the drill" in done.stderr
    done = run_quiz(tmp_path, "practice", "--syllabus", "gate", "--topic", "matrices", "--count", "1", input="s\n")
    assert done.returncode == 0 and "matrices." in done.stdout, (done.stdout, done.stderr)


def test_the_mock_report_names_each_questions_syllabus_topics():
    from quizforge.tui.mock_report import _question_cell

    assert _question_cell("attention.weight-0001").plain.endswith("GATE DA: matrices, probability, functions")
    assert _question_cell("memory.kv_cache-0001").plain.endswith("beyond the GATE DA syllabus")


def test_the_counts_note_appears_only_where_an_option_holds_a_count():
    with_counts = without = 0
    for q in questions("concepts.bert_gpt", CLASS):
        noted = "Counts below are expected values" in q.prompt
        has_count = any(re.search(r"about \d+(?![\d%])", o.md) for o in q.options)   # not "about 10%"
        assert noted == has_count, q.id
        with_counts += noted
        without += not noted
    assert with_counts and without


def test_a_spec_topic_never_hands_a_slot_a_fixed_fact_template_but_naming_one_does(tmp_path, run_quiz):
    from quizforge.problemsets.spec import load_spec

    spec = tmp_path / "spec.toml"
    spec.write_text('title = "t"\nseed = 3\n[[sections]]\ntopics = ["params", "memory"]\ncount = 6\n'
                    '[[sections]]\ntemplates = ["params.gpt3_table"]\ncount = 1\n', encoding="utf-8")
    drawn, named = load_spec(spec).sections
    assert drawn.templates and not any(registry.get_template(t).fixed_fact for t in drawn.templates)
    assert "params.gpt3_shaped" in drawn.templates and named.templates == ("params.gpt3_table",)
    code, out, err = run_quiz("set", "make", str(spec), "--variants", "3", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0 and [line.split(")")[0] for line in err.splitlines() if "fixed-fact" in line] == [
        "warning: Q7 (params.gpt3_table"], err
