"""Batch grading speed: 100 submissions of one challenge, with --jobs 1 and --jobs 2.

    python bench/bench_batch.py [--count 100] [--challenge scaled_dot_product_attention]

The submissions are generated from the challenge's reference solution and its known
correct styles (exercises/<id>/meta/variants/ok_*), its classic bugs (bug_*: each a .py or a
.patch against the solution) and
hostile ones (a crash in every call, a hang, memory over the limit, a forbidden API, a
syntax error, a flood of output), in a fixed mix. Each run grades them all from scratch
(--force) through the same grade_batch() that `quiz grade --batch` calls. The target is
a ratio, since these machines' speed drifts 2-3x between hours: --jobs 2 takes at most 16
plain `python -c "import torch"` timed in the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HOSTILE = {
    "crash_every_call": "import os\n\ndef {name}(*args, **kwargs):\n    os._exit(3)\n",
    "hang": "def {name}(*args, **kwargs):\n    while True:\n        pass\n",
    "memory_hog": "import torch\n\ndef {name}(*args, **kwargs):\n    return torch.ones(2**31, dtype=torch.float64)\n",
    "forbidden": "import torch.nn.functional as F\n\ndef {name}(Q, K, V, mask=None):\n"
                 "    return F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)\n",
    "syntax_error": "def {name}(Q, K, V, mask=None)\n    return Q\n",
    "output_flood": "import sys\n\ndef {name}(*args, **kwargs):\n    sys.stdout.write('spam ' * 100000)\n"
                    "    raise ValueError('no')\n",
}


def torch_import_seconds() -> float:
    """A plain `python -c "import torch"`, as a whole process: the machine's speed right now."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - start


def make_submissions(folder: Path, challenge_id: str, count: int, name: str) -> dict[str, int]:
    """`count` submissions in `folder`: 60% correct, 30% buggy, 10% hostile. Returns the mix."""
    from quizforge.challenges import load_challenge

    challenge = load_challenge(challenge_id)
    correct = [(ROOT / "solutions" / f"{challenge_id}.py").read_text(), *(v.text for v in challenge.variants("ok"))]
    buggy = [v.text for v in challenge.variants("bug")]
    hostile = [text.format(name=name) for text in HOSTILE.values()]
    mix = {"correct": 0, "buggy": 0, "hostile": 0}
    for i in range(count):
        target = folder / f"student{i:03d}.py"
        slot = i % 10
        if slot == 9:
            target.write_text(hostile[(i // 10) % len(hostile)])
            mix["hostile"] += 1
        elif slot >= 6:
            target.write_text(buggy[i % len(buggy)])
            mix["buggy"] += 1
        else:
            target.write_text(correct[i % len(correct)])
            mix["correct"] += 1
    return mix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--challenge", default="scaled_dot_product_attention")
    args = parser.parse_args()

    from quizforge.challenges import load_challenge
    from quizforge.grading.batch.driver import grade_batch

    challenge = load_challenge(args.challenge)
    with tempfile.TemporaryDirectory(prefix="quizforge-bench-batch-") as tmp:
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        mix = make_submissions(folder, challenge.id, args.count, challenge.names[0])
        print(f"{args.challenge}: {args.count} submissions ({mix['correct']} correct, {mix['buggy']} buggy, "
              f"{mix['hostile']} hostile)")
        seconds = {}
        for jobs in (1, 2):
            start = time.perf_counter()
            report = grade_batch(folder, challenge, Path(tmp) / f"out{jobs}", jobs=jobs, force=True)
            seconds[jobs] = time.perf_counter() - start
            assert len(report.graded) + len(report.problems) == args.count
            print(f"  --jobs {jobs}: {seconds[jobs]:6.1f} s   {args.count / seconds[jobs]:5.1f} submissions/s"
                  f"   ({len(report.graded)} graded, {len(report.problems)} not gradable)")
        imports = sorted(torch_import_seconds() for _ in range(5))
        torch_import = imports[len(imports) // 2]
        ratio = seconds[2] / torch_import
        print(f"  speed-up of --jobs 2 over --jobs 1: {seconds[1] / seconds[2]:.2f}x")
        print(f"  python -c 'import torch': {torch_import:.2f} s (median of 5, this run); load {os.getloadavg()[0]:.1f}")
        print(f"  --jobs 2 / torch import: {ratio:.1f} imports   target ≤ 16: {'met' if ratio <= 16 else 'missed'}")


if __name__ == "__main__":
    main()
