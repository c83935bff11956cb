"""Bug: correct merges, but every pair of every word is counted again at each merge (too slow)."""

import re
from collections import Counter

PRETOKEN = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")


def split_on_specials(text, specials, keep=False):
    if not specials:
        return [text]
    alternatives = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    return re.split(f"({alternatives})" if keep else alternatives, text)


def train_bpe(text, vocab_size, special_tokens):
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    counts = Counter()
    for chunk in split_on_specials(text, special_tokens):
        counts.update(PRETOKEN.findall(chunk))
    words = {tuple(bytes([b]) for b in w.encode("utf-8")): n for w, n in counts.items()}
    merges = []
    while len(vocab) < vocab_size:
        pairs = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged_words = {}
        for word, n in words.items():
            out, j = [], 0
            while j < len(word):
                if j + 1 < len(word) and (word[j], word[j + 1]) == best:
                    out.append(best[0] + best[1])
                    j += 2
                else:
                    out.append(word[j])
                    j += 1
            merged_words[tuple(out)] = merged_words.get(tuple(out), 0) + n
        words = merged_words
    return vocab, merges


def encode(text, vocab, merges):
    n_specials = len(vocab) - 256 - len(merges)
    specials = {vocab[256 + k].decode("utf-8"): 256 + k for k in range(n_specials)}
    ids_of = {b: i for i, b in sorted(vocab.items()) if not 256 <= i < 256 + n_specials}
    ids, cache = [], {}
    for k, piece in enumerate(split_on_specials(text, list(specials), keep=True)):
        if k % 2:
            ids.append(specials[piece])
            continue
        for pretoken in PRETOKEN.findall(piece):
            if pretoken in cache:
                ids.extend(cache[pretoken])
                continue
            symbols = [bytes([b]) for b in pretoken.encode("utf-8")]
            for a, b in merges:
                out, j = [], 0
                while j < len(symbols):
                    if j + 1 < len(symbols) and symbols[j] == a and symbols[j + 1] == b:
                        out.append(a + b)
                        j += 2
                    else:
                        out.append(symbols[j])
                        j += 1
                symbols = out
            cache[pretoken] = [ids_of[s] for s in symbols]
            ids.extend(cache[pretoken])
    return ids


def decode(ids, vocab):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
