"""Grading of coding challenges: a trusted judge and an untrusted, sandboxed worker.

One folder per role; grade.py takes one submission through them, start to finish:

  intake/          judge side, before anything runs: the file read as hostile input, the static check
  judge/           judge side: runs the hidden suite and decides the score, with its limits and rules
  sandbox_host/    judge side: builds the sandbox, starts and talks to the worker, the zygote's control
  sandbox_inside/  the untrusted side: all the sandbox holds of quizforge (the worker and what it runs on)
  exports/         results.json and JUnit XML, the Gradescope and GitHub Classroom autograders
  batch/           a whole class: jobs, gradebook, item analysis, similarity

Each imports only those before it in LAYERS (tests/grading/test_grading_layers.py checks it).
"""

# Low to high: sandbox_inside imports nothing of quizforge; "grade" is grade.py.
LAYERS = (("sandbox_inside",), ("judge",), ("intake", "sandbox_host"), ("grade",), ("exports",), ("batch",))
