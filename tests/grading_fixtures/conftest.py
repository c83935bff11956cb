# These folders are hidden suites for test-only challenges: the judge runs them, pytest must not.
collect_ignore_glob = ["*/meta/test_*.py"]
