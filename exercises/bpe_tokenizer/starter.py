"""Challenge: a byte-level BPE tokenizer. See README.md."""

import re

PRETOKEN = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")


def train_bpe(text: str, vocab_size: int, special_tokens: list[str]) -> tuple[dict[int, bytes],
                                                                             list[tuple[bytes, bytes]]]:
    """The vocabulary (bytes, special tokens, merges) and the merges in the order they were made."""
    raise NotImplementedError("write train_bpe")


def encode(text: str, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]]) -> list[int]:
    raise NotImplementedError("write encode")


def decode(ids: list[int], vocab: dict[int, bytes]) -> str:
    raise NotImplementedError("write decode")
