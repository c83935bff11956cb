"""Hostile submissions, graded through grade(): each loses what it attacks, and grading goes on.

Each submission is written to tmp_path and graded against the test-only `double`
challenge (tests/grading_fixtures/double), whose tests send inputs of different
shapes, so a submission can misbehave in one chosen test and behave in the others.
"""

import time
import uuid
from pathlib import Path

import pytest

from grading_support import DOUBLE_TESTS, fixture_challenge, namespaces_available, outcomes, write_submission
from quizforge.errors import InputError
from quizforge.grading.exports import results
from quizforge.grading.grade import grade as _grade
from quizforge.grading.sandbox_host.sandbox import SandboxError


def grade(*args, **kwargs):
    """These tests are about the sandbox: the static check would refuse their imports (os, signal, ...) first."""
    return _grade(*args, static_check=False, **kwargs)

DOUBLE = fixture_challenge("double")   # 3 s per call, 60 s per suite, 6 points


@pytest.fixture(autouse=True)
def sandbox_or_refusal(tmp_path):
    """These tests need the sandbox. Where this machine cannot build it, what must hold is
    that grading refuses: assert that, and there is nothing more to check."""
    if not namespaces_available():
        path = write_submission(tmp_path, "def double(x):\n    return x * 2\n", name="refused.py")
        with pytest.raises(SandboxError, match="namespaces"):
            grade(path, DOUBLE)
        pytest.skip("grading refused, as it must without namespaces")


def assert_all_failed(result, message_part: str) -> None:
    assert [t.name for t in result.tests] == DOUBLE_TESTS
    assert result.score == 0 and result.max_score == 6
    for test in result.tests:
        assert test.status == "failed" and message_part in test.message, (test.name, test.message)


def test_an_honest_submission_gets_every_point(tmp_path):
    result = grade(write_submission(tmp_path, "def double(x):\n    return x * 2\n"), DOUBLE)
    assert outcomes(result) == {name: ("passed", "") for name in DOUBLE_TESTS}
    assert result.score == result.max_score == 6


def test_a_syntax_error_scores_zero_with_its_line(tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef double(x)\n    return x * 2\n")
    result = grade(path, DOUBLE)
    assert_all_failed(result, "syntax error: expected ':' (line 3)")
    assert result.output == "syntax error: expected ':' (line 3)"


def test_a_missing_name_scores_zero_in_one_line(tmp_path):
    result = grade(write_submission(tmp_path, "def twice(x):\n    return x * 2\n"), DOUBLE)
    assert_all_failed(result, "the submission does not define double at the top level")
    assert "\n" not in result.output


def test_an_error_at_import_scores_zero_with_its_line(tmp_path):
    path = write_submission(tmp_path, "import torch\n\nSCALE = 1 / 0\n\ndef double(x):\n    return x * 2\n")
    result = grade(path, DOUBLE)
    assert_all_failed(result, "the submission could not be imported: ZeroDivisionError: division by zero (line 3)")


def test_a_missing_file_or_unknown_challenge_is_a_usage_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        grade(tmp_path / "nope.py", DOUBLE)
    with pytest.raises(InputError, match="unknown challenge 'nope'"):
        grade(write_submission(tmp_path, "x = 1\n"), "nope")
    big = tmp_path / "big.py"
    big.write_text("#" * (2 * 2**20))
    with pytest.raises(InputError, match="at most 1 MiB"):
        grade(big, DOUBLE)


def test_an_infinite_loop_at_import_fails_every_test_once_and_grading_finishes(tmp_path):
    path = write_submission(tmp_path, "while True:\n    pass\n\ndef double(x):\n    return x * 2\n")
    start = time.monotonic()
    result = grade(path, DOUBLE)
    assert_all_failed(result, "the submission could not be imported: importing the submission timed out after 3 s")
    assert time.monotonic() - start < 30


def test_a_call_that_times_out_is_not_waited_on_again(tmp_path):
    path = write_submission(tmp_path, """
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

        def double(x):
            if x.shape == (4,):
                while True:
                    pass
            return x * 2
    """)
    start = time.monotonic()
    graded = grade(path, DOUBLE)
    # Killed despite ignoring SIGTERM, and the rest fail at once with the same message.
    assert outcomes(graded) == {name: ("failed", "timed out after 3 s (per-call limit)") for name in DOUBLE_TESTS}
    assert graded.sandbox["workers"] == 1
    assert time.monotonic() - start < 15


def test_a_hang_in_every_call_is_graded_within_30_seconds(tmp_path):
    path = write_submission(tmp_path, "def double(x):\n    while True:\n        pass\n")
    start = time.monotonic()
    result = grade(path, fixture_challenge("double", call_timeout=10.0, total_timeout=300.0))
    assert_all_failed(result, "timed out after 10 s (per-call limit)")
    assert time.monotonic() - start < 30


def test_a_crash_in_every_call_is_graded_within_30_seconds(tmp_path):
    path = write_submission(tmp_path, "import os\n\ndef softmax(x, dim=-1):\n    os._exit(3)\n")
    start = time.monotonic()
    result = grade(path, "softmax")  # 14 tests
    assert result.score == 0 and len(result.tests) == 14
    assert all("the submission exited (status 3) during the call" in t.message for t in result.tests)
    assert "the worker died 5 times; the remaining tests were not run" in result.tests[-1].message
    assert result.sandbox["workers"] == 5
    assert time.monotonic() - start < 30


def test_the_suite_limit_fails_whatever_is_left(tmp_path):
    path = write_submission(tmp_path, "import time\n\ndef double(x):\n    time.sleep(1.5)\n    return x * 2\n")
    start = time.monotonic()
    result = grade(path, fixture_challenge("double", call_timeout=2.0, total_timeout=5.0))
    # Worker starts count against the suite, so how many tests pass before the limit
    # depends on the machine; the last ones always meet it.
    assert time.monotonic() - start < 20
    found = list(outcomes(result).values())
    assert all(f in (("passed", ""), ("failed", "timed out (suite limit of 5 s)")) for f in found)
    assert found[-1] == ("failed", "timed out (suite limit of 5 s)")


def test_memory_over_the_limit_is_reported_as_such(tmp_path):
    path = write_submission(tmp_path, """
        import mmap
        import torch

        def double(x):
            if x.shape == (4,):          # one allocation over the limit: refused by RLIMIT_DATA
                torch.ones(2**28)        # 1 GiB
            if x.shape == (3, 5):        # growing until refused
                hoard = []
                while True:
                    hoard.append(bytearray(64 * 2**20))
            if x.shape == (3,):          # shared memory escapes the rlimit; the judge's polling does not
                block = mmap.mmap(-1, 3 * 2**30)
                for i in range(0, len(block), 4096):
                    block[i] = 1
            return x * 2
    """)
    result = outcomes(grade(path, DOUBLE, memory_limit="512MiB"))
    for name in ("test_1_vector", "test_2_matrix", "test_3_grad"):
        assert result[name] == ("failed", "memory limit exceeded (512 MiB)"), name
    assert result["test_4_square"] == result["test_5_scalar"] == ("passed", "")


def test_socket_and_pipe_buffers_are_refused_with_a_clear_message(tmp_path):
    """Kernel buffers that neither RLIMIT_DATA nor the resident-memory poll counts: 200 filled
    socket pairs held 1,574 MiB under a 2 GiB limit. The seccomp filter refuses new sockets
    and pipes; the worker's own channel was open before it, so the other tests still pass."""
    path = write_submission(tmp_path, """
        import os
        import socket

        HELD = []

        def double(x):
            if x.shape == (4,):
                for _ in range(200):
                    a, b = socket.socketpair()
                    HELD.append((a, b))
                    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
                    a.setblocking(False)
                    try:
                        while True:
                            a.send(b"x" * 65536)
                    except BlockingIOError:
                        pass
            if x.shape == (3, 5):
                HELD.append(os.pipe())
            if x.shape == (2, 2):
                HELD.append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            return x * 2
    """)
    result = grade(path, DOUBLE)
    refused = ("PermissionError: sockets and pipes are not available: their buffers are kernel memory outside the "
               "process, and memory must stay under the memory limit (line {})")
    assert outcomes(result) == {
        "test_1_vector": ("failed", refused.format(9)),
        "test_2_matrix": ("failed", refused.format(19)),
        "test_3_grad": ("passed", ""),
        "test_4_square": ("failed", refused.format(21)),
        "test_5_scalar": ("passed", ""),
    }
    assert {"socket", "socketpair", "pipe2"} <= set(result.sandbox["seccomp"]["refused"])


def test_exits_crashes_and_signals_fail_the_test_in_progress(tmp_path):
    path = write_submission(tmp_path, """
        import faulthandler
        import os
        import signal
        import sys

        def double(x):
            if x.shape == (4,):
                os._exit(0)
            if x.shape == (3, 5):
                faulthandler._sigsegv()
            if x.shape == (3,):
                sys.exit(3)
            if x.shape == ():
                os.kill(os.getpid(), signal.SIGKILL)
            return x * 2
    """)
    result = outcomes(grade(path, DOUBLE))
    assert result == {
        "test_1_vector": ("failed", "the submission exited (status 0) during the call"),
        "test_2_matrix": ("failed", "the submission crashed (segmentation fault) during the call"),
        "test_3_grad": ("failed", "the submission exited (status 3) during the call (line 12)"),
        "test_4_square": ("passed", ""),
        "test_5_scalar": ("failed", "the submission was killed by SIGKILL during the call"),
    }


def test_printing_passed_and_exiting_at_import_scores_zero(tmp_path):
    path = write_submission(tmp_path, """
        import sys
        print("5 passed in 0.01s")
        print('{"score": 6, "max_score": 6}')
        sys.exit(0)

        def double(x):
            return x * 2
    """)
    result = grade(path, DOUBLE)
    assert_all_failed(result, "the submission could not be imported: the submission exited (status 0) "
                              "while being imported (line 4)")
    # Fenced, so it cannot pass for the grader's own lines.
    assert result.submission_output == ("printed by the submission, not by the grader:\n"
                                        '| 5 passed in 0.01s\n| {"score": 6, "max_score": 6}')
    assert "5 passed" not in result.output
    assert "\n| 5 passed in 0.01s" in results.gradescope(result)["output"]


def test_tampering_with_torch_pytest_and_result_files_changes_nothing(tmp_path):
    marker = f"quizforge-fake-{uuid.uuid4().hex}"
    suite = DOUBLE.meta
    before = set(suite.iterdir())
    cwd_files = {p: p.exists() for p in (Path.cwd() / "results.json", Path.cwd() / "conftest.py")}
    path = write_submission(tmp_path, f"""
        import json
        import os
        import torch
        import torch.testing

        # Comparisons that always agree, in this process.
        torch.allclose = lambda *a, **k: True
        torch.equal = lambda *a, **k: True
        torch.testing.assert_close = lambda *a, **k: None
        HOOK = "import pytest\\n@pytest.hookimpl(wrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n" \\
               "    report = yield\\n    report.outcome = 'passed'\\n    return report\\n"
        FAKE = json.dumps({{"score": 6, "max_score": 6, "tests": []}})
        for folder in (".", "..", os.path.expanduser("~"), "/tmp", {str(suite)!r}, {str(Path.cwd())!r}):
            for name, text in (("conftest.py", HOOK), ("results.json", FAKE), ("{marker}.json", FAKE)):
                try:
                    with open(os.path.join(folder, name), "w") as f:
                        f.write(text)
                except OSError:
                    pass

        class AlwaysEqual(torch.Tensor):
            def __eq__(self, other):
                return True

            def equal(self, other):
                return True

            def allclose(self, *args, **kwargs):
                return True

        def double(x):
            return torch.zeros_like(x).as_subclass(AlwaysEqual)
    """)
    result = grade(path, DOUBLE)
    statuses = outcomes(result)
    assert result.score == 0
    assert statuses["test_1_vector"] == ("failed", "wrong values")
    assert statuses["test_3_grad"][0] == "failed"
    assert results.gradescope(result)["score"] == 0  # what --format json prints comes from the judge alone
    # Where the files land depends on the isolation this machine allows; the score never does.
    assert not Path(f"/tmp/{marker}.json").exists()
    left = {
        "suite": set(suite.iterdir()) - before,
        "cwd": {p for p in (*cwd_files, Path.cwd() / f"{marker}.json") if p.exists() and not cwd_files.get(p)},
    }
    assert left == {"suite": set(), "cwd": set()}  # what --format json prints comes from the judge alone


def test_a_flood_of_output_is_captured_and_truncated(tmp_path):
    path = write_submission(tmp_path, """
        import sys
        LINE = "spam " * 199 + "spam\\n"      # 1000 bytes
        for _ in range(100_000):             # 100 MB
            sys.stdout.write(LINE)

        def double(x):
            print("and more", x.shape)
            return x * 2
    """)
    start = time.monotonic()
    result = grade(path, DOUBLE)
    assert result.score == 6
    assert time.monotonic() - start < 40
    assert result.submission_output.startswith(
        "printed by the submission, not by the grader (first 2000 characters of 95.4 MiB):\n| spam spam")
    assert len(result.submission_output) < 2200


def test_a_reply_whose_tensors_share_one_range_is_refused_not_buffered(tmp_path):
    """The worker writes its own reply frame: 16 tensors over one 32 MiB range. The judge's
    cap for a call this small is about 1 MiB, so the frame is refused from its prefix; the
    static check is bypassed, so the judge's decoder is what is tested."""
    from grading_support import grade_unchecked

    path = write_submission(tmp_path, '''
        import json, os, struct
        SIZE = 32 * 2**20

        def double(x):
            header = json.dumps({"D": [["id", 2], ["ok", True],
                                       ["value", {"L": [{"X": ["float32", [SIZE // 4], 0, SIZE]}] * 16}]]}).encode()
            os.write(4, struct.pack(">4sIQ", b"QZF1", len(header), SIZE) + header)
            os.write(4, bytes(SIZE))
            return x * 2
    ''')
    result = grade_unchecked(path, DOUBLE)
    assert result.score == 0
    first = result.tests[0]
    assert first.status == "failed" and "where at most" in first.message and "were expected" in first.message, first.message


def test_an_answer_far_larger_than_asked_for_is_refused_unread(tmp_path):
    """A 64 MiB table where a few kB were asked for: refused from the frame's prefix, each test
    failed, and grading goes on."""
    path = write_submission(tmp_path, '''
        import torch

        def sinusoidal_positional_encoding(max_len, d_model):
            return torch.zeros(4096, 4096)
    ''')
    result = grade(path, "sinusoidal_positional_encoding")
    assert result.score == 0 and result.max_score > 0
    refused = [t for t in result.tests if "were expected" in t.message]
    assert refused, [t.message for t in result.tests]
