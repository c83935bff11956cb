"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

from starter import decode, encode, train_bpe


def test_the_example():
    vocab, merges = train_bpe("low low lower lowest", 259, [])
    assert merges == [(b"o", b"w"), (b"l", b"ow"), (b" ", b"low")]
    assert len(vocab) == 259 and vocab[97] == b"a" and vocab[258] == b" low"
    assert encode("low lowly", vocab, merges) == [257, 258, 108, 121]


def test_special_tokens_come_after_the_bytes_and_stay_whole():
    vocab, merges = train_bpe("ab<|end|>ab<|end|>ab", 258, ["<|end|>"])
    assert vocab[256] == b"<|end|>" and merges == [(b"a", b"b")] and vocab[257] == b"ab"
    assert encode("ab<|end|>", vocab, merges) == [257, 256]


def test_round_trip_over_unicode():
    text = "naïve café — 日本語 🙂 déjà vu"
    vocab, merges = train_bpe(text * 3, 300, [])
    assert decode(encode(text, vocab, merges), vocab) == text
    assert decode([0xE6, 0x97], vocab) == "\ufffd"
