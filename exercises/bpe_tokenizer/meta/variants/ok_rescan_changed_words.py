"""Correct: incremental counts without a heap (the best pair by max over the live counts), and
encoding by applying each merge in training order."""

import re
from collections import Counter, defaultdict

PRETOKEN = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")


def _pieces(text, specials):
    if not specials:
        return [text]
    return re.split("(" + "|".join(map(re.escape, sorted(specials, key=len, reverse=True))) + ")", text)


def train_bpe(text, vocab_size, special_tokens):
    vocab = {i: bytes([i]) for i in range(256)}
    for s in special_tokens:
        vocab[len(vocab)] = s.encode()
    freq = Counter()
    for k, piece in enumerate(_pieces(text, special_tokens)):
        if k % 2 == 0:
            freq.update(PRETOKEN.findall(piece))
    words = {w: [bytes([b]) for b in w.encode()] for w in freq}
    stats = Counter()
    index = defaultdict(set)
    for w, syms in words.items():
        for p in zip(syms, syms[1:]):
            stats[p] += freq[w]
            index[p].add(w)
    merges = []
    while len(vocab) < vocab_size and stats:
        top = max(stats.values())
        best = max(p for p, n in stats.items() if n == top)
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        for w in list(index[best]):
            syms = words[w]
            for p in zip(syms, syms[1:]):
                stats[p] -= freq[w]
                if stats[p] == 0:
                    del stats[p]
            i, out = 0, []
            while i < len(syms):
                if syms[i:i + 2] == list(best):
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            words[w] = out
            for p in zip(out, out[1:]):
                stats[p] += freq[w]
                index[p].add(w)
        del index[best]
    return vocab, merges


def encode(text, vocab, merges):
    n_special = len(vocab) - 256 - len(merges)
    specials = [vocab[256 + i].decode() for i in range(n_special)]
    lookup = {}
    for i in sorted(vocab):
        if not 256 <= i < 256 + n_special:
            lookup[vocab[i]] = i
    ids = []
    for k, piece in enumerate(_pieces(text, specials)):
        if k % 2:
            ids.append(256 + specials.index(piece))
            continue
        for word in PRETOKEN.findall(piece):
            syms = [bytes([b]) for b in word.encode()]
            for a, b in merges:
                if len(syms) < 2:
                    break
                i, out = 0, []
                while i < len(syms):
                    if i + 1 < len(syms) and syms[i] == a and syms[i + 1] == b:
                        out.append(a + b)
                        i += 2
                    else:
                        out.append(syms[i])
                        i += 1
                syms = out
            ids += [lookup[s] for s in syms]
    return ids


def decode(ids, vocab):
    return bytes(b for i in ids for b in vocab[i]).decode("utf-8", "replace")
