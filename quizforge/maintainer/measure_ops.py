"""Check that honest submissions never reach a kernel their challenge withholds.

    python -m quizforge.maintainer.measure_ops             # every challenge
    python -m quizforge.maintainer.measure_ops softmax ...  # only these

Run from a source checkout (it reads solutions/ and each exercises/<id>/, variants included:
each a whole .py or a .patch against the solution, see quizforge.challenges.variants).
It is a maintainer's tool beside the grader, not part of the challenges, because it runs the
judge and the worker's request handling: the challenges never import the grader. The worker's dispatch guard
(quizforge/grading/sandbox_inside/guards.py) withholds the fused kernels that compute a
challenge's answer (guards.WITHHELD_BY_LEAF, from its `forbidden` list) and nothing else. This
records, under a TorchDispatchMode, the ops reached by

* the hidden suite run against solutions/<id>.py and every variant in exercises/<id>/meta/variants/
  (correct styles and honest mistakes), with the worker's own request handling inside the
  recording, as in the sandbox; and the exercise's public tests against the same files;
* a common vocabulary of idioms a student may reasonably write (IDIOMS below: einsum for
  matmul, strided writes into `empty_like`, `view_as_complex`, masked_fill or where, ...),
  each forward and backward, which the tests also run through the real grading path;

and names every withheld op an honest file reaches: a rule that would refuse honest code.

Names are overload packets ("aten::add", not "aten::add.Tensor"): the overloads of one op
compute the same thing on other argument kinds, and what a challenge withholds is always a
whole packet.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from quizforge.grading.sandbox_inside.guards import withheld

CHECKOUT = Path(__file__).resolve().parent.parent.parent


# --- the common vocabulary ---------------------------------------------------------------

def _idioms_core(torch) -> None:
    F = torch.nn.functional
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 4, generator=g, requires_grad=True)
    y = torch.randn(2, 3, 4, generator=g, requires_grad=True)
    w = torch.randn(4, 5, generator=g, requires_grad=True)
    positive = x.abs() + 1
    out = [
        # elementwise
        x + y, x - y, x * y, x / y, x + 1, x * 2.0, 2.0 - x, 1 / positive, -x, x.abs(), x.exp(), x.exp2(),
        x.expm1(), positive.log(), positive.log1p(), positive.log2(), positive.sqrt(), positive.rsqrt(),
        x.pow(2), positive.pow(y), x ** 2, 2 ** x, x.square(), positive.reciprocal(), x.sin(), x.cos(), x.tan(),
        x.tanh(), x.sigmoid(), x.erf(), x.clamp(-1, 1), x.clamp(min=0), x.clamp(max=0), x.clamp_min(0),
        x.clamp_max(0), torch.maximum(x, y), torch.minimum(x, y), torch.where(x > 0, x, y),
        torch.where(x > 0, x, 0.0), x.masked_fill(x > 0, float("-inf")).nan_to_num(0.0), x.sign() * x,
        x.floor() + x.ceil() + x.round() + x.trunc() + x.frac(), torch.fmod(x, 2.0), torch.remainder(x, 2.0),
        torch.lerp(x, y, 0.5), torch.addcmul(x, x, y, value=0.5), torch.addcdiv(x, y, positive),
        torch.atan2(x, positive), torch.hypot(x, y), x.cosh(), x.sinh(), x.atan(), x.asin().nan_to_num(),
        torch.logaddexp(x, y), torch.xlogy(x, positive), F.relu(x), F.gelu(x), F.gelu(x, approximate="tanh"),
        F.leaky_relu(x), F.elu(x), F.softplus(x), F.mish(x), F.relu6(x), F.hardtanh(x),
        torch.sigmoid(x) * x, F.logsigmoid(x), F.glu(torch.cat((x, y), -1)),
        # reductions
        x.sum(), x.sum(-1, keepdim=True), x.mean(), x.mean(-1, keepdim=True), x.var(-1, unbiased=False),
        x.var(-1, correction=0), x.var(), x.std(-1), torch.var_mean(x, -1, correction=0)[0],
        torch.std_mean(x, -1)[1], x.amax(-1), x.amin(-1), x.max(), x.min(), x.max(-1).values,
        x.max(-1, keepdim=True)[0], x.min(-1).values, torch.max(x, y), torch.min(x, y), x.prod(-1),
        x.cumsum(-1), x.cumprod(-1), x.norm(dim=-1), torch.linalg.vector_norm(x, dim=-1),
        torch.linalg.norm(x, dim=-1), F.normalize(x, dim=-1), x.nansum(), x.median(-1).values,
        x.sort(-1).values, x.topk(2, -1).values, x.kthvalue(2, -1).values,
        # matmul
        x @ w, torch.matmul(x, w), x.matmul(w), torch.einsum("bij,jk->bik", x, w),
        torch.einsum("bik,bjk->bij", x, y), x @ y.transpose(-2, -1), torch.bmm(x, y.transpose(1, 2)),
        x[0] @ w, torch.mm(x[0], w), x[0, 0] @ w, x[0, 0] @ x[0, 0], torch.dot(x[0, 0], y[0, 0]),
        torch.outer(x[0, 0], y[0, 0]), torch.addmm(w[0], x[0], w), torch.baddbmm(x @ y.transpose(1, 2), x, y.transpose(1, 2)),
        F.linear(x, w.T), F.linear(x, w.T, w[0]), torch.tensordot(x, w, dims=([2], [0])),
        x.unsqueeze(1) @ w, torch.mv(w.T, x[0, 0]),
        # shapes and views
        x.view(6, 4), x.reshape(2, 12), x.transpose(0, 1), x.transpose(-2, -1).contiguous(), x.permute(2, 0, 1),
        x[0].t(), x[0].T, x.mT, x.unsqueeze(0).squeeze(0), x.unsqueeze(-1).squeeze(), x.flatten(),
        x.flatten(1), x.unflatten(-1, (2, 2)), x[:, :1].expand(2, 3, 4), x[:, :1].expand_as(x), x.repeat(1, 2, 1),
        x.repeat_interleave(2, dim=1), x.clone(), x.detach() * x, torch.cat(x.chunk(2, -1), -1),
        torch.cat(x.split(1, 1), 1), torch.stack(x.unbind(1), 1), x.narrow(-1, 0, 2), x[..., 1:3], x[:, None],
        x[:, [0, 2]], x[x > 0], x[:, -1, :], x.index_select(1, torch.tensor([0, 2])),
        x.gather(-1, torch.zeros(2, 3, 1, dtype=torch.long)), x.flip(-1), x.roll(1, -1),
        torch.tril(x[0]), torch.triu(x[0], 1), x.movedim(0, -1), x.swapaxes(0, 1), x.diagonal(0, -2, -1),
        torch.hstack((x[0], y[0])), torch.vstack((x[0], y[0])), x.view_as(y), x.reshape_as(y), x.type_as(y),
        torch.broadcast_to(x[:, :1], (2, 3, 4)), torch.atleast_2d(x), x.float(), x.double().float(),
        torch.nn.functional.pad(x, (1, 1)), torch.diag(x[0, 0]),
        x.scatter(-1, torch.zeros(2, 3, 1, dtype=torch.long), 1.0), torch.take_along_dim(x, torch.zeros(2, 3, 1, dtype=torch.long), -1),
        x.unfold(-1, 2, 1), torch.cumsum(x, 0), torch.diff(x, dim=-1), torch.block_diag(x[0], y[0]),
    ]
    total = sum(t.sum() for t in out if t.is_floating_point())
    total.backward()
    # in place, on tensors that need no gradient
    z = x.detach().clone()
    z.add_(1).mul_(2).sub_(1).div_(2).clamp_(-1, 1).masked_fill_(z > 0.5, 0.0).exp_().neg_().abs_()
    z[0] = 1.0
    z[:, 0] = torch.zeros(4)
    z[z > 0] = 0.0
    z.copy_(y.detach()).zero_().fill_(1.0).pow_(2).sqrt_().tanh_()
    z.index_fill_(1, torch.tensor([0]), 2.0)
    z.scatter_(-1, torch.zeros(2, 3, 1, dtype=torch.long), 1.0)


def _idioms_creation(torch) -> None:
    g = torch.Generator().manual_seed(0)
    made = [
        torch.zeros(2, 3), torch.ones(2, 3, dtype=torch.bool), torch.full((2, 3), float("-inf")),
        torch.full((2, 3), True), torch.empty(2, 3).fill_(0), torch.arange(5), torch.arange(0, 4, 2).float(),
        torch.arange(4, dtype=torch.float32), torch.linspace(0, 1, 5), torch.eye(3), torch.tensor([1.0, 2.0]),
        torch.tensor(3.0), torch.tensor([[True, False]]), torch.as_tensor([1, 2]), torch.rand(2, generator=g),
        torch.randn(2, 2, generator=g), torch.randint(0, 5, (3,), generator=g), torch.randperm(4, generator=g),
        torch.zeros_like(torch.ones(2)), torch.ones_like(torch.ones(2)), torch.full_like(torch.ones(2), 3.0),
        torch.empty_like(torch.ones(2)).fill_(1), torch.rand_like(torch.ones(2)), torch.randn_like(torch.ones(2)),
        torch.ones(3, 3).tril(), torch.ones(3, 3, dtype=torch.bool).triu(1), torch.tril(torch.ones(3, 3)) == 0,
        torch.ones(2).new_zeros(3), torch.ones(2).new_ones(3), torch.ones(2).new_full((3,), 2.0),
        torch.ones(2).new_tensor([1.0]), torch.ones(2).new_empty(3).zero_(), torch.logspace(0, 1, 3),
        torch.tril_indices(3, 3), torch.triu_indices(3, 3), torch.meshgrid(torch.arange(2), torch.arange(3), indexing="ij")[0],
        torch.polar(torch.ones(2), torch.zeros(2)), torch.complex(torch.ones(2), torch.zeros(2)),
        torch.from_numpy(torch.ones(2).numpy()),
    ]
    ints = torch.arange(6).view(2, 3)
    a, b = torch.ones(3), torch.zeros(3)
    checks = [
        a == b, a != b, a < b, a <= b, a > b, a >= b, (a > 0) & (b > 0), (a > 0) | (b > 0), ~(a > 0), (a > 0) ^ (b > 0),
        torch.logical_and(a > 0, b > 0), torch.logical_or(a > 0, b > 0), torch.logical_not(a > 0),
        torch.isfinite(a), torch.isnan(a), torch.isinf(a), torch.isclose(a, b), torch.allclose(a, b) and a,
        torch.equal(a, b) and a, (a > 0).all(), (a > 0).any(), a.argmax(), a.argmin(), a.argsort(),
        torch.count_nonzero(a), torch.nonzero(a), a.bool(), a.long(), a.int(), a.to(torch.float64),
        a.to(dtype=torch.float16), a.to("cpu"), a.cpu(), ints // 2, ints % 2, ints * 2, ints.sum(), ints.max(),
        torch.bucketize(a, b), torch.searchsorted(torch.arange(3.0), a), a.unique(),
        torch.multinomial(torch.ones(2, 4), 1, generator=g), torch.multinomial(torch.ones(4), 2, replacement=True),
        torch.topk(a, 2).indices, a.sort(descending=True).indices, torch.bernoulli(torch.full((3,), 0.5), generator=g),
        torch.distributions.Categorical(probs=torch.ones(4) / 4).sample(), torch.where(a > 0), torch.clamp(ints, 0, 3), a.masked_select(a > 0),
        torch.nn.functional.one_hot(torch.arange(3), 4), a.view(torch.int32),
    ]
    a.sum().item()
    a.tolist()
    a.numpy()
    int(a[0])
    float(a.sum())
    bool(a[0] > 0)
    del made, checks


def _idioms_nn(torch) -> None:
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Dropout(0.1), nn.Linear(8, 4, bias=False), nn.ReLU(),
                          nn.Tanh(), nn.Sigmoid(), nn.Identity())
    embed = nn.Embedding(10, 4)
    layers = nn.ModuleList([nn.Linear(4, 4)])
    weight = nn.Parameter(torch.ones(4))
    bias = nn.Parameter(torch.zeros(4))
    buffer_owner = nn.Module()
    buffer_owner.register_buffer("mask", torch.ones(3, 3).tril())
    for init in (nn.init.normal_, nn.init.uniform_, nn.init.xavier_uniform_, nn.init.xavier_normal_,
                 nn.init.kaiming_uniform_, nn.init.kaiming_normal_, nn.init.zeros_, nn.init.ones_,
                 nn.init.trunc_normal_, nn.init.orthogonal_):
        init(torch.empty(4, 4))
    nn.init.constant_(torch.empty(4), 0.5)
    x = torch.randn(2, 3, 4)
    for switch in (model.train, model.eval):
        switch()
        out = model(x + embed(torch.tensor([[1, 2, 3], [4, 5, 6]])))
        out = layers[0](out) * weight + bias
        out.sum().backward()
        model.zero_grad(set_to_none=True)
    with torch.no_grad():
        model(x)
    torch.nn.functional.dropout(x, 0.1, training=True)
    model.state_dict()
    model.load_state_dict(model.state_dict())
    sum(p.numel() for p in model.parameters())


def _idioms_silu(torch) -> None:
    x = torch.randn(2, 3, requires_grad=True)
    (torch.nn.functional.silu(x) + torch.nn.SiLU()(x)).sum().backward()


def _idioms_logsumexp(torch) -> None:
    x = torch.randn(2, 3, requires_grad=True)
    (x.logsumexp(-1) + torch.logsumexp(x, 0).sum()).sum().backward()


def _idioms_softmax(torch) -> None:
    F = torch.nn.functional
    x = torch.randn(2, 3, requires_grad=True)
    (torch.softmax(x, -1) + F.softmax(x, dim=0) + x.softmax(-1) + F.log_softmax(x, -1) + torch.log_softmax(x, 0)
     + torch.nn.Softmax(dim=-1)(x)).sum().backward()
    F.cross_entropy(x, torch.tensor([0, 1])).backward()
    torch.softmax(x.detach().double(), -1)


def _idioms_norms(torch) -> None:
    F = torch.nn.functional
    x = torch.randn(2, 3, 4, requires_grad=True)
    norm = torch.nn.LayerNorm(4)
    (norm(x) + F.layer_norm(x, (4,)) + F.rms_norm(x, (4,))).sum().backward()


def _idioms_attention(torch) -> None:
    F = torch.nn.functional
    q = torch.randn(1, 2, 3, 4, requires_grad=True)
    mask = torch.ones(3, 3, dtype=torch.bool).tril()
    (F.scaled_dot_product_attention(q, q, q) + F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
     + F.scaled_dot_product_attention(q, q, q, is_causal=True)).sum().backward()


# Idioms by family; a challenge's vocabulary is every family whose ops it does not withhold.
IDIOMS: dict[str, Callable] = {"core": _idioms_core, "creation": _idioms_creation, "nn": _idioms_nn,
                               "silu": _idioms_silu, "logsumexp": _idioms_logsumexp, "softmax": _idioms_softmax,
                               "norms": _idioms_norms, "attention": _idioms_attention}


# --- recording ---------------------------------------------------------------------------

def op_name(func) -> str:
    """The overload packet of an OpOverload: "aten::add" for aten.add.Tensor."""
    schema = getattr(func, "_schema", None)
    return schema.name if schema is not None else str(func)


@contextlib.contextmanager
def recording(ops: set[str], only_from: str | None = None):
    """Record the packet of every op dispatched inside; with `only_from`, only ops reached
    while a frame of that file is on the stack."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            return False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if only_from is None or _on_stack(only_from):
                ops.add(op_name(func))
            return func(*args, **(kwargs or {}))

    with Recorder():
        yield


def _on_stack(filename: str) -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return True
        frame = frame.f_back
    return False


def vocabulary(families: Iterable[str]) -> set[str]:
    import torch

    ops: set[str] = set()
    for family in families:
        with recording(ops):
            IDIOMS[family](torch)
    return ops


def measure_suite(challenge_id: str, path: Path) -> set[str]:
    """Ops of the worker's side of grading `path` against the hidden suite (every request's
    decoding, handling and encoding), as in the sandbox."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.judge.hidden_suite import run_suite
    from quizforge.grading.judge.loopback_submission import LoopbackSubmission
    from quizforge.grading.sandbox_inside import protocol

    ops: set[str] = set()

    class Recorded(LoopbackSubmission):
        def _request(self, op: str, **fields):
            from quizforge.grading.judge.request_submission import reply_value

            self._next_id += 1
            frame = protocol.encode({"op": op, "id": self._next_id, **fields})
            with recording(ops):
                reply_frame = self._server.handle(protocol.decode_frame(frame))
            return reply_value(protocol.decode_frame(reply_frame), self._next_id, "out of memory")

    submission = Recorded(path)
    try:
        run_suite(load_challenge(challenge_id), submission, ["-p", "no:unraisableexception"])
    finally:
        submission.close()
    return ops


def measure_public(challenge_id: str, path: Path) -> set[str]:
    """Ops reached from `path`'s own code while the exercise's public tests run on it."""
    import pytest

    from quizforge.challenges import load_challenge

    ops: set[str] = set()
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(load_challenge(challenge_id).folder / "test_public.py", folder)
        starter = Path(folder) / "starter.py"
        shutil.copy(path, starter)
        (Path(folder) / "pytest.ini").write_text("[pytest]\n")
        for name in ("starter", "test_public"):
            sys.modules.pop(name, None)
        with recording(ops, only_from=str(starter)), contextlib.redirect_stdout(io.StringIO()):
            pytest.main([folder, "-q", "-p", "no:cacheprovider", "-p", "no:unraisableexception"])
        for name in ("starter", "test_public"):
            sys.modules.pop(name, None)
    return ops


def honest_files(challenge_id: str, folder: Path) -> list[Path]:
    """solutions/<id>.py and every variant, each written into `folder` as <name>.py (a .patch is a diff)."""
    from quizforge.challenges import load_challenge

    challenge = load_challenge(challenge_id)
    return [CHECKOUT / "solutions" / f"{challenge_id}.py",
            *(variant.write_to(folder) for variant in challenge.variants("ok") + challenge.variants("bug"))]


def withheld_reached(challenge_id: str) -> dict[str, set[str]]:
    """Withheld op -> the honest files that reach it: each one is a rule that would refuse
    honest code, to be fixed before a challenge ships (the tests call this too)."""
    from quizforge.challenges import load_challenge

    refused = withheld(load_challenge(challenge_id).forbidden)
    reached: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory(prefix="quizforge-variants-") as folder:
        for path in honest_files(challenge_id, Path(folder)):
            for op in measure_suite(challenge_id, path) | measure_public(challenge_id, path):
                if op in refused:
                    reached.setdefault(op, set()).add(path.name)
    return reached


def main(argv: list[str] | None = None) -> int:
    from quizforge.challenges import challenge_ids
    from quizforge.threads import single_thread

    parser = argparse.ArgumentParser(prog="python -m quizforge.maintainer.measure_ops", description=__doc__.split("\n")[0])
    parser.add_argument("challenges", nargs="*", help="challenge ids (default: all)")
    args = parser.parse_args(argv)
    if not (CHECKOUT / "solutions").is_dir():
        print(f"needs a source checkout: {CHECKOUT / 'solutions'} is not there", file=sys.stderr)
        return 2
    status = 0
    for challenge_id in args.challenges or challenge_ids():
        with single_thread():
            reached = withheld_reached(challenge_id)
        print(f"{challenge_id}: " + ("; ".join(f"{op} reached by {', '.join(sorted(files))}"
                                               for op, files in sorted(reached.items())) or "no withheld op reached"))
        status |= bool(reached)
    return status


if __name__ == "__main__":
    sys.exit(main())
