"""The wire format between the judge and the worker: length-prefixed frames of plain data.

A frame is

    b"QZF1" | header length (u32, big-endian) | data length (u64) | header | data

where the header is one value encoded as JSON (UTF-8) and the data section holds the
raw bytes of the tensors the header mentions. Encoded values:

    null, true, false, ints, finite floats, strings      as themselves
    {"F": "nan" | "inf" | "-inf"}                         a non-finite float
    {"L": [...]}  {"T": [...]}                            a list, a tuple
    {"D": [[key, value], ...]}                            a dict with str keys
    {"I": [[key, value], ...]}                            a dict with int keys (a BPE vocabulary)
    {"B": "68656c6c6f"}                                   bytes, as lowercase hex
    {"X": [dtype, shape, offset, nbytes]}                 a tensor, bytes in the data section
    {"dtype": "float32"}  {"device": "cpu"}               a torch.dtype, a torch.device
    {"G": {"X": ...}}                                     a CPU torch.Generator, by its state

This module runs on both sides of the pipe, so it imports only the standard library
and torch. Decoding is strict, because the judge decodes what an untrusted process sent: sizes,
depth and counts are bounded, every node is type-checked, and each tensor is built
by the decoder from bytes as a plain `torch.Tensor` that owns its memory. Nothing is
ever unpickled. Anything malformed raises ProtocolError.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import struct
import time
from dataclasses import dataclass
from typing import Any

import torch

MAGIC = b"QZF1"
_PREFIX = struct.Struct(">4sIQ")

DTYPES: dict[str, torch.dtype] = {
    "bool": torch.bool, "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64, "complex64": torch.complex64,
    "complex128": torch.complex128,
}
_DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
_DEVICE = re.compile(r"(cpu|cuda|meta|mps)(:\d{1,3})?")
_INT_RANGE = (-(2**63), 2**64 - 1)
_HEX = re.compile(r"(?:[0-9a-f]{2})*")


@dataclass(frozen=True)
class FrameLimits:
    header_bytes: int = 16 * 2**20
    data_bytes: int = 256 * 2**20    # far above any suite's tensors; bounds what the judge buffers
    depth: int = 32
    nodes: int = 200_000          # values of any kind in one frame
    string_chars: int = 2**20
    tensors: int = 10_000
    ndim: int = 16


LIMITS = FrameLimits()


class ProtocolError(Exception):
    """The other side sent something that is not a well-formed frame of plain data."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class FrameTimeout(Exception):
    """The other side did not finish a frame before the deadline."""


class FrameEOF(Exception):
    """The other side closed the pipe."""


def _bad(message: str) -> ProtocolError:
    return ProtocolError(f"the worker sent malformed data: {message}")


class EncodeError(TypeError):
    """A value that cannot cross: not plain data."""


# --- encoding ------------------------------------------------------------------

def _tensor_bytes(tensor: torch.Tensor) -> tuple[str, list[int], bytes]:
    # Subclasses are read through the base class, so an override cannot decide what is sent.
    with torch._C.DisableTorchFunctionSubclass():
        plain = torch.Tensor.detach(tensor)
        if plain.layout != torch.strided:
            raise EncodeError(f"a {plain.layout} tensor cannot be sent; convert it to a dense one")
        if plain.is_quantized or plain.dtype not in _DTYPE_NAMES:
            raise EncodeError(f"tensors of dtype {plain.dtype} cannot be sent")
        if plain.device.type == "meta":
            raise EncodeError("a tensor on the meta device has no values to send")
        plain = plain.cpu().resolve_conj().resolve_neg().contiguous()
        shape = list(plain.shape)
        if plain.numel() == 0:
            return _DTYPE_NAMES[plain.dtype], shape, b""
        raw = plain.reshape(-1).view(torch.uint8).numpy().tobytes()
    return _DTYPE_NAMES[plain.dtype], shape, raw


def encode(value: Any) -> bytes:
    """One value as a complete frame. Raises EncodeError for anything that is not plain data."""
    chunks: list[bytes] = []
    offset = 0

    def walk(v: Any, depth: int) -> Any:
        nonlocal offset
        if depth > LIMITS.depth:
            raise EncodeError("the value is nested too deeply")
        if v is None or type(v) is bool or type(v) is str:
            return v
        if type(v) is int:
            if not _INT_RANGE[0] <= v <= _INT_RANGE[1]:
                raise EncodeError("an int outside the 64-bit range cannot be sent")
            return v
        if type(v) is float:
            if math.isfinite(v):
                return v
            return {"F": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
        if type(v) is list:
            return {"L": [walk(x, depth + 1) for x in v]}
        if type(v) is tuple:
            return {"T": [walk(x, depth + 1) for x in v]}
        if type(v) is bytes:
            if 2 * len(v) > LIMITS.string_chars:
                raise EncodeError("bytes too long to send")
            return {"B": v.hex()}
        if type(v) is dict:
            if v and all(type(k) is int for k in v):
                if not all(_INT_RANGE[0] <= k <= _INT_RANGE[1] for k in v):
                    raise EncodeError("an int key outside the 64-bit range cannot be sent")
                return {"I": [[k, walk(x, depth + 1)] for k, x in v.items()]}
            if not all(type(k) is str for k in v):
                raise EncodeError("only dicts with str keys, or with int keys, can be sent")
            return {"D": [[k, walk(x, depth + 1)] for k, x in v.items()]}
        if isinstance(v, torch.Tensor):
            dtype, shape, raw = _tensor_bytes(v)
            node = {"X": [dtype, shape, offset, len(raw)]}
            chunks.append(raw)
            offset += len(raw)
            return node
        if isinstance(v, torch.dtype):
            if v not in _DTYPE_NAMES:
                raise EncodeError(f"{v} cannot be sent")
            return {"dtype": _DTYPE_NAMES[v]}
        if isinstance(v, torch.device):
            return {"device": str(v)}
        if type(v) is torch.Generator:
            if v.device.type != "cpu":
                raise EncodeError("only CPU generators can be sent")
            return {"G": walk(v.get_state(), depth + 1)}
        raise EncodeError(f"a {type(v).__module__}.{type(v).__qualname__} cannot be sent; only tensors, "
                          "numbers, strings, bytes, lists, tuples, dicts, dtypes and devices can")

    header = json.dumps(walk(value, 0), allow_nan=False, separators=(",", ":")).encode()
    data = b"".join(chunks)
    if len(header) > LIMITS.header_bytes or len(data) > LIMITS.data_bytes:
        raise EncodeError("the value is too large to send")
    return _PREFIX.pack(MAGIC, len(header), len(data)) + header + data


# --- decoding ------------------------------------------------------------------

def _no_constants(name: str) -> None:
    raise ValueError(f"bare {name}")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len(pairs) != 1:
        raise ValueError("a node must have exactly one key")
    return dict(pairs)


class _Decoder:
    def __init__(self, data: bytearray):
        self.data = data
        self.nodes = 0
        self.tensors = 0

    def value(self, node: Any, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > LIMITS.nodes:
            raise _bad("too many values")
        if depth > LIMITS.depth:
            raise _bad("nested too deeply")
        if node is None or type(node) is bool:
            return node
        if type(node) is int:
            if not _INT_RANGE[0] <= node <= _INT_RANGE[1]:
                raise _bad("an int out of range")
            return node
        if type(node) is float:
            return node
        if type(node) is str:
            if len(node) > LIMITS.string_chars:
                raise _bad("a string that is too long")
            return node
        if type(node) is not dict:
            raise _bad(f"an untagged {type(node).__name__}")
        ((tag, body),) = node.items()
        if tag in ("L", "T"):
            if type(body) is not list:
                raise _bad("a sequence that is not a list")
            items = [self.value(x, depth + 1) for x in body]
            return items if tag == "L" else tuple(items)
        if tag == "D":
            if type(body) is not list:
                raise _bad("a dict that is not a list of pairs")
            out: dict[str, Any] = {}
            for pair in body:
                if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
                    raise _bad("a dict entry that is not a [str, value] pair")
                if pair[0] in out:
                    raise _bad("a dict with a repeated key")
                if len(pair[0]) > LIMITS.string_chars:
                    raise _bad("a key that is too long")
                out[pair[0]] = self.value(pair[1], depth + 1)
            return out
        if tag == "I":
            if type(body) is not list or not body:
                raise _bad("an int-keyed dict that is not a non-empty list of pairs")
            keyed: dict[int, Any] = {}
            for pair in body:
                if (type(pair) is not list or len(pair) != 2 or type(pair[0]) is not int
                        or not _INT_RANGE[0] <= pair[0] <= _INT_RANGE[1]):
                    raise _bad("a dict entry that is not an [int, value] pair")
                if pair[0] in keyed:
                    raise _bad("a dict with a repeated key")
                keyed[pair[0]] = self.value(pair[1], depth + 1)
            return keyed
        if tag == "B":
            if type(body) is not str or len(body) > LIMITS.string_chars or not _HEX.fullmatch(body):
                raise _bad("bytes that are not an even number of lowercase hex digits")
            return bytes.fromhex(body)
        if tag == "F":
            if body not in ("nan", "inf", "-inf"):
                raise _bad("an unknown float constant")
            return float(body)
        if tag == "X":
            return self.tensor(body)
        if tag == "dtype":
            if type(body) is not str or body not in DTYPES:
                raise _bad("an unknown dtype")
            return DTYPES[body]
        if tag == "device":
            if type(body) is not str or not _DEVICE.fullmatch(body):
                raise _bad("an unknown device")
            return torch.device(body)
        if tag == "G":
            state = self.value(body, depth + 1)
            if not isinstance(state, torch.Tensor) or state.dtype != torch.uint8 or state.dim() != 1:
                raise _bad("a generator whose state is not a byte vector")
            generator = torch.Generator()
            try:
                generator.set_state(state)
            except RuntimeError:
                raise _bad("a generator with an invalid state") from None
            return generator
        raise _bad("an unknown tag")

    def tensor(self, body: Any) -> torch.Tensor:
        self.tensors += 1
        if self.tensors > LIMITS.tensors:
            raise _bad("too many tensors")
        if type(body) is not list or len(body) != 4:
            raise _bad("a tensor without [dtype, shape, offset, nbytes]")
        name, shape, offset, nbytes = body
        if type(name) is not str or name not in DTYPES:
            raise _bad("a tensor of an unknown dtype")
        if (type(shape) is not list or len(shape) > LIMITS.ndim
                or not all(type(d) is int and 0 <= d <= LIMITS.data_bytes for d in shape)):
            raise _bad("a tensor with an invalid shape")
        if type(offset) is not int or type(nbytes) is not int or offset < 0 or nbytes < 0:
            raise _bad("a tensor with an invalid byte range")
        dtype = DTYPES[name]
        numel = math.prod(shape)
        if numel * dtype.itemsize != nbytes or offset + nbytes > len(self.data):
            raise _bad("a tensor whose bytes do not match its shape and dtype")
        if numel == 0:
            return torch.empty(shape, dtype=dtype)
        # One copy into a fresh, aligned tensor that owns its memory and is of no type but
        # torch.Tensor: the bytes are copied as uint8 (no alignment needed), then viewed.
        owned = torch.empty(nbytes, dtype=torch.uint8)
        owned.copy_(torch.frombuffer(self.data, dtype=torch.uint8, offset=offset, count=nbytes))
        if dtype == torch.bool:
            if bool((owned > 1).any()):
                raise _bad("a bool tensor with bytes other than 0 and 1")
            return owned.view(torch.bool).reshape(shape)
        return owned.view(dtype).reshape(shape)


def _check_ranges(tree: Any, data_bytes: int) -> None:
    """Before any tensor is built: the tensors' byte ranges must tile the data section in
    order, as encode() lays them out. A range that overlaps another, leaves a gap or runs
    past the end would let a small frame claim many times its size in the judge's memory."""
    cursor = 0
    todo = [tree]
    while todo:
        node = todo.pop()
        if type(node) is list:
            todo.extend(reversed(node))
        elif type(node) is dict:
            ((tag, body),) = node.items()
            if tag == "X":
                if type(body) is not list or len(body) != 4 or type(body[2]) is not int or type(body[3]) is not int:
                    raise _bad("a tensor without [dtype, shape, offset, nbytes]")
                offset, nbytes = body[2], body[3]
                if offset != cursor or nbytes < 0 or offset + nbytes > data_bytes:
                    raise _bad("a tensor whose bytes overlap another's or lie outside the data section")
                cursor += nbytes
            else:
                todo.append(body)
    if cursor != data_bytes:
        raise _bad("a data section with bytes that no tensor claims")


def decode(header: bytes | bytearray, data: bytearray) -> Any:
    try:
        tree = json.loads(bytes(header).decode("utf-8"), parse_constant=_no_constants, object_pairs_hook=_pairs)
    except (ValueError, RecursionError) as exc:
        raise _bad(f"the header is not valid JSON ({type(exc).__name__})") from None
    _check_ranges(tree, len(data))
    try:
        return _Decoder(data).value(tree, 0)
    except RecursionError:
        raise _bad("nested too deeply") from None


# --- pipes ---------------------------------------------------------------------

def _read_exact(fd: int, n: int, deadline: float | None) -> bytearray:
    buf = bytearray()
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while len(buf) < n:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not poller.poll(remaining * 1000):
                raise FrameTimeout()
        chunk = os.read(fd, min(n - len(buf), 1 << 20))
        if not chunk:
            raise FrameEOF()
        buf += chunk
    return buf


def read_frame(fd: int, deadline: float | None = None, max_bytes: int | None = None) -> Any:
    """Read and decode one frame of at most `max_bytes` (header and data; the global limits
    when None). Raises FrameTimeout, FrameEOF or ProtocolError."""
    magic, header_len, data_len = _PREFIX.unpack(bytes(_read_exact(fd, _PREFIX.size, deadline)))
    if magic != MAGIC:
        raise _bad("a frame that does not start with the protocol's magic bytes")
    if header_len > LIMITS.header_bytes or data_len > LIMITS.data_bytes:
        raise _bad(f"a frame of {header_len + data_len} bytes, over the limit")
    if max_bytes is not None and header_len + data_len > max_bytes:
        raise _bad(f"a reply of {header_len + data_len} bytes where at most {max_bytes} were expected")
    header = _read_exact(fd, header_len, deadline)
    data = _read_exact(fd, data_len, deadline) if data_len else bytearray()
    return decode(header, data)


def decode_frame(frame: bytes | bytearray) -> Any:
    """Decode one whole frame held in memory (what write_frame would send)."""
    if len(frame) < _PREFIX.size:
        raise _bad("a frame shorter than its prefix")
    magic, header_len, data_len = _PREFIX.unpack(bytes(frame[:_PREFIX.size]))
    if magic != MAGIC or len(frame) != _PREFIX.size + header_len + data_len:
        raise _bad("a frame whose prefix does not match its length")
    header = frame[_PREFIX.size:_PREFIX.size + header_len]
    return decode(header, bytearray(frame[_PREFIX.size + header_len:]))


def write_frame(fd: int, frame: bytes, deadline: float | None = None) -> None:
    """Write a whole frame. With a deadline the fd must be non-blocking; raises FrameTimeout.
    A closed reader raises BrokenPipeError."""
    view = memoryview(frame)
    poller = select.poll()
    poller.register(fd, select.POLLOUT | select.POLLERR)
    while view:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not poller.poll(remaining * 1000):
                raise FrameTimeout()
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            continue
        view = view[written:]
