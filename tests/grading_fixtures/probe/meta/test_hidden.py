"""Hidden suite of the test-only `probe` challenge: attempt(action) tries something and
returns "done" if it worked. A test passes when the attempt succeeded, so for the
grader's tests a failed test here means the sandbox stopped the attempt."""

import pytest

ACTIONS = ["read_shadow", "write_root", "write_repo", "write_tmp", "connect", "kill_parent",
           "kill_judge", "signal_everyone", "list_hidden_suite", "read_solution", "spawn_detached",
           "read_home", "import_reference", "look", "whoami"]


@pytest.mark.parametrize("action", ACTIONS)
def test_attempt(submission, action):
    assert submission.call("attempt", action) == "done"
