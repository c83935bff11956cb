"""The coding challenges, graded by the real judge on trusted, in-process submissions.

For every challenge: the reference solution scores full marks and the starter 0;
every classic bug (tests/challenge_variants/<id>/bug_*.py) loses marks and is
named in a failure message; every other correct style (ok_*.py) scores full
marks; and the exercise's public tests pass on the solution and fail on the starter.
Gradings draw their inputs from a fresh seed each time; here the seed is pinned
(PINNED_SEED), so that these checks are the same on every run.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.judge import SuiteResult, run_suite
from quizforge.grading.loopback import LoopbackSubmission

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = Path(__file__).resolve().parent / "challenge_variants"
CHALLENGES = ("softmax", "scaled_dot_product_attention", "causal_mask", "sinusoidal_positional_encoding",
              "layer_norm", "multi_head_attention", "rope", "fix_broken_attention", "grouped_query_attention", "kv_cache", "transformer_block", "generate",
              "adamw", "gradient_clipping", "bpe_tokenizer", "transformer_lm")
# The grading seed of every grading here (a real grading draws a fresh one).
PINNED_SEED = 20_240_611
OTHER_SEEDS = (0, 2**32 - 1)  # the extremes of the range, for the bugs
# Challenges whose starter runs but is wrong on purpose (the task is to find the bugs).
BROKEN_STARTERS = {"fix_broken_attention": "both planted bugs are still there"}

# For each bug, words its failure messages must contain: the diagnosis, not merely "wrong".
BUG_DIAGNOSES = {
    "softmax": {
        "bug_ignores_dim": "not over the dim=",
        "bug_no_max_shift": "overflows",
        "bug_global_max": "maximum of the whole tensor",
        "bug_sum_without_keepdim": "keepdim=True",
        "bug_numpy_roundtrip": "autograd",
    },
    "scaled_dot_product_attention": {
        "bug_softmax_over_queries": "softmax runs over the queries",
        "bug_no_scaling": "scores are not scaled",
        "bug_scale_by_d_v": "divided by √d_v",
        "bug_scale_without_sqrt": "divided by d_k instead of √d_k",
        "bug_inverted_mask": "mask is inverted",
        "bug_mask_after_softmax": "mask is applied after the softmax",
        "bug_mask_multiplies_scores": "multiplied by 0",
        "bug_unstable_softmax": "exp overflows",
        "bug_k_dot_t": "K.transpose(-2, -1), not K.T",
        "bug_detached_weights": "autograd",
    },
    "causal_mask": {
        "bug_excludes_diagonal": "the diagonal is left out",
        "bug_upper_triangle": "it is transposed",
        "bug_inverted": "it is inverted",
        "bug_float_mask": "expected torch.bool",
        "bug_no_device_parameter": "device",
    },
    "sinusoidal_positional_encoding": {
        "bug_sin_cos_swapped": "sin and cos are swapped",
        "bug_concatenated_halves": "instead of interleaved",
        "bug_exponent_without_two": "the exponent is i/d_model",
        "bug_column_index_exponent": "its own exponent k/d_model",
        "bug_positions_from_one": "positions start at 1",
        "bug_float64_table": "expected torch.float32",
    },
    "layer_norm": {
        "bug_unbiased_variance": "the variance is the unbiased one",
        "bug_eps_outside_sqrt": "eps is added outside the square root",
        "bug_no_eps": "eps is left out",
        "bug_ignores_eps_argument": "ignores the eps it was constructed with",
        "bug_normalises_whole_tensor": "taken over the whole tensor",
        "bug_no_affine": "weight and bias are not applied",
        "bug_plain_tensor_parameters": "nn.Parameter",
        "bug_detached_statistics": "the gradient with respect to x",
    },
    "multi_head_attention": {
        "bug_split_without_transpose": "heads are split by viewing",
        "bug_merge_without_transpose": "heads are merged by reshaping",
        "bug_no_output_projection": "output projection is missing",
        "bug_scale_by_d_model": "divided by √d_model",
        "bug_self_attention_only": "key and value are ignored",
        "bug_value_from_key": "values come from key",
        "bug_mask_ignored": "mask is ignored",
        "bug_ignores_bias_flag": "bias=False",
    },
    "fix_broken_attention": {
        "bug_only_axis_fixed": "the scores are not scaled",
        "bug_only_scaling_fixed": "the softmax runs over the queries",
        "bug_unchanged_starter": "both planted bugs are still there",
    },
    "grouped_query_attention": {
        "bug_modulo_head_mapping": "uses key/value head j % n_kv_heads",
        "bug_scale_by_d_model": "divided by √d_model",
        "bug_no_output_projection": "output projection is missing",
    },
    "kv_cache": {
        "bug_no_mask_within_chunk": "is not masked causally",
        "bug_mask_ignores_cache_offset": "the causal mask ignores the cached tokens",
        "bug_cache_not_used": "the cache is not used",
    },
    "transformer_block": {
        "bug_post_norm": "this is a post-norm block",
        "bug_no_attention_residual": "the attention's residual connection is missing",
        "bug_relu_feed_forward": "the feed-forward uses ReLU",
        "bug_scale_by_d_model": "divided by √d_model",
    },
    "generate": {
        "bug_no_crop": "its block_size is 4",
        "bug_temperature_after_softmax": "the temperature is applied after the softmax",
        "bug_top_k_keeps_one_more": "keep exactly the k largest logits",
        "bug_greedy_argmax": "chosen greedily",
        "bug_first_position": "the logits of the first position are used",
        "bug_ignores_generator": "pass generator=generator to torch.multinomial",
    },
    "adamw": {
        "bug_coupled_weight_decay": "the weight decay is added to the gradient",
        "bug_no_bias_correction": "there is no bias correction",
        "bug_decay_without_lr": "the weight decay is not multiplied by lr",
        "bug_eps_inside_sqrt": "eps is added inside the square root",
        "bug_ignores_param_groups": "every param group is updated with the constructor's hyperparameters",
        "bug_decays_parameters_without_grad": "a parameter without a gradient was decayed",
    },
    "gradient_clipping": {
        "bug_per_parameter_norm": "each parameter is clipped by its own norm",
        "bug_returns_clipped_norm": "returned the norm after clipping",
        "bug_always_scales": "scaled although the norm is below max_norm",
        "bug_ignores_eps": "ignores the eps it was given",
        "bug_none_grads": "skip the parameters whose .grad is None",
        "bug_returns_tensor": "return a Python float",
    },
    "bpe_tokenizer": {
        "bug_naive_recount": "recounting every pair at every merge is too slow",
        "bug_smaller_pair_wins_ties": "ties are broken by the smaller pair",
        "bug_merges_across_pretokens": "merges cross pre-token boundaries",
        "bug_specials_trained_as_text": "the special tokens are trained on as text",
        "bug_specials_shortest_first": "special tokens are matched shortest first",
        "bug_strict_decode": 'errors="replace"',
    },
    "transformer_lm": {
        "bug_no_causal_mask": "there is no causal mask",
        "bug_no_position_embeddings": "the position embeddings are not added",
        "bug_no_final_norm": "ln_f is not applied",
        "bug_full_context_positions": "positions and the causal mask follow the input's length T",
        "bug_post_norm_blocks": "the blocks are post-norm",
    },
    "rope": {
        "bug_half_split": "the half-split convention",
        "bug_exponent_without_two": "the exponent is i/d",
        "bug_ignores_positions": "the positions argument is ignored",
        "bug_rotates_backwards": "the rotation goes the wrong way",
    },
}


def variant_files(prefix: str) -> list[Path]:
    return sorted(VARIANTS.glob(f"*/{prefix}_*.py"))


def variant_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """The suites' tensors are tiny, and torch.softmax still hands them to its CPU thread pool,
    which costs milliseconds a call when every core is busy (as under pytest -n)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@functools.cache
def grade(challenge_id: str, path: Path, seed: int = PINNED_SEED) -> SuiteResult:
    submission = LoopbackSubmission(path)
    try:
        # The unraisable-exception plugin's gc.collect() costs ~0.3 s a run and decides no grade.
        return run_suite(load_challenge(challenge_id), submission, ["-p", "no:unraisableexception"], seed=seed)
    finally:
        submission.close()


def failures(result: SuiteResult) -> list[str]:
    return [f"{t.name}: {t.message}" for t in result.tests if t.status != "passed"]


def test_the_challenges_are_registered():
    assert set(CHALLENGES) <= set(challenge_ids())
    for challenge_id in CHALLENGES:
        challenge = load_challenge(challenge_id)
        assert challenge.suite_files, f"{challenge_id} has no hidden suite"
        assert challenge.call_timeout <= 10 and challenge.total_timeout <= 120


def test_suite_files_have_distinct_names():
    # pytest's importlib mode caches test modules by file name, so one process grading two
    # challenges whose suites share a name would run the first suite twice.
    names = [path.name for challenge_id in challenge_ids() for path in load_challenge(challenge_id).suite_files]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("challenge_id", CHALLENGES)
def test_solution_scores_full_marks(challenge_id):
    result = grade(challenge_id, ROOT / "solutions" / f"{challenge_id}.py")
    assert not failures(result)
    assert len(result.tests) >= 8
    assert result.score == result.max_score > 0
    # Every weight in challenge.toml names a test function that exists.
    weighted = set(load_challenge(challenge_id).weights) - {"default"}
    assert weighted <= {t.name.split("[", 1)[0] for t in result.tests}


@pytest.mark.parametrize("challenge_id", CHALLENGES)
def test_starter_scores_zero(challenge_id):
    result = grade(challenge_id, ROOT / "exercises" / challenge_id / "starter.py")
    if challenge_id in BROKEN_STARTERS:  # it runs: the failures must name its planted bugs
        assert result.tests and result.score < result.max_score / 2
        assert any(BROKEN_STARTERS[challenge_id] in m for m in failures(result)), failures(result)
        return
    assert result.tests and result.score == 0
    assert all("NotImplementedError" in t.message for t in result.tests), failures(result)


@pytest.mark.parametrize("path", variant_files("bug"), ids=variant_id)
def test_bug_loses_marks_and_is_named(path):
    challenge_id = path.parent.name
    result = grade(challenge_id, path)
    assert 0 <= result.score < result.max_score
    diagnosis = BUG_DIAGNOSES[challenge_id][path.stem]
    assert any(diagnosis in message for message in failures(result)), (diagnosis, failures(result))


@pytest.mark.parametrize("path", variant_files("bug"), ids=variant_id)
def test_bug_is_caught_under_other_seeds_too(path):
    # Inputs differ with every grading's seed: a bug is caught and named whatever they are.
    challenge_id = path.parent.name
    for seed in OTHER_SEEDS:
        result = grade(challenge_id, path, seed)
        assert result.seed == seed and 0 <= result.score < result.max_score
        diagnosis = BUG_DIAGNOSES[challenge_id][path.stem]
        assert any(diagnosis in message for message in failures(result)), (seed, diagnosis, failures(result))


def test_every_bug_has_a_diagnosis():
    files = {(path.parent.name, path.stem) for path in variant_files("bug")}
    expected = {(challenge_id, bug) for challenge_id, bugs in BUG_DIAGNOSES.items() for bug in bugs}
    assert files == expected
    assert {challenge_id for challenge_id, _ in files} == set(CHALLENGES)


@pytest.mark.parametrize("path", variant_files("ok"), ids=variant_id)
def test_other_correct_style_scores_full_marks(path):
    result = grade(path.parent.name, path)
    assert not failures(result)
    assert result.score == result.max_score > 0


def test_every_challenge_has_other_correct_styles():
    assert {path.parent.name for path in variant_files("ok")} == set(CHALLENGES)


def forbidden_names_used(path: Path, forbidden: tuple[str, ...]) -> set[str]:
    """Forbidden APIs (by their last component) that a file reaches as an attribute or imports by name."""
    names = {dotted.rsplit(".", 1)[-1] for dotted in forbidden}
    used = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in names:
            used.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            used |= {alias.name for alias in node.names if alias.name in names}
    return used


@pytest.mark.parametrize("challenge_id", CHALLENGES)
def test_solution_and_correct_styles_use_no_forbidden_api(challenge_id):
    forbidden = load_challenge(challenge_id).forbidden
    for path in [ROOT / "solutions" / f"{challenge_id}.py", *sorted((VARIANTS / challenge_id).glob("ok_*.py"))]:
        assert not forbidden_names_used(path, forbidden), path.name


def test_forbidden_name_check_can_fail(tmp_path):
    path = tmp_path / "uses_softmax.py"
    path.write_text("import torch\nfrom torch.nn.functional import log_softmax\n"
                    "def softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n")
    assert forbidden_names_used(path, load_challenge("softmax").forbidden) == {"softmax", "log_softmax"}


# --- the exercises' public tests ----------------------------------------------------------------

# Runs each folder's test_public.py with pytest, all in one process (torch is imported once).
# Every folder has its own `starter` module, so the previous one is forgotten first.
PUBLIC_RUNNER = """
import json, sys
import pytest

class Outcomes:
    def __init__(self):
        self.passed = self.failed = 0

    def pytest_runtest_logreport(self, report):
        if report.when == "call" and report.passed:
            self.passed += 1
        elif report.failed:
            self.failed += 1

results = {}
for folder in json.loads(sys.argv[1]):
    for name in ("starter", "test_public"):
        sys.modules.pop(name, None)
    outcomes = Outcomes()
    code = pytest.main([folder, "-q", "-p", "no:cacheprovider", "-p", "no:unraisableexception"], plugins=[outcomes])
    results[folder] = {"exit": int(code), "passed": outcomes.passed, "failed": outcomes.failed}
print("RESULTS " + json.dumps(results))
"""


def run_public_tests(base: Path) -> dict[tuple[str, str], dict[str, int]]:
    """(challenge, "solution" | "starter") -> pytest's exit code and the numbers of passed and failed tests
    of the exercise's test_public.py, run beside that code saved as starter.py."""
    folders = {}
    for challenge_id in CHALLENGES:
        exercise = ROOT / "exercises" / challenge_id
        sources = {"solution": ROOT / "solutions" / f"{challenge_id}.py", "starter": exercise / "starter.py"}
        for kind, code in sources.items():
            folder = base / challenge_id / kind
            folder.mkdir(parents=True)
            shutil.copy(exercise / "test_public.py", folder / "test_public.py")
            shutil.copy(code, folder / "starter.py")
            (folder / "pytest.ini").write_text("[pytest]\n")  # this folder is the rootdir, with no settings
            folders[str(folder)] = (challenge_id, kind)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "OMP_NUM_THREADS": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", PUBLIC_RUNNER, json.dumps(list(folders))], capture_output=True,
                          text=True, env=env, cwd=base, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS ")]
    assert lines, done.stdout[-2000:] + done.stderr[-2000:]
    return {folders[folder]: outcome for folder, outcome in json.loads(lines[-1][len("RESULTS "):]).items()}


def test_public_tests_pass_on_the_solution_and_fail_on_the_starter(tmp_path):
    # One test, not one per challenge, so that under pytest -n a single worker pays for the subprocess.
    outcomes = run_public_tests(tmp_path)
    wrong = {}
    for challenge_id in CHALLENGES:
        solution, starter = outcomes[challenge_id, "solution"], outcomes[challenge_id, "starter"]
        if not (solution["exit"] == 0 and solution["failed"] == 0 and 3 <= solution["passed"] <= 5):
            wrong[challenge_id, "solution"] = solution
        if not (starter["exit"] == 1 and starter["passed"] == 0 and starter["failed"] == solution["passed"]):
            wrong[challenge_id, "starter"] = starter
    assert not wrong


def test_the_readme_lists_exactly_the_challenges():
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    paragraph = text.split("## Coding challenges", 1)[1].split("```", 1)[0]
    assert set(re.findall(r"`([a-z_]+)`", paragraph)) == set(challenge_ids()) == set(CHALLENGES)
    assert paragraph.lstrip().startswith(f"{['Zero', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve', 'Thirteen', 'Fourteen', 'Fifteen', 'Sixteen', 'Seventeen', 'Eighteen', 'Nineteen', 'Twenty'][len(CHALLENGES)]} pieces")
