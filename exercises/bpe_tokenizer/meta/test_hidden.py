"""Hidden suite for byte-level BPE: `train_bpe(text, vocab_size, special_tokens)`,
`encode(text, vocab, merges)` and `decode(ids, vocab)`.

Texts are drawn from the grading's seed (words of a random lexicon with Zipf frequencies,
numbers, punctuation, accented, Greek, Cyrillic, CJK and emoji words, assorted whitespace).
The reference below trains with incremental pair counts; with a switch flipped it reproduces
a classic mistake (ties broken the other way, merges across pre-tokens, special tokens
trained on as text), so a wrong answer is named. Training on 200 KB to a vocabulary of 1,000
must fit the challenge's per-call time limit: recounting every pair at every merge does not.
"""

from __future__ import annotations

import heapq
import random
import re
import time
from collections import defaultdict

from quizforge.challenges import checks, seeds

PRETOKEN = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")
EOT = "<|endoftext|>"
UNICODE_WORDS = ["café", "naïve", "über", "mañana", "façade", "日本語", "東京", "Привет", "мир", "χαίρετε",
                 "λόγος", "🙂", "🚀✨", "e\u0301", "Ω≈ç√"]
REPLACE_HINT = 'replace invalid UTF-8 with U+FFFD: bytes.decode("utf-8", errors="replace")'
SPEED_HINT = ("recounting every pair at every merge is too slow: count the pairs once, then after each merge "
              "update only the counts of the pairs in the words that contain the merged pair")


# --- inputs ---------------------------------------------------------------------------------

def corpus(stream: int, size: int, *, lexicon_size: int = 15000, specials: tuple[str, ...] = ()) -> str:
    """About `size` characters of word-like text, drawn from the grading's seed."""
    rng = random.Random(seeds.derive(stream))
    letters = "abcdefghijklmnopqrstuvwxyz"
    lexicon = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 10))) for _ in range(lexicon_size)]
    cumulative, total = [], 0.0
    for k in range(len(lexicon)):
        total += 1 / (k + 1)
        cumulative.append(total)
    parts, n = [], 0
    while n < size:
        r = rng.random()
        if r < 0.85:
            word = rng.choices(lexicon, cum_weights=cumulative)[0]
            word = word.capitalize() if rng.random() < 0.1 else word
        elif r < 0.9:
            word = str(rng.randint(0, 10 ** rng.randint(1, 5)))
        elif r < 0.95:
            word = rng.choice(UNICODE_WORDS)
        elif specials and r < 0.96:
            word = rng.choice(specials)
        else:
            word = rng.choice([",", ".", "!", "?", ";", "--", "'s", "(", ")", "…"])
        space = rng.choices([" ", "  ", "\n", "\n\n", "\t", " \n"], [88, 3, 4, 2, 1, 2])[0]
        parts.append(word + space)
        n += len(word) + len(space)
    return "".join(parts)[:size]


# --- the reference, with the classic mistakes as switches -------------------------------------

def split_on_specials(text, specials, keep=False):
    if not specials:
        return [text]
    alternatives = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    return re.split(f"({alternatives})" if keep else alternatives, text)


class _Reversed:
    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair


def train(text, vocab_size, specials, *, greater_ties=True, pretokenise=True, drop_specials=True):
    vocab = {i: bytes([i]) for i in range(256)}
    for token in specials:
        vocab[len(vocab)] = token.encode("utf-8")
    counts = defaultdict(int)
    for chunk in split_on_specials(text, specials if drop_specials else []):
        for piece in (PRETOKEN.findall(chunk) if pretokenise else chunk.split(" ")):
            counts[piece] += 1
    words = [[bytes([b]) for b in piece.encode("utf-8")] for piece in counts]
    freqs = list(counts.values())
    pair_counts, holders = defaultdict(int), defaultdict(set)
    for i, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += freqs[i]
            holders[pair].add(i)
    tie = _Reversed if greater_ties else (lambda pair: pair)
    heap = [(-n, tie(pair), pair) for pair, n in pair_counts.items()]
    heapq.heapify(heap)
    merges = []
    while len(vocab) < vocab_size and heap:
        negative, _, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative:
            continue
        merges.append(pair)
        merged = pair[0] + pair[1]
        vocab[len(vocab)] = merged
        changed = set()
        for i in holders.pop(pair):
            word, f = words[i], freqs[i]
            new, j = [], 0
            while j < len(word):
                if j + 1 < len(word) and word[j] == pair[0] and word[j + 1] == pair[1]:
                    new.append(merged)
                    j += 2
                else:
                    new.append(word[j])
                    j += 1
            if len(new) == len(word):
                continue
            for p in zip(word, word[1:]):
                pair_counts[p] -= f
                changed.add(p)
            for p in zip(new, new[1:]):
                pair_counts[p] += f
                holders[p].add(i)
                changed.add(p)
            words[i] = new
        for p in changed:
            if pair_counts.get(p, 0) > 0:
                heapq.heappush(heap, (-pair_counts[p], tie(p), p))
            else:
                pair_counts.pop(p, None)
    return vocab, merges


def encode(text, vocab, merges, *, longest_first=True):
    n_specials = len(vocab) - 256 - len(merges)
    specials = {vocab[256 + k].decode("utf-8"): 256 + k for k in range(n_specials)}
    ids_of = {vocab[i]: i for i in sorted(vocab) if not 256 <= i < 256 + n_specials}
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    order = sorted(specials, key=len, reverse=longest_first)
    pattern = "(" + "|".join(re.escape(s) for s in order) + ")"
    ids = []
    for k, piece in enumerate(re.split(pattern, text) if specials else [text]):
        if k % 2:
            ids.append(specials[piece])
            continue
        for pretoken in PRETOKEN.findall(piece):
            symbols = [bytes([b]) for b in pretoken.encode("utf-8")]
            while len(symbols) > 1:
                best = min(zip(symbols, symbols[1:]), key=lambda p: ranks.get(p, len(ranks)))
                if best not in ranks:
                    break
                out, j = [], 0
                while j < len(symbols):
                    if j + 1 < len(symbols) and (symbols[j], symbols[j + 1]) == best:
                        out.append(best[0] + best[1])
                        j += 2
                    else:
                        out.append(symbols[j])
                        j += 1
                symbols = out
            ids.extend(ids_of[s] for s in symbols)
    return ids


# --- checks ---------------------------------------------------------------------------------

TRAINING_MISTAKES = {
    "greater_ties": "ties are broken by the smaller pair: among the most frequent pairs, merge the "
                    "lexicographically greater one",
    "pretokenise": "merges cross pre-token boundaries (the text is split on spaces only): pre-tokenise with "
                   "the README's regex and count pairs only inside each pre-token",
    "drop_specials": "the special tokens are trained on as text: split the text on them first and never "
                     "merge across or inside them",
}


def shown_training(text, vocab_size, specials):
    return f"train_bpe(<{len(text)} characters>, {vocab_size}, {specials!r})"


def trained(submission, text, vocab_size, specials, *, hint=""):
    result = checks.attempt(shown_training(text, vocab_size, specials), submission.call, "train_bpe", text,
                            vocab_size, list(specials), hint=hint)
    assert isinstance(result, (tuple, list)) and len(result) == 2, (
        "train_bpe should return a tuple (vocab, merges)")
    vocab, merges = result
    assert isinstance(vocab, dict) and all(type(k) is int and type(v) is bytes for k, v in vocab.items()), (
        "the vocabulary should be a dict mapping int ids to bytes")
    assert isinstance(merges, list) and all(
        isinstance(m, tuple) and len(m) == 2 and all(type(b) is bytes for b in m) for m in merges), (
        "merges should be a list of (bytes, bytes) tuples")
    return vocab, merges


def first_difference(got, expected):
    for k, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            return k
    return min(len(got), len(expected))


def assert_same_training(got, text, vocab_size, specials, *, replay=True):
    """`replay`: on a mismatch, retrain with each mistake to name it (too slow on large texts)."""
    vocab, merges = got
    expected_vocab, expected_merges = train(text, vocab_size, specials)
    if merges == expected_merges and vocab == expected_vocab:
        return
    for switch, description in TRAINING_MISTAKES.items() if replay else ():
        wrong_vocab, wrong_merges = train(text, vocab_size, specials, **{switch: False})
        if wrong_merges != expected_merges and merges == wrong_merges:
            raise AssertionError(f"your merges: {description} (your merges match this mistake)")
    if merges != expected_merges:
        k = first_difference(merges, expected_merges)
        got_k = merges[k] if k < len(merges) else "nothing"
        raise AssertionError(f"merge {k} (counting from 0) is {got_k!r}, expected {expected_merges[k]!r}"
                             if k < len(expected_merges) else
                             f"you made {len(merges)} merges, expected {len(expected_merges)}")
    assert_vocab_layout(vocab, merges, vocab_size, specials)
    raise AssertionError("your vocabulary differs from the reference")


def assert_vocab_layout(vocab, merges, vocab_size, specials):
    assert sorted(vocab) == list(range(len(vocab))), "the vocabulary's ids should be 0, 1, 2, … with no gap"
    wrong_bytes = [i for i in range(256) if vocab.get(i) != bytes([i])]
    assert not wrong_bytes, f"ids 0–255 should be the single bytes; id {wrong_bytes[0]} is {vocab.get(wrong_bytes[0])!r}"
    for k, token in enumerate(specials):
        assert vocab.get(256 + k) == token.encode("utf-8"), (
            f"id {256 + k} should be the special token {token!r}: the special tokens come right after the "
            "256 bytes, in the order given, before any merge")
    first = 256 + len(specials)
    for rank, (a, b) in enumerate(merges):
        assert vocab.get(first + rank) == a + b, (
            f"id {first + rank} should hold merge {rank}, {a + b!r}: merges follow the special tokens in order")
    assert len(vocab) <= vocab_size, f"the vocabulary has {len(vocab)} entries, more than vocab_size={vocab_size}"


def test_trains_like_the_reference(submission):
    text = corpus(1, 4000)
    assert_same_training(trained(submission, text, 256 + 1 + 80, [EOT]), text, 256 + 1 + 80, [EOT])


def test_vocabulary_layout(submission):
    text = corpus(2, 3000)
    specials = [EOT, "<pad>"]
    vocab, merges = trained(submission, text, 300, specials)
    assert len(vocab) == 300, (f"the vocabulary has {len(vocab)} entries, expected vocab_size=300: it counts "
                               "the 256 bytes and the special tokens")
    assert_vocab_layout(vocab, merges, 300, specials)


def test_ties_go_to_the_greater_pair(submission):
    # Few distinct words, each as often as the others: most merges are decided by the tie-break.
    rng = random.Random(seeds.derive(3))
    words = ["".join(rng.choice("abcd") for _ in range(rng.randint(2, 5))) for _ in range(12)]
    text = " ".join(words * 3)
    assert_same_training(trained(submission, text, 280, []), text, 280, [])


def test_special_tokens_are_never_merged(submission):
    # Short documents joined by the special token: trained on as text, its pairs would be merged early.
    documents = corpus(4, 3000)
    text = EOT.join(documents[i:i + 60] for i in range(0, len(documents), 60))
    assert_same_training(trained(submission, text, 256 + 1 + 60, [EOT]), text, 256 + 1 + 60, [EOT])


def test_unicode_text(submission):
    rng = random.Random(seeds.derive(5))
    text = " ".join(rng.choice(UNICODE_WORDS) for _ in range(400))
    assert_same_training(trained(submission, text, 320, []), text, 320, [])


def test_stops_when_nothing_is_left_to_merge(submission):
    text = "ab ab ab"
    vocab, merges = trained(submission, text, 1000, [])
    assert merges == train(text, 1000, [])[1] and len(vocab) == 256 + len(merges), (
        "with no adjacent pair left, training stops before vocab_size")


def encoded(submission, text, vocab, merges, hint=""):
    ids = checks.attempt(f"encode(<{len(text)} characters>, vocab, merges)", submission.call, "encode", text,
                         vocab, merges, hint=hint)
    assert isinstance(ids, list) and all(type(i) is int for i in ids), "encode should return a list of ints"
    return ids


def test_encode_like_the_reference(submission):
    vocab, merges = train(corpus(6, 20000), 600, [EOT])
    text = corpus(7, 3000, specials=(EOT,))
    ids = encoded(submission, text, vocab, merges)
    expected = encode(text, vocab, merges)
    if ids != expected:
        k = first_difference(ids, expected)
        raise AssertionError(f"your ids differ from position {k} on (of {len(expected)}): apply the merges in "
                             "training order within each pre-token, and keep special tokens whole")


def test_overlapping_special_tokens_match_longest_first(submission):
    specials = [EOT, EOT + EOT, "<|end"]
    vocab, merges = train(corpus(8, 5000), 400, specials)
    rng = random.Random(seeds.derive(9))
    text = "".join(rng.choice(["word ", EOT, EOT + EOT, "<|end", " <|", "x"]) for _ in range(60))
    ids = encoded(submission, text, vocab, merges)
    if ids != encode(text, vocab, merges):
        shortest = encode(text, vocab, merges, longest_first=False)
        assert ids != shortest, ("special tokens are matched shortest first: where they overlap, the longest "
                                 "one wins")
        raise AssertionError("your ids differ from the reference around the special tokens")


def decoded(submission, ids, vocab, hint=""):
    text = checks.attempt(f"decode(<{len(ids)} ids>, vocab)", submission.call, "decode", ids, vocab, hint=hint)
    assert isinstance(text, str), f"decode should return a str, got {type(text).__name__}"
    return text


def test_round_trip_over_unicode(submission):
    vocab, merges = train(corpus(10, 20000), 500, [EOT])
    rng = random.Random(seeds.derive(11))
    text = "".join(rng.choice(UNICODE_WORDS + [" ", "\n", EOT, "abc", "42", "¿qué?"]) for _ in range(300))
    ids = encoded(submission, text, vocab, merges)
    back = decoded(submission, ids, vocab)
    assert back == text, "decode(encode(text)) is not the text you started from"


def test_decode_replaces_invalid_utf8(submission):
    vocab, _ = train("", 256, [])
    rng = random.Random(seeds.derive(12))
    ids = [rng.randrange(0x80, 0xC0) for _ in range(3)] + list("ok".encode()) + [0xE6, 0x97]
    expected = bytes(ids).decode("utf-8", errors="replace")
    assert decoded(submission, ids, vocab, hint=REPLACE_HINT) == expected, (
        "decode should replace invalid UTF-8 with U+FFFD (errors=\"replace\"), not raise or drop bytes")


# The challenge's call_timeout (meta/challenge.toml). The worker enforces it too; timing the call here
# as well makes the verdict the same wherever the submission runs (an in-process timer signal may
# land late, inside a long C call).
CALL_LIMIT = 8.0


def test_training_on_200_kb_is_fast_enough(submission):
    text = corpus(13, 200_000)
    start = time.perf_counter()
    got = trained(submission, text, 1000, [EOT], hint=SPEED_HINT)
    elapsed = time.perf_counter() - start
    assert elapsed <= CALL_LIMIT, f"training on 200 KB took {elapsed:.1f} s, over the {CALL_LIMIT:g} s limit — {SPEED_HINT}"
    assert_same_training(got, text, 1000, [EOT], replay=False)
