"""`quiz` end to end: help stays light, calculators print real figures, bad input is one line."""

import json
import math
import subprocess
import sys

import pytest
import torch

HELP_PROBE = r"""
import sys
import click
from quizforge.cli import cli, main

def walk(command, path):
    yield path
    if isinstance(command, click.Group):
        for name in command.list_commands(None):
            yield from walk(command.get_command(None, name), path + [name])

for path in list(walk(cli, [])):
    try:
        main(path + ["--help"])
    except SystemExit as exc:
        assert exc.code == 0, (path, exc.code)
heavy = sorted(m for m in ("torch", "sympy", "numpy", "markdown_it") if m in sys.modules)
print("COMMANDS", len(list(walk(cli, []))))
print("HEAVY", ",".join(heavy) or "none")
"""


def test_help_never_imports_torch_or_sympy():
    """Nor markdown-it: the text pipeline parses on first use, never at start-up."""
    result = subprocess.run([sys.executable, "-c", HELP_PROBE], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "HEAVY none" in result.stdout
    assert int(result.stdout.split("COMMANDS ")[1].split()[0]) >= 9


def test_help_imports_no_command_module():
    """`quiz --help` lists the commands from the group's table: no command module is loaded."""
    probe = ("import sys\nfrom quizforge.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('LOADED', sorted(m for m in sys.modules if m.startswith('quizforge.cli.')))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "LOADED ['quizforge.cli.interrupts']" in result.stdout
    assert "practice" in result.stdout and "export-history" in result.stdout


def test_python_dash_m_runs():
    result = subprocess.run([sys.executable, "-m", "quizforge", "--help"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0
    assert "calc" in result.stdout


def test_params_preset_json(run_quiz):
    code, out, _ = run_quiz("calc", "params", "gpt2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 124_439_808
    assert data["breakdown"] == {"embeddings": 39_383_808, "attention": 28_348_416, "ffn": 56_669_184,
                                 "norms": 38_400}


@pytest.mark.parametrize("preset,total", [("bert-base", 109_482_240), ("llama-7b", 6_738_415_616)])
def test_params_published(run_quiz, preset, total):
    code, out, _ = run_quiz("calc", "params", preset, "--json")
    assert code == 0 and json.loads(out)["total"] == total


def test_params_table_shows_formula_and_total(run_quiz):
    code, out, _ = run_quiz("calc", "params", "--arch", "encoder-layer", "--d-model", "512",
                            "--n-heads", "8", "--d-ff", "2048")
    assert code == 0
    assert "3,152,384" in out
    assert "4·d_model² + 4·d_model" in out


@pytest.mark.parametrize("args,total", [
    (["--arch", "mha", "--d-model", "512", "--n-heads", "8"], 4 * 512 * 512 + 4 * 512),
    (["--arch", "mha", "--d-model", "512", "--n-heads", "8", "--no-bias"], 4 * 512 * 512),
    (["--arch", "mha", "--d-model", "512", "--n-heads", "8", "--n-kv-heads", "2", "--no-bias"],
     2 * 512 * 512 + 2 * 512 * 128),
    (["--arch", "ffn", "--d-model", "512", "--d-ff", "2048"], 2 * 512 * 2048 + 2048 + 512),
    (["--arch", "layernorm", "--d-model", "512"], 1024),
    (["--arch", "rmsnorm", "--d-model", "512"], 512),
    (["--arch", "decoder-layer", "--d-model", "512", "--n-heads", "8", "--d-ff", "2048"],
     2 * (4 * 512 * 512 + 4 * 512) + 2 * 512 * 2048 + 2048 + 512 + 6 * 512),
    (["--arch", "gpt", "--d-model", "768", "--n-heads", "12", "--d-ff", "3072", "--n-layers", "12",
      "--vocab", "50257", "--max-len", "1024"], 124_439_808),
    (["--arch", "gpt", "--d-model", "768", "--n-heads", "12", "--d-ff", "3072", "--n-layers", "12",
      "--vocab", "50257", "--max-len", "1024", "--untied"], 124_439_808 + 50257 * 768),
    (["--arch", "llama", "--d-model", "4096", "--n-heads", "32", "--d-ff", "11008", "--n-layers", "32",
      "--vocab", "32000"], 6_738_415_616),
])
def test_params_by_arch(run_quiz, args, total):
    code, out, err = run_quiz("calc", "params", *args, "--json")
    assert code == 0, err
    assert json.loads(out)["total"] == total


def test_preset_overrides(run_quiz):
    code, out, _ = run_quiz("calc", "params", "llama-7b", "--n-kv-heads", "8", "--json")
    data = json.loads(out)
    assert data["total"] == 6_738_415_616 - 32 * 2 * 4096 * (4096 - 1024)
    assert data["config"]["n_kv_heads"] == 8


def test_flops_json(run_quiz):
    code, out, _ = run_quiz("calc", "flops", "--arch", "mha", "--d-model", "64", "--n-heads", "8",
                            "--seq-len", "10", "--batch", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["forward"] == 706_560
    assert data["training"] == 3 * 706_560
    assert data["six_nd"] == 6 * (4 * 64 * 64 + 4 * 64) * 20


def test_flops_preset_table(run_quiz):
    code, out, _ = run_quiz("calc", "flops", "gpt2", "--seq-len", "1024")
    assert code == 0
    assert "291,648,307,200" in out
    assert "6·N·D" in out


def test_kv_cache_json(run_quiz):
    code, out, _ = run_quiz("calc", "kv-cache", "llama2-70b", "--seq-len", "4096", "--batch", "8",
                            "--dtype", "fp16", "--json")
    data = json.loads(out)
    assert data["bytes"] == 10 * 2**30
    assert data["reduction_factor"] == 8


def test_attention_memory_json(run_quiz):
    code, out, _ = run_quiz("calc", "attention-memory", "gpt2", "--seq-len", "1024", "--json")
    data = json.loads(out)
    assert data["entries_per_layer"] == 12 * 1024 * 1024
    assert data["bytes"] == 12 * 12 * 1024 * 1024 * 4


def test_attention_by_hand_json(run_quiz):
    code, out, _ = run_quiz("calc", "attention", "--q", "[[1,0],[0,1],[1,1]]", "--k", "[[1,0],[0,1],[1,1]]",
                            "--v", "[[1,2],[3,4],[5,6]]", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["scores"] == [[1, 0, 1], [0, 1, 1], [1, 1, 2]]
    # row 1: scaled scores (1/√2, 0, 1/√2)
    e = [math.exp(1 / math.sqrt(2)), 1.0, math.exp(1 / math.sqrt(2))]
    w = [x / sum(e) for x in e]
    assert data["weights"][0] == pytest.approx(w, abs=1e-12)
    assert data["output"][0] == pytest.approx([w[0] + 3 * w[1] + 5 * w[2], 2 * w[0] + 4 * w[1] + 6 * w[2]])


def test_attention_by_hand_causal_table(run_quiz):
    code, out, _ = run_quiz("calc", "attention", "--q", "[[1,0],[0,1]]", "--k", "[[1,0],[0,1]]",
                            "--v", "[[1,2],[3,4]]", "--causal")
    assert code == 0
    assert "QKᵀ" in out and "softmax" in out.lower()


def test_pe_json(run_quiz):
    code, out, _ = run_quiz("calc", "pe", "--pos", "1", "--d-model", "4", "--json")
    values = json.loads(out)["values"]
    assert values == pytest.approx([math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], abs=1e-12)


@pytest.mark.parametrize("args,message", [
    (["calc", "params", "--arch", "mha", "--d-model", "-5", "--n-heads", "8"], "d_model must be a positive"),
    (["calc", "params", "--arch", "mha", "--d-model", "0", "--n-heads", "8"], "d_model must be a positive"),
    (["calc", "params", "--arch", "mha", "--d-model", "100", "--n-heads", "8"], "not divisible by n_heads"),
    (["calc", "params", "--arch", "mha", "--d-model", "64", "--n-heads", "8", "--n-kv-heads", "3"],
     "not divisible by n_kv_heads"),
    (["calc", "params", "--arch", "mha", "--d-model", "x", "--n-heads", "8"], "is not a valid integer"),
    (["calc", "params", "gpt5"], "unknown preset 'gpt5'"),
    (["calc", "params", "vaswani-base", "--max-len", "-5"], "max_len must be a whole number >= 0"),
    (["calc", "params", "gpt2", "--n-layers", "100000"], "more than the 1,024 quizforge builds"),
    (["calc", "params", "gpt2", "--arch", "gpt"], "either a PRESET or --arch"),
    (["calc", "params"], "name a PRESET"),
    (["calc", "params", "--arch", "gpt", "--d-model", "64", "--n-heads", "8"], "needs --d-ff"),
    (["calc", "params", "--arch", "transformer-xl"], "Invalid value for '--arch'"),
    (["calc", "flops", "gpt2", "--seq-len", "0"], "--seq-len must be a positive integer"),
    (["calc", "flops", "gpt2", "--seq-len", "-3"], "--seq-len must be a positive integer"),
    (["calc", "flops", "gpt2", "--seq-len", "4096"], "longer than the model's context"),
    (["calc", "kv-cache", "gpt2", "--seq-len", "8", "--dtype", "fp8"], "Invalid value for '--dtype'"),
    (["calc", "kv-cache", "bert-base", "--seq-len", "8"], "no KV cache"),
    (["calc", "attention", "--q", "[[1,0],[0,1]]", "--k", "[[1,0],[0]]", "--v", "[[1],[2]]"], "--k: row 2"),
    (["calc", "attention", "--q", "[[1,a]]", "--k", "[[1,0]]", "--v", "[[1]]"], "--q:"),
    (["calc", "attention", "--q", "[[1,0,0]]", "--k", "[[1,0]]", "--v", "[[1]]"], "d_k"),
    (["calc", "attention", "--q", "[[1,0]]", "--k", "[[1,0],[0,1]]", "--v", "[[1]]"], "V has 1 rows"),
    (["calc", "pe", "--pos", "-1", "--d-model", "4"], "--pos"),
    (["calc", "pe", "--pos", "1", "--d-model", "0"], "--d-model"),
])
def test_bad_input_is_one_line_and_exit_2(run_quiz, args, message):
    code, out, err = run_quiz(*args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error")
def test_cuda_without_gpu_is_a_clear_error(run_quiz):
    code, _, err = run_quiz("calc", "params", "gpt2", "--device", "cuda")
    assert code == 2
    assert "no CUDA GPU" in err


def test_presets_listing(run_quiz):
    code, out, _ = run_quiz("calc", "presets", "--json")
    data = json.loads(out)
    assert {"vaswani-base", "bert-large", "gpt2-xl", "gpt3-175b", "llama2-70b"} <= set(data)
    assert data["gpt3-13b"]["d_model"] == 5120


@pytest.mark.parametrize("argv", [[], ["calc"], ["set"], ["challenges"]])
def test_a_group_with_no_subcommand_shows_its_help_and_exits_0(argv):
    """The first thing a new user types is `quiz`: its help, not a usage error."""
    done = subprocess.run([sys.executable, "-m", "quizforge", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Usage: quiz {' '.join(argv)}".rstrip() + " [OPTIONS] COMMAND [ARGS]...")
    assert "Commands:" in done.stdout and "error" not in done.stderr


def test_an_unknown_command_is_still_a_one_line_usage_error():
    done = subprocess.run([sys.executable, "-m", "quizforge", "nosuch"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("error: No such command 'nosuch'")
