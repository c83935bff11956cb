"""Secret inputs: each grading draws every hidden input from a fresh seed, which the result names,
and `quiz grade --seed N` grades with the same inputs again.

The hidden suites ship with quizforge, so anyone can run them offline. A table of answers
recorded that way must be worth no more than returning zeros once the inputs are secret.
Every solution and every other correct style must still score full marks whatever the
seed, in the real sandbox too.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from grading_support import namespaces_available
from quizforge.challenges import challenge_ids, load_challenge, seeds
from quizforge.grading.judge.hidden_suite import run_suite
from quizforge.grading.judge.loopback_submission import LoopbackSubmission

REPO = Path(__file__).resolve().parents[2]
RECORDED_SEED = 1_234_567
SOFTMAX_POINTS = 28
SOFTMAX_FLOOR = 0  # what `return torch.zeros_like(x)` scores on softmax: no test passes on zeros

# How the table submission knows an input again: its shape, its dim and its first values.
KEY_SOURCE = '''
def lookup_key(x, dim):
    first = x.detach().flatten()[:4].tolist()
    return repr((list(x.shape), dim % x.dim(), [f"{v:.6g}" for v in first]))
'''

# The answers recorded offline, then nothing computed: zeros for an input it does not know.
TABLE_SOURCE = '''
import torch

TABLE = @TABLE@
@KEY@

def softmax(x, dim=-1):
    found = TABLE.get(lookup_key(x, dim))
    if found is None:
        return torch.zeros_like(x)
    y = torch.tensor(found, dtype=x.dtype)
    # Linearised around the recorded point (y's Jacobian, from y alone), so the gradient test passes too.
    finite = torch.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)
    change = finite - finite.detach()
    return y + y * change - y * (y * change).sum(dim, keepdim=True)
'''

needs_sandbox = pytest.mark.skipif(not namespaces_available(), reason="this machine cannot build the sandbox")


class Recorder(LoopbackSubmission):
    """The reference solution, run in process, remembering every answer it gave."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.answers: dict[str, list] = {}
        scope: dict = {}
        exec(KEY_SOURCE, scope)
        self.lookup_key = scope["lookup_key"]

    def call(self, name, *args, **kwargs):
        out = super().call(name, *args, **kwargs)
        dim = kwargs.get("dim", args[1] if len(args) > 1 else -1)
        self.answers[self.lookup_key(args[0], dim)] = out.tolist()
        return out


def record_table(seed: int, path: Path) -> Path:
    """Run the softmax suite under `seed` against the solution and write its answers as a submission."""
    recorder = Recorder(REPO / "solutions" / "softmax.py")
    try:
        recorded = run_suite(load_challenge("softmax"), recorder, seed=seed)
    finally:
        recorder.close()
    assert recorded.score == recorded.max_score == SOFTMAX_POINTS and len(recorder.answers) >= 10
    path.write_text(TABLE_SOURCE.replace("@TABLE@", repr(recorder.answers)).replace("@KEY@", KEY_SOURCE))
    return path


def outcomes(data: dict) -> list[tuple[str, str, str]]:
    return [(t["name"], t["status"], t["output"]) for t in data["tests"]]


@needs_sandbox
def test_a_table_recorded_offline_scores_the_floor_and_a_seed_reproduces_a_grading(run_quiz, tmp_path):
    table = record_table(RECORDED_SEED, tmp_path / "table.py")
    code, out, err = run_quiz("grade", str(table), "--challenge", "softmax", "--format", "json")
    assert code == 0, err
    fresh = json.loads(out)
    assert fresh["max_score"] == SOFTMAX_POINTS and fresh["score"] <= SOFTMAX_FLOOR
    assert isinstance(fresh["seed"], int) and 0 <= fresh["seed"] <= seeds.MAX_SEED
    assert fresh["seed"] != RECORDED_SEED
    assert f"--seed {fresh['seed']}" in fresh["output"]
    # The same table under the seed it was recorded with: full marks, so the attack above is real.
    code, out, err = run_quiz("grade", str(table), "--challenge", "softmax", "--format", "json",
                              "--seed", str(RECORDED_SEED))
    assert code == 0, err
    assert json.loads(out)["score"] == SOFTMAX_POINTS
    # --seed gives the fresh grading again: same inputs, so the same failures with the same messages.
    code, out, err = run_quiz("grade", str(table), "--challenge", "softmax", "--format", "json",
                              "--seed", str(fresh["seed"]))
    again = json.loads(out)
    assert code == 0 and again["seed"] == fresh["seed"]
    assert outcomes(again) == outcomes(fresh) and any("largest error" in t[2] for t in outcomes(fresh))


def test_the_same_seed_gives_the_same_grading_and_another_seed_other_inputs(tmp_path):
    challenge = load_challenge("softmax")
    wrong = tmp_path / "halves.py"  # wrong everywhere, by amounts that depend on the inputs
    wrong.write_text("import torch\n\ndef softmax(x, dim=-1):\n    return x / 2\n")
    runs = {}
    for seed in (7, 7, 8):
        submission = LoopbackSubmission(wrong)
        try:
            result = run_suite(challenge, submission, seed=seed)
        finally:
            submission.close()
        assert result.seed == seed
        runs.setdefault(seed, []).append([(t.name, t.status, t.message) for t in result.tests])
    assert runs[7][0] == runs[7][1]
    assert runs[7][0] != runs[8][0]  # the largest errors, and where they are, come from other inputs


def test_a_grading_without_a_seed_draws_a_fresh_one_and_suites_never_run_without_one():
    challenge = load_challenge("causal_mask")
    drawn = set()
    for _ in range(3):
        submission = LoopbackSubmission(REPO / "solutions" / "causal_mask.py")
        try:
            drawn.add(run_suite(challenge, submission).seed)
        finally:
            submission.close()
    assert len(drawn) == 3 and all(isinstance(s, int) for s in drawn)
    from quizforge.challenges import checks

    with pytest.raises(RuntimeError, match="no grading seed"):
        checks.seeded(1)


@pytest.mark.parametrize("value", ["abc", "-1", "4294967296", "1e3", "3.5", "", "٣"])
def test_a_bad_seed_is_one_line_and_exit_2(run_quiz, tmp_path, value):
    sub = tmp_path / "s.py"
    sub.write_text("import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    code, out, err = run_quiz("grade", str(sub), "--challenge", "softmax", "--seed", value)
    assert code == 2 and out == ""
    assert err.startswith("error: --seed: the seed must be a whole number from 0 to 4294967295")
    assert len(err.strip().splitlines()) == 1


def test_seed_with_batch_is_refused_in_one_line(run_quiz, tmp_path):
    code, _, err = run_quiz("grade", "--batch", str(tmp_path), "--challenge", "softmax", "--seed", "5")
    assert code == 2 and "--seed regrades one submission" in err and len(err.strip().splitlines()) == 1


@needs_sandbox
def test_each_student_of_a_batch_gets_a_seed_of_their_own_and_it_regrades_alike(run_quiz, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    wrong = next(v for v in load_challenge("softmax").variants("bug") if v.name == "bug_global_max")
    for student in ("ada", "bob"):
        (folder / f"{student}.py").write_text(wrong.text)
    out = tmp_path / "out"
    code, _, err = run_quiz("grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(out))
    assert code == 0, err
    stored = {s: json.loads((out / "results" / f"{s}.json").read_text()) for s in ("ada", "bob")}
    assert stored["ada"]["seed"] != stored["bob"]["seed"]
    assert all(data["quizforge"]["result"]["seed"] == data["seed"] for data in stored.values())
    book = {row["student"]: row for row in csv.DictReader((out / "gradebook.csv").open())}
    assert {s: int(book[s]["seed"]) for s in book} == {s: d["seed"] for s, d in stored.items()}
    # One student's grading, again on its own with that student's seed: the same points and messages.
    code, text, err = run_quiz("grade", str(folder / "bob.py"), "--challenge", "softmax", "--format", "json",
                               "--seed", str(stored["bob"]["seed"]))
    assert code == 0, err
    assert outcomes(json.loads(text)) == outcomes(stored["bob"])


@needs_sandbox
def test_every_solution_and_other_correct_style_scores_full_marks_in_the_sandbox(tmp_path):
    """All of them through grade(), as `quiz grade` runs it, with workers forked from one zygote (as in a
    batch), each grading under its own fresh seed."""
    from quizforge.grading.grade import grade
    from quizforge.grading.judge.limits import Limits
    from quizforge.grading.sandbox_host.zygote_control import Zygote

    files = [(cid, path) for cid in challenge_ids()
             for path in [REPO / "solutions" / f"{cid}.py",
                          *(v.write_to(tmp_path / cid) for v in load_challenge(cid).variants("ok"))]]
    assert len(files) >= 2 * len(challenge_ids()) >= 24  # a solution and at least one other style each
    zygote = Zygote(Limits())
    zygote.start()
    wrong, used = {}, set()
    try:
        for cid, path in files:
            result = grade(path, cid, zygote=zygote)
            used.add(result.seed)
            if not (result.score == result.max_score > 0):
                wrong[f"{cid}/{path.name} (seed {result.seed})"] = [
                    f"{t.name}: {t.message}" for t in result.tests if t.status != "passed"]
    finally:
        zygote.close()
    assert not wrong
    assert len(used) == len(files)
