"""Reference solution: byte-level BPE, trained with incremental pair counts and a heap."""

import heapq
import re
from collections import defaultdict

PRETOKEN = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")


def split_on_specials(text, specials, keep=False):
    """The text between special tokens (and, if keep, the specials themselves at odd indexes)."""
    if not specials:
        return [text]
    alternatives = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    return re.split(f"({alternatives})" if keep else alternatives, text)


class Descending:
    """Orders a pair the other way round, so the heap's smallest entry is the greatest pair."""

    __slots__ = ("pair",)

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair


def train_bpe(text, vocab_size, special_tokens):
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    counts = defaultdict(int)
    for chunk in split_on_specials(text, special_tokens):
        for pretoken in PRETOKEN.findall(chunk):
            counts[pretoken] += 1
    words = [[bytes([b]) for b in pretoken.encode("utf-8")] for pretoken in counts]
    freqs = list(counts.values())

    pair_counts = defaultdict(int)
    holders = defaultdict(set)  # pair -> indexes of the words that contain it (some may be stale)
    for i, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += freqs[i]
            holders[pair].add(i)
    heap = [(-n, Descending(pair), pair) for pair, n in pair_counts.items()]
    heapq.heapify(heap)

    merges = []
    while len(vocab) < vocab_size and heap:
        negative, _, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative:
            continue  # stale: the count changed after this entry was pushed
        merges.append(pair)
        merged = pair[0] + pair[1]
        vocab[len(vocab)] = merged
        changed = set()
        for i in holders.pop(pair):
            word, f = words[i], freqs[i]
            if len(word) < 2:
                continue
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
            for old_pair in zip(word, word[1:]):
                pair_counts[old_pair] -= f
                changed.add(old_pair)
            for new_pair in zip(new, new[1:]):
                pair_counts[new_pair] += f
                holders[new_pair].add(i)
                changed.add(new_pair)
            words[i] = new
        for p in changed:
            n = pair_counts.get(p, 0)
            if n > 0:
                heapq.heappush(heap, (-n, Descending(p), p))
            else:
                pair_counts.pop(p, None)
    return vocab, merges


def encode(text, vocab, merges):
    n_specials = len(vocab) - 256 - len(merges)
    specials = {vocab[256 + k].decode("utf-8"): 256 + k for k in range(n_specials)}
    ids_of = {}
    for token_id in sorted(vocab):
        if not 256 <= token_id < 256 + n_specials:
            ids_of[vocab[token_id]] = token_id  # the larger id wins where two entries hold the same bytes
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    cache = {}

    def encode_pretoken(pretoken):
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
        return [ids_of[s] for s in symbols]

    ids = []
    for k, piece in enumerate(split_on_specials(text, list(specials), keep=True)):
        if k % 2:
            ids.append(specials[piece])
            continue
        for pretoken in PRETOKEN.findall(piece):
            if pretoken not in cache:
                cache[pretoken] = encode_pretoken(pretoken)
            ids.extend(cache[pretoken])
    return ids


def decode(ids, vocab):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
