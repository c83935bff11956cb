"""The judge (trusted): runs a challenge's hidden suite in this process and decides the score.

The suite sees the submission only through requests (request_submission), answered by a
sandboxed worker (sandbox_host/isolated_submission) or, for trusted code, by the worker's own
handling in this process (loopback_submission). The limits, rules and captured output a grading
runs under are the judge's data, which the sandbox's host side carries to the worker."""
