"""Session.generate: `switchyard generate` (tools/switchyard/generate_command.cpp) on
Session.run and reset, step for step, so that a seed picks the same tokens.

The tokens are picked by the catalogue's sample op (switchyard._native.Sampler), fed
numbers from splitmix64 as the CLI is. When core's decode API (switchyard/decoder.h) lands,
this binds it instead.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from . import _native
from ._native import InvalidArgumentError

_MASK = (1 << 64) - 1
_FILLED = ("input_ids", "attention_mask", "position_ids")


class _Uniforms:
    """splitmix64: the same stream as the CLI's for a seed; numbers in [0, 1)."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next(self) -> float:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        return (z >> 11) * 2.0**-53


def _fill(name: str, dtype: str, shape: tuple, held: int, seq: int) -> np.ndarray:
    """attention_mask: 1 over the positions held and added, 0 past them; position_ids:
    counting on from the positions held (FillInput in the CLI)."""
    if len(shape) != 2:
        raise _native.Error(f'input "{name}" is {dtype} {list(shape)} (generate fills [1, n] '
                            "inputs)")
    numpy_dtype = {"i64": np.int64, "i32": np.int32, "f32": np.float32}.get(dtype)
    if numpy_dtype is None:
        raise _native.Error(f'input "{name}" is {dtype} (generate fills i64, i32 or f32)')
    if name == "position_ids":
        return np.arange(held, held + seq, dtype=numpy_dtype).reshape(1, seq)
    width = shape[1] if shape[1] is not None else held + seq
    return (np.arange(width) < held + seq).astype(numpy_dtype).reshape(1, width)


def generate(session, host, prompt: Sequence[int], max_new_tokens: int = 16, *,
             sample: str = "greedy", temperature: float = 1.0, top_k: int = 0,
             top_p: float = 1.0, min_p: float = 0.0, seed: int = 1, return_stats: bool = False):
    prompt = [int(t) for t in prompt]
    if not prompt:
        raise InvalidArgumentError("prompt is empty (expected token ids: [1, 2, 3])")
    if isinstance(max_new_tokens, bool) or not 1 <= int(max_new_tokens) <= 1000000:
        raise InvalidArgumentError(f"max_new_tokens {max_new_tokens}: expected 1 to 1000000")
    if not 0 <= int(seed) <= _MASK:
        raise InvalidArgumentError(f"seed {seed}: expected 0 to 2**64 - 1")
    if not session.has_state:
        raise _native.Error(
            "the model keeps no decoding state (docs/decoding.md): generate needs a model "
            "whose key and value caches the session keeps between runs")
    names = session.input_names
    for name in names:
        if name not in _FILLED:
            raise _native.Error(f'the model takes input "{name}"; generate fills only input_ids, '
                                "attention_mask and position_ids")
    if "input_ids" not in names:
        raise _native.Error('the model has no input "input_ids" (the token ids each run adds)')
    logits_type = session.output_types.get("logits")
    vocab = logits_type[1][-1] if logits_type and logits_type[1] else None
    if not vocab:
        raise _native.Error(
            'the model has no output "logits" whose last dim (the vocabulary) is fixed')
    for token in prompt:
        if not 0 <= token < vocab:
            raise _native.Error(f"prompt token {token} is outside the vocabulary (0 to "
                                f"{vocab - 1})")
    needed = len(prompt) + max_new_tokens - 1
    if needed > session.state_capacity:
        raise _native.Error(
            f"the prompt's {len(prompt)} tokens and {max_new_tokens} new ones need {needed} "
            f"positions, but the model's state holds {session.state_capacity}")
    sampler = _native.Sampler(host, vocab, sample, float(temperature), int(top_k), float(top_p),
                              float(min_p))
    uniforms = _Uniforms(int(seed))
    types = session.input_types
    session.reset()

    def step(ids: list) -> int:
        held = session.state_length
        inputs = {"input_ids": np.asarray(ids, dtype=np.int64).reshape(1, len(ids))}
        for name in names:
            if name != "input_ids":
                dtype, shape = types[name]
                inputs[name] = _fill(name, dtype, shape, held, len(ids))
        logits = session.run(inputs)["logits"]
        return sampler.pick(logits, uniforms.next())

    start = time.perf_counter()
    tokens = [step(prompt)]
    first_at = time.perf_counter()
    while len(tokens) < max_new_tokens:
        tokens.append(step([tokens[-1]]))
    end = time.perf_counter()
    if not return_stats:
        return tokens
    ttft = first_at - start
    decode = end - first_at
    return tokens, {
        "tokens": tokens,
        "prompt_tokens": len(prompt),
        "device": session.devices[0] if session.devices else "",
        "time_to_first_token_ms": ttft * 1000,
        "prompt_tokens_per_second": len(prompt) / ttft if ttft > 0 else 0.0,
        "decode_tokens_per_second": (len(tokens) - 1) / decode if len(tokens) > 1 and decode > 0
        else 0.0,
    }
