"""The judge/worker wire format: what crosses, and what the judge refuses to decode."""

import json
import math
import os
import struct
import time

import pytest
import torch

from quizforge.grading.sandbox_inside import protocol


def roundtrip(value):
    frame = protocol.encode(value)
    magic, header_len, data_len = struct.unpack(">4sIQ", frame[:16])
    assert magic == protocol.MAGIC and len(frame) == 16 + header_len + data_len
    return protocol.decode(frame[16:16 + header_len], bytearray(frame[16 + header_len:]))


def decode_header(header: str, data: bytes = b""):
    return protocol.decode(header.encode(), bytearray(data))


def test_plain_values_cross_unchanged():
    value = {"none": None, "flags": [True, False], "ints": (0, -7, 2**63 - 1), "text": "héllo",
             "floats": [1.5, -0.0, 1e300], "nested": {"a": [[{"b": (1,)}]]}, "empty": ([], (), {})}
    assert roundtrip(value) == value
    assert type(roundtrip((1, 2))) is tuple and type(roundtrip([1, 2])) is list
    assert type(roundtrip(1)) is int and type(roundtrip(1.0)) is float and type(roundtrip(True)) is bool


def test_non_finite_floats_cross():
    out = roundtrip([math.inf, -math.inf, math.nan])
    assert out[0] == math.inf and out[1] == -math.inf and math.isnan(out[2])


@pytest.mark.parametrize("dtype", list(protocol.DTYPES.values()))
def test_tensors_of_every_dtype_cross_bit_exact(dtype):
    base = torch.arange(-6, 6).reshape(3, 4)
    if dtype == torch.bool:
        tensor = base % 2 == 0
    elif dtype.is_floating_point or dtype.is_complex:
        tensor = base.to(dtype) / 3
    else:
        tensor = base.to(dtype)
    out = roundtrip(tensor)
    assert type(out) is torch.Tensor and out.dtype == dtype and out.shape == (3, 4)
    raw = (lambda t: t) if dtype == torch.bool else (lambda t: t.reshape(-1).view(torch.uint8))
    assert torch.equal(raw(out), raw(tensor))


def test_tensor_views_scalars_and_empties_cross():
    t = torch.randn(4, 5, generator=torch.Generator().manual_seed(0))
    assert torch.equal(roundtrip(t.t()), t.t())
    assert torch.equal(roundtrip(t[:, 1]), t[:, 1])
    scalar = roundtrip(torch.tensor(2.5, dtype=torch.float64))
    assert scalar.shape == () and scalar.item() == 2.5
    assert roundtrip(torch.zeros(0, 3)).shape == (0, 3)
    grad = roundtrip(torch.ones(2, requires_grad=True))
    assert not grad.requires_grad


def test_dtypes_and_devices_cross():
    assert roundtrip([torch.float16, torch.device("cpu")]) == [torch.float16, torch.device("cpu")]


def test_a_tensor_subclass_arrives_as_a_plain_tensor_with_its_real_values():
    class AlwaysEqual(torch.Tensor):
        def __eq__(self, other):
            return True

        def allclose(self, *args, **kwargs):
            return True

    liar = torch.zeros(3).as_subclass(AlwaysEqual)
    out = roundtrip(liar)
    assert type(out) is torch.Tensor
    assert not torch.allclose(out, torch.ones(3))


def test_decoded_tensors_own_their_memory():
    frame = protocol.encode(torch.ones(4))
    _, header_len, _ = struct.unpack(">4sIQ", frame[:16])
    data = bytearray(frame[16 + header_len:])
    out = protocol.decode(frame[16:16 + header_len], data)
    data[:] = b"\x00" * len(data)
    assert torch.equal(out, torch.ones(4))


def test_bytes_and_int_keyed_dicts_cross():
    vocab = {0: b"\x00", 256: b"<|endoftext|>", 300: "é".encode()}
    assert roundtrip(vocab) == vocab and roundtrip([(b"a", b"")]) == [(b"a", b"")]


@pytest.mark.parametrize("value", [object(), {1: "int key", "a": "and a str key"}, {(1,): "tuple key"},
                                   {2**64: "huge key"}, bytearray(b"x"), {"f": len}, 2**64, [torch.ones(1).to_sparse()],
                                   torch.empty(2, device="meta")])
def test_encoding_refuses_what_is_not_plain_data(value):
    with pytest.raises(protocol.EncodeError):
        protocol.encode(value)


@pytest.mark.parametrize("header, data, problem", [
    ('[1, 2]', b"", "untagged list"),
    ('{"Q": 1}', b"", "unknown tag"),
    ('{"L": 1}', b"", "not a list"),
    ('{"L": [1], "T": [2]}', b"", "not valid JSON"),
    ('NaN', b"", "not valid JSON"),
    ('{"F": "zero"}', b"", "float constant"),
    ('{"D": [["a", 1], ["a", 2]]}', b"", "repeated key"),
    ('{"D": [[1, 2]]}', b"", "[str, value] pair"),
    ('{"I": [["1", 2]]}', b"", "[int, value] pair"),
    ('{"I": [[true, 2]]}', b"", "[int, value] pair"),
    ('{"I": [[1, 2], [1, 3]]}', b"", "repeated key"),
    ('{"I": []}', b"", "non-empty list"),
    ('{"B": "0A"}', b"", "lowercase hex"),
    ('{"B": "0 a"}', b"", "lowercase hex"),
    ('{"B": "abc"}', b"", "lowercase hex"),
    ('{"dtype": "object"}', b"", "unknown dtype"),
    ('{"device": "cpu; rm -rf"}', b"", "unknown device"),
    ('{"X": ["float32", [2], 0, 8]}', b"\x00" * 4, "outside the data section"),
    ('{"L": [{"X": ["float32", [2], 0, 8]}, {"X": ["float32", [2], 0, 8]}]}', b"\x00" * 8, "overlap"),
    ('{"L": [{"X": ["float32", [1], 4, 4]}, {"X": ["float32", [1], 0, 4]}]}', b"\x00" * 8, "overlap"),
    ('{"X": ["float32", [1], 0, 4]}', b"\x00" * 8, "no tensor claims"),
    ('{"X": ["float32", [3], 0, 8]}', b"\x00" * 8, "do not match"),
    ('{"X": ["float32", [-2], 0, 8]}', b"\x00" * 8, "invalid shape"),
    ('{"X": ["pickle", [1], 0, 1]}', b"\x00", "unknown dtype"),
    ('{"X": ["bool", [2], 0, 2]}', b"\x01\x07", "bytes other than 0 and 1"),
    ('99999999999999999999999', b"", "out of range"),
    ('[' * 50_000 + ']' * 50_000, b"", "not valid JSON"),
    ('{"L": [' * 40 + "1" + "]}" * 40, b"", "nested too deeply"),
])
def test_malformed_input_is_a_protocol_error(header, data, problem):
    with pytest.raises(protocol.ProtocolError) as info:
        decode_header(header, data)
    assert problem in info.value.message


def test_too_many_values_are_refused():
    header = json.dumps({"L": [0] * (protocol.LIMITS.nodes + 1)})
    with pytest.raises(protocol.ProtocolError, match="too many values"):
        decode_header(header)


def pipe_with(data: bytes) -> int:
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    return read


def test_frames_cross_a_pipe():
    value = {"t": torch.arange(6.0).reshape(2, 3), "s": "ok"}
    fd = pipe_with(protocol.encode(value))
    out = protocol.read_frame(fd, time.monotonic() + 5)
    assert out["s"] == "ok" and torch.equal(out["t"], value["t"])
    with pytest.raises(protocol.FrameEOF):
        protocol.read_frame(fd, time.monotonic() + 5)
    os.close(fd)


def test_a_frame_with_the_wrong_magic_or_an_oversized_length_is_refused():
    fd = pipe_with(b"HTTP/1.1 200 OK\r\n\r\n")
    with pytest.raises(protocol.ProtocolError, match="magic"):
        protocol.read_frame(fd, time.monotonic() + 5)
    os.close(fd)
    fd = pipe_with(struct.pack(">4sIQ", protocol.MAGIC, 10, 2**40))
    with pytest.raises(protocol.ProtocolError, match="over the limit"):
        protocol.read_frame(fd, time.monotonic() + 5)
    os.close(fd)


def test_a_half_written_frame_times_out():
    read, write = os.pipe()
    os.write(write, protocol.encode("hello")[:10])
    start = time.monotonic()
    with pytest.raises(protocol.FrameTimeout):
        protocol.read_frame(read, start + 0.3)
    assert 0.25 < time.monotonic() - start < 3
    os.close(read)
    os.close(write)


def test_a_cpu_generator_crosses_by_its_state_and_draws_the_same():
    generator = torch.Generator().manual_seed(7)
    torch.rand(3, generator=generator)  # not at its initial state any more
    copy = roundtrip(generator)
    assert type(copy) is torch.Generator and copy is not generator
    assert torch.equal(torch.rand(5, generator=copy), torch.rand(5, generator=generator))


def test_a_generator_with_a_bad_state_is_refused():
    header = json.dumps({"G": {"X": ["float32", [2], 0, 8]}})
    with pytest.raises(protocol.ProtocolError, match="generator"):
        decode_header(header, b"\x00" * 8)
    header = json.dumps({"G": {"X": ["uint8", [3], 0, 3]}})
    with pytest.raises(protocol.ProtocolError, match="invalid state"):
        decode_header(header, b"\x01\x02\x03")


def overlapping_frame(entries: int, nbytes: int) -> bytes:
    """The attack: many tensors that all claim the same range of one data section."""
    numel = nbytes // 4
    header = json.dumps({"D": [["id", 1], ["ok", True],
                               ["value", {"L": [{"X": ["float32", [numel], 0, nbytes]}] * entries}]]}).encode()
    return struct.pack(">4sIQ", protocol.MAGIC, len(header), nbytes) + header + bytes(nbytes)


def test_tensors_that_share_one_range_are_refused_before_any_is_built():
    with pytest.raises(protocol.ProtocolError, match="overlap"):
        protocol.decode_frame(overlapping_frame(16, 2**20))


def test_a_reply_over_its_cap_is_refused_from_its_prefix(tmp_path):
    frame = protocol.encode({"id": 1, "ok": True, "value": torch.zeros(2**18)})
    (tmp_path / "frame").write_bytes(frame)
    fd = os.open(tmp_path / "frame", os.O_RDONLY)
    with pytest.raises(protocol.ProtocolError, match=f"at most {2**16} were expected"):
        protocol.read_frame(fd, time.monotonic() + 5, max_bytes=2**16)
    assert os.lseek(fd, 0, os.SEEK_CUR) == 16  # nothing past the prefix was read
    os.close(fd)
    fd = os.open(tmp_path / "frame", os.O_RDONLY)
    assert protocol.read_frame(fd, time.monotonic() + 5, max_bytes=len(frame))["value"].numel() == 2**18
    os.close(fd)


def test_the_overlapping_frame_costs_the_judge_less_than_twice_its_size(tmp_path):
    """16 tensors over one 32 MiB range once took the judge to 1.7 GiB. Measured in a fresh
    process: its peak resident memory grows by less than twice the frame."""
    import subprocess
    import sys

    size = 32 * 2**20
    frame = tmp_path / "frame"
    frame.write_bytes(overlapping_frame(16, size))
    script = f"""
import resource, sys, time
from quizforge.grading.sandbox_inside import protocol
fd = __import__("os").open({str(frame)!r}, __import__("os").O_RDONLY)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
try:
    protocol.read_frame(fd, time.monotonic() + 30)
except protocol.ProtocolError as exc:
    print("refused", exc.message)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    refused, grown = out.stdout.strip().splitlines()
    assert refused.startswith("refused") and "overlap" in refused
    assert int(grown) < 2 * size


def test_the_reply_cap_grows_with_what_the_test_expects_and_no_further():
    from quizforge.grading.judge.request_submission import expecting_reply
    from quizforge.grading.sandbox_host.sandbox import reply_cap

    assert reply_cap(1000) == 4 * 1000 + 2**20
    with expecting_reply(8 * 2048 * 64):   # a 2048 x 64 table, counted as float64
        assert reply_cap(1000) == 4 * (1000 + 8 * 2048 * 64) + 2**20
    assert reply_cap(1000) == 4 * 1000 + 2**20
