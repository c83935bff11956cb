"""`quiz bank`, `quiz ask`, `quiz explain`, `quiz check` end to end."""

import json
import subprocess
import sys

import pytest


def test_bank_list_json_has_every_template(run_quiz):
    code, out, _ = run_quiz("bank", "list", "--json")
    data = json.loads(out)
    assert code == 0 and len(data) >= 30
    assert {"id", "topic", "kind", "marks", "difficulty", "title"} <= set(data[0])
    code, out, _ = run_quiz("bank", "list", "--topic", "memory", "--json")
    assert {t["id"] for t in json.loads(out)} == {"memory.attention_scores", "memory.kv_cache", "memory.kv_reduction",
                                                  "memory.kv_reduction_wide"}


def test_bank_list_table(run_quiz):
    code, out, _ = run_quiz("bank", "list", "--topic", "dims")
    assert code == 0 and "dims.d_k" in out and "NAT" in out


def test_ask_json_hides_the_answer_unless_asked(run_quiz):
    code, out, _ = run_quiz("ask", "params.projections", "--seed", "0x7f3a", "--json")
    data = json.loads(out)
    assert code == 0 and data["id"] == "params.projections-7f3a"
    assert {"id", "template", "topic", "kind", "marks", "prompt", "options"} <= set(data)
    assert not {"answer", "accepted", "solution"} & set(data)
    code, out, _ = run_quiz("ask", "params.projections", "--seed", "32570", "--json", "--with-answer")
    data = json.loads(out)
    assert data["answer"] == "6,553,600" and data["accepted"] == "6,553,600"
    assert any("4·1280²" in step["text"] for step in data["solution"])


def test_ask_topic_with_seed_is_reproducible(run_quiz):
    first = run_quiz("ask", "flops", "--seed", "99", "--json")[1]
    again = run_quiz("ask", "flops", "--seed", "99", "--json")[1]
    assert first == again and json.loads(first)["topic"] == "flops"


def test_ask_renders_a_panel_with_options(run_quiz):
    code, out, _ = run_quiz("ask", "dims.shapes", "--seed", "42")
    assert code == 0 and "(a)" in out and "(d)" in out and "quiz check dims.shapes-002a" in out


def test_explain_shows_the_worked_matrices(run_quiz):
    code, out, _ = run_quiz("explain", "attention.weight-7f3a")
    assert code == 0 and "QKᵀ" in out and "0.7032" in out and "accepted: 0.69 to 0.71" in out
    code, out, _ = run_quiz("explain", "attention.weight-7f3a", "--markdown")
    assert "\\begin{bmatrix}" in out and "**Answer:** 0.70" in out


def test_check_json_fields(run_quiz):
    code, out, _ = run_quiz("check", "params.projections-7f3a", "4*1280^2 + 4*1280", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["correct"] is False and data["marks"] == 0.0
    assert "bias" in data["feedback"] and data["misconception"]["tag"] == "extra-bias"
    code, out, _ = run_quiz("check", "dims.shapes-002a", "c", "--json")
    data = json.loads(out)
    assert data["correct"] is False and data["marks"] == pytest.approx(-1 / 3)


def test_check_renders_a_verdict(run_quiz):
    code, out, _ = run_quiz("check", "memory.kv_cache-1234", "8 GiB")
    assert code == 0 and "✓" in out


@pytest.mark.parametrize("args,needle", [
    (("ask", "nonsense"), "unknown topic or template"),
    (("ask", "params", "--seed", "70000"), "out of range"),
    (("ask", "params", "--seed", "abc"), "not a whole number"),
    (("bank", "list", "--topic", "nope"), "unknown topic"),
    (("explain", "params.nothing-0001"), "unknown template"),
    (("explain", "garbage"), "not a question ID"),
    (("check", "params.projections-7f3a", "abc"), "could not read"),
    (("check", "dims.shapes-002a", "z"), "a–d"),
    (("check", "params.projections-7f3a", "__import__('os').system('true')"), ""),
])
def test_bad_input_is_one_line_and_exit_2(run_quiz, args, needle):
    code, out, err = run_quiz(*args)
    assert code == 2, (args, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1 and needle in err


def test_ask_light_templates_do_not_import_torch_or_sympy():
    probe = ("import sys; from quizforge.bank import registry\n"
             "light = [t for t in registry.all_templates() if t.light]\n"
             "[t.question(s) for t in light for s in range(20)]\n"
             "print(len(light), sorted(m for m in ('torch', 'sympy') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    count, heavy = result.stdout.split(" ", 1)
    assert result.returncode == 0 and int(count) >= 10 and heavy.strip() == "[]", result.stderr


def test_check_reads_a_negative_number_as_the_answer(run_quiz):
    code, out, err = run_quiz("check", "positional.pe_value-0007", "-0.737", "--json")
    data = json.loads(out)
    assert code == 0 and data["correct"] is True and data["given"] == "-0.737"
    assert data["accepted"] == "-0.738 to -0.736"
    code, out, _ = run_quiz("check", "positional.pe_value-0007", "--json", "-0.5")
    assert code == 0 and json.loads(out)["correct"] is False


def test_check_through_clirunner_takes_negative_numbers_and_units():
    from click.testing import CliRunner

    from quizforge.cli import cli

    runner = CliRunner()
    result = runner.invoke(cli, ["check", "positional.pe_value-0007", "-0.737"])
    assert result.exit_code == 0 and "Correct" in result.output
    result = runner.invoke(cli, ["check", "flops.training_days-001a", "0.042 days"])
    assert result.exit_code == 0 and "Correct" in result.output
    result = runner.invoke(cli, ["check", "memory.kv_reduction-0001", "--json", "2x"])
    assert result.exit_code == 0 and '"correct": true' in result.output


def test_check_says_when_a_short_form_is_too_coarse(run_quiz):
    code, out, err = run_quiz("check", "params.projections-7f3a", "6.55M")
    assert code == 2 and err.startswith("error: '6.55M' gives only 3 significant figures") and "\n" not in err.strip()
    for text in ("6.55e6", "6.55 million"):   # the same rule for every way of writing it
        code, out, err = run_quiz("check", "params.projections-7f3a", text)
        assert code == 2 and out == "" and "\n" not in err.strip()
        assert err.startswith(f"error: '{text}' gives only 3 significant figures; this question needs the exact value")
