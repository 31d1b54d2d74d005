#!/usr/bin/env python3
"""NumPy references for the "Sampling" reference kernel (sample).

Writes tests/data/kernels/sampling/<case>_in<i>.npy and <case>_out0.npy for each case
below; tests/unit/plugins/cpu/ref/sampling_ref_test.cpp runs `sample` with the same
attributes (its table repeats them) and compares the tokens exactly. in0 holds the logits
(bf16 cases: float64 values that bf16 holds exactly, which the test converts), in1 the
uniform numbers (absent for greedy), out0 the i64 tokens.

Written from docs/ops.md ("Sampling"), not from the kernel: per row, in double,
z = logit / temperature, p = exp(z - max z) (1 where z is the maximum), the kept set of
the method, then the walk in ascending index order. Sums are sequential Python loops in
the order the text gives (np.sum sums pairwise, which can round differently) and exp is
math.exp, the C library's, as the kernel's std::exp. Uniform numbers are drawn at random,
so none lies within rounding of a boundary (the unit test's hand-derived cases do that).
Deterministic: a fixed seed. Run from anywhere:

    python3 tools/kernel_refs/sampling.py
"""
import math
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                   "kernels", "sampling")

rng = np.random.default_rng(20240716)


def save(name, inputs, token):
    for i, a in enumerate(inputs):
        np.save(os.path.join(OUT, f"{name}_in{i}.npy"), np.array(a, order="C"))
    np.save(os.path.join(OUT, f"{name}_out0.npy"), np.array(token, dtype=np.int64))


def greedy_row(row):
    """The first index of the largest logit (np.argmax returns the first)."""
    return int(np.argmax(row))


def kept_set(p, method, top_k, top_p, min_p):
    """The indices the method keeps, from the probabilities p (max p is 1)."""
    v = len(p)
    # p descending, index ascending: lexsort's last key is the primary one.
    order = [int(i) for i in np.lexsort((np.arange(v), -np.array(p)))]
    if method == "temperature":
        return set(range(v))
    if method == "top_k":
        return set(order[:min(top_k, v)])
    if method == "top_p":
        everything = 0.0
        for x in p:  # ascending index order
            everything += x
        threshold = top_p * everything
        kept, prefix = set(), 0.0
        for i in order:
            kept.add(i)
            prefix += p[i]
            if prefix >= threshold:
                break
        return kept
    if method == "min_p":
        return {i for i in range(v) if p[i] >= min_p}
    raise ValueError(method)


def sample_row(row, u, method, temperature, top_k, top_p, min_p):
    z = [float(x) / temperature for x in row]
    m = max(z)
    p = [1.0 if x == m else math.exp(x - m) for x in z]
    kept = kept_set(p, method, top_k, top_p, min_p)
    total = 0.0
    for i in range(len(p)):
        if i in kept:
            total += p[i]
    target = u * total
    running, last = 0.0, -1
    for i in range(len(p)):
        if i not in kept:
            continue
        running += p[i]
        last = i
        if running > target:
            return i
    return last


def sample(logits, uniform=None, method="greedy", temperature=1.0, top_k=0, top_p=1.0,
           min_p=0.0):
    rows = logits.astype(np.float64)
    if method == "greedy":
        return [greedy_row(r) for r in rows]
    return [sample_row(r, float(u), method, temperature, top_k, top_p, min_p)
            for r, u in zip(rows, uniform.astype(np.float64))]


def eighths(shape, low=-40, high=40):
    """Logits k/8 for integer k: exact in f16 and bf16, with many ties."""
    return rng.integers(low, high, size=shape).astype(np.float64) / 8


def case(name, logits, uniform=None, **attrs):
    inputs = [logits] if uniform is None else [logits, uniform]
    save(name, inputs, sample(logits, uniform, **attrs))


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))

    def u(n, dtype=np.float32):
        return rng.uniform(0, 1, n).astype(dtype)

    # greedy: ties go to the first index; -inf logits are just small.
    x = rng.standard_normal((4, 10)).astype(np.float32)
    x[1, [2, 7]] = x[1].max() + 1  # a tie for the maximum
    x[2, :] = -np.inf
    x[3, 4] = np.inf
    case("greedy_f32", x)
    case("greedy_f16", eighths((3, 7), -4, 4).astype(np.float16))
    case("greedy_bf16", eighths((3, 9), -4, 4))
    case("greedy_f64_with_uniform", rng.standard_normal((2, 5)), u(2, np.float64))

    # temperature: every token; a low temperature sharpens, a high one flattens.
    x = rng.standard_normal((6, 16)).astype(np.float32)
    draws = u(6)  # the same numbers at two temperatures
    case("temperature_f32", x, draws, method="temperature")
    case("temperature_f32_t0.3", x, draws, method="temperature", temperature=0.3)
    case("temperature_f64_t2.5", rng.standard_normal((5, 33)) * 3, u(5, np.float64),
         method="temperature", temperature=2.5)
    x = rng.standard_normal((4, 12)).astype(np.float32)
    x[:, [0, 5, 6]] = -np.inf  # masked tokens are never chosen
    case("temperature_f32_masked", x, u(4), method="temperature")

    # top_k: ties at the cut go to the lower index; k above V keeps everything.
    case("top_k_f32", rng.standard_normal((5, 20)).astype(np.float32), u(5), method="top_k",
         top_k=5)
    case("top_k_bf16_ties", eighths((6, 12), -6, 6), u(6), method="top_k", top_k=3)
    case("top_k_f32_k_above_v", rng.standard_normal((3, 6)).astype(np.float32), u(3),
         method="top_k", top_k=100)
    case("top_k_f16_t0.5", eighths((4, 15)).astype(np.float16), u(4, np.float64),
         method="top_k", top_k=4, temperature=0.5)

    # top_p: the shortest prefix by p that reaches top_p of the mass.
    case("top_p_f32", rng.standard_normal((6, 25)).astype(np.float32) * 2, u(6, np.float64),
         method="top_p", top_p=0.9)
    case("top_p_bf16", eighths((4, 9)), u(4), method="top_p", top_p=0.5)
    case("top_p_f32_large_v", rng.standard_normal((2, 1000)).astype(np.float32) * 3, u(2),
         method="top_p", top_p=0.95, temperature=0.8)
    case("top_p_f64_small", rng.standard_normal((3, 8)), u(3, np.float64), method="top_p",
         top_p=0.05)

    # min_p: the tokens with p at least min_p (the largest has p = 1).
    case("min_p_f32", rng.standard_normal((5, 30)).astype(np.float32) * 2, u(5), method="min_p",
         min_p=0.05)
    case("min_p_f16", eighths((3, 11)).astype(np.float16), u(3, np.float64), method="min_p",
         min_p=0.3)
    case("min_p_f64_t1.7", rng.standard_normal((4, 17)) * 2, u(4), method="min_p", min_p=0.2,
         temperature=1.7)

    # no rows
    case("temperature_f32_empty", np.zeros((0, 5), np.float32), np.zeros(0, np.float32),
         method="temperature")


if __name__ == "__main__":
    main()
