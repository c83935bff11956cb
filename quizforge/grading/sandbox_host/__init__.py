"""The sandbox, host side (trusted): building the sandbox and talking to the worker inside it.

sandbox starts one worker process tree through launcher (standard library only, run without
site), zygote_control asks a zygote for a fresh worker per submission, memory_cgroup counts a
worker's memory, and isolated_submission is the `submission` fixture backed by a worker. What
runs inside the sandbox is the sibling package sandbox_inside, copied in by file path."""
