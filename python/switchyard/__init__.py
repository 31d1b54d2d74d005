"""Switchyard for Python: run ML graphs on whatever compute devices a machine has.

The API mirrors the C++ host API and the CLI (docs/python.md):

    import numpy as np, switchyard
    switchyard.devices()                                  # what the plugins found
    s = switchyard.Session("examples/mlp", device="cpu")  # folder, stem, .json or .symodel
    y = s.run({"x": np.ones((2, 12), np.float32)})["y"]   # NumPy in, NumPy out, no copies
    s.plan                                                # node -> device -> reason
    x = s.to_device(np.ones((2, 12), np.float32))         # a DeviceTensor on s's device
    y = s.run({"x": x}, outputs={"y": s.devices[0]})["y"]  # stays there: y.numpy() copies

Plugins are loaded once per set of plugin options (threads, isolate, timeout, plugins)
and shared by the sessions made with them. Errors raise switchyard.Error (a
RuntimeError) or one of its subclasses, with the message the CLI prints.
"""

from __future__ import annotations

import numbers
import os
import threading
import weakref
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _native
from ._native import (
    DeviceTensor,
    Error,
    InvalidArgumentError,
    InvalidModelError,
    NotFoundError,
    UnsupportedError,
)

__all__ = [
    "DeviceTensor",
    "Error",
    "InvalidArgumentError",
    "InvalidModelError",
    "NotFoundError",
    "UnsupportedError",
    "Session",
    "devices",
    "generate",
    "convert",
    "import_onnx",
    "plugins",
    "quantize",
    "search_path",
]
__version__ = "0.1.0"

# The package folder is the installation prefix plugin discovery looks under:
# lib/switchyard/plugins/ and libexec/switchyard/ beside this file (python/CMakeLists.txt).
_PREFIX = os.path.dirname(os.path.abspath(__file__))

PathLike = Union[str, "os.PathLike[str]"]

# Weak: a host (its loaded plugins, and the worker processes of isolated ones) lives as
# long as a session, device tensor or caller holds it, not until exit for every set of
# options ever used.
_hosts: "weakref.WeakValueDictionary[tuple, _native.Host]" = weakref.WeakValueDictionary()
_hosts_lock = threading.Lock()


def _names(value: Union[None, str, Iterable[str]], what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [item for item in value.split(",") if item] if what == "device" else [value]
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise InvalidArgumentError(f"{what}: expected names (str), got {item!r}")
    return items


def _host(threads: int = 0, isolate: Union[None, str, Sequence[str]] = None,
          timeout: Optional[float] = None,
          plugins: Optional[Sequence[PathLike]] = None) -> _native.Host:
    """The plugin host for these options, loaded on first use and shared while anything
    holds it (a session, a device tensor); loaded again after the last one is gone."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 4096:
        raise InvalidArgumentError(
            f"threads {threads!r}: expected 0 (the number of cores) to 4096")
    if timeout is not None and not 0 < float(timeout) <= 86400:
        raise InvalidArgumentError(f"timeout {timeout!r}: expected seconds above 0, at most 86400")
    key = (threads, tuple(_names(isolate, "isolate")), float(timeout or 0),
           tuple(os.fspath(p) for p in (plugins or ())))
    with _hosts_lock:
        host = _hosts.get(key)
        if host is None:
            host = _native.Host(_PREFIX, *key)
            _hosts[key] = host
        return host


def plugins(*, threads: int = 0, isolate: Union[None, str, Sequence[str]] = None,
            plugins: Optional[Sequence[PathLike]] = None) -> list:
    """Every plugin candidate (`switchyard plugins`): path, loaded, reason, name, ..."""
    return _host(threads, isolate, None, plugins).plugins()


def devices(*, threads: int = 0, isolate: Union[None, str, Sequence[str]] = None,
            plugins: Optional[Sequence[PathLike]] = None) -> list:
    """Every device of every loaded plugin (`switchyard devices`): spec, name, kind, ..."""
    return _host(threads, isolate, None, plugins).devices()


def search_path() -> list:
    """The folders plugin discovery scans, in order."""
    return _native.Host.search_path(_PREFIX)


class Session(_native.Session):
    """A model planned and prepared once on devices, then run many times.

    model: a model folder ("examples/mlp"), stem, .json or .symodel path.
    device: None (GPUs, accelerators, then CPUs), a spec ("cpu", "opencl:0,cpu") or a list
      of specs in order of preference, as the CLI's --device.
    threads: CPU threads for the plugins (0: the number of cores).
    strict: fail instead of falling back or ignoring a backend hint.
    memory_limit: {"cpu": "64MiB"} or {"cpu": 67108864}: fail at creation when the plan
      needs more.
    optimize: 0 none, 1 (default) folding and fusions, 2 also those that differ in corner
      cases. max_specializations: shapes kept prepared for models with run-time sizes.
    island_pass: the transfer-aware island pass (the CLI's --no-island-pass is False).
    quant_accuracy_level: every quant_matmul's accuracy level, as ONNX Runtime's
      MatMulNBits accuracy_level (4: the cpu device quantizes activations to int8 per
      block; 0 to 3: f32); None (default) keeps each node's own (docs/ops.md).
    isolate, timeout: run plugins in worker processes (docs/plugin-isolation.md).
    plugins: more plugin shared objects to load (their failure is an error).
    """

    def __init__(self, model: PathLike, device: Union[None, str, Sequence[str]] = None, *,
                 threads: int = 0, strict: bool = False,
                 memory_limit: Optional[Mapping[str, Union[int, str]]] = None,
                 optimize: int = 1, max_specializations: int = 8, island_pass: bool = True,
                 quant_accuracy_level: Optional[int] = None,
                 isolate: Union[None, str, Sequence[str]] = None,
                 timeout: Optional[float] = None,
                 plugins: Optional[Sequence[PathLike]] = None) -> None:
        limits = {}
        for spec, limit in (memory_limit or {}).items():
            if isinstance(limit, bool) or not isinstance(limit, (int, str)):
                raise InvalidArgumentError(
                    f"memory_limit {spec}: expected bytes (an int, or text such as '64MiB'), "
                    f"got {limit!r}")
            limits[str(spec)] = str(limit)
        accuracy = -1 if quant_accuracy_level is None else quant_accuracy_level  # -1: the node's
        for name, value in (("optimize", optimize), ("max_specializations", max_specializations),
                            ("quant_accuracy_level", accuracy)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgumentError(f"{name} {value!r}: expected an int")
        self._host = _host(threads, isolate, timeout, plugins)
        self._model_path = os.fspath(model)
        self._tokenizer = None
        super().__init__(self._host, os.fspath(model), _names(device, "device"), bool(strict),
                         limits, optimize, max_specializations, bool(island_pass), accuracy)

    def to_device(self, array: Any, device: Optional[str] = None) -> DeviceTensor:
        """A DeviceTensor holding a copy of `array` on `device` (default: the first device
        of the session's plan), for run() to read where it is."""
        return DeviceTensor.from_array(self._host, device or self.devices[0], array)

    def empty(self, dtype: str, shape: Sequence[int],
              device: Optional[str] = None) -> DeviceTensor:
        """An uninitialised DeviceTensor ("f32", (2, 3)) on `device` (default: the first
        device of the session's plan), for run(outputs=...) to write."""
        return DeviceTensor.empty(self._host, device or self.devices[0], str(dtype),
                                  [int(d) for d in shape])

    def __call__(self, **inputs: Any) -> dict:
        """session(x=array) is session.run({"x": array})."""
        return self.run(inputs)

    def tokenizer_path(self) -> Optional[str]:
        """The model's tokenizer.json: STEM.tokenizer.json beside the model (what import
        copies from a decoder's folder), else the model folder's tokenizer.json; None
        when there is neither."""
        path = self._model_path
        if os.path.isdir(path):
            candidates = [os.path.join(path, "tokenizer.json")]
        else:
            stem = os.path.splitext(path)[0] if path.endswith((".json", ".symodel")) else path
            candidates = [stem + ".tokenizer.json",
                          os.path.join(os.path.dirname(stem) or ".", "tokenizer.json")]
        return next((c for c in candidates if os.path.isfile(c)), None)

    def _text_tokenizer(self, tokenizer: Optional[PathLike]):
        try:
            import tokenizers
        except ImportError:
            raise InvalidArgumentError("text in and out needs Hugging Face's tokenizers "
                                       "package (pip install tokenizers)") from None
        path = os.fspath(tokenizer) if tokenizer is not None else self.tokenizer_path()
        if path is None:
            raise InvalidArgumentError(
                f"{self._model_path} has no tokenizer.json (import --decoder-state copies the "
                "ONNX model folder's as STEM.tokenizer.json); pass tokenizer=PATH")
        if self._tokenizer is None or self._tokenizer[0] != path:
            try:
                self._tokenizer = (path, tokenizers.Tokenizer.from_file(path))
            except Exception as error:  # tokenizers raises its own Exception subclass
                raise InvalidArgumentError(f"{path}: not a tokenizer.json ({error})") from None
        return self._tokenizer[1]

    def stream(self, prompt: Optional[Sequence[int]] = None, max_new_tokens: int = 16, *,
               sample: str = "greedy", temperature: float = 1.0, top_k: int = 0,
               top_p: float = 1.0, min_p: float = 0.0, seed: int = 1,
               ignore_eos: bool = False, text: Optional[str] = None,
               tokenizer: Optional[PathLike] = None) -> Iterable[Any]:
        """generate, one token at a time: yields each new token id as the model picks it
        (the same tokens as generate for the same arguments); with text="..." instead of
        ids, yields the new text piece by piece (what decoding the tokens so far adds, so
        pieces join into generate(text=...)'s answer). Starts a new sequence; do not run
        the session otherwise until the stream is done."""
        if text is not None:
            if prompt is not None:
                raise InvalidArgumentError("give either prompt (token ids) or text, not both")
            if not isinstance(text, str):
                raise InvalidArgumentError("text: expected a string")
            codec = self._text_tokenizer(tokenizer)
            ids = self.stream(codec.encode(text).ids, max_new_tokens, sample=sample,
                              temperature=temperature, top_k=top_k, top_p=top_p, min_p=min_p,
                              seed=seed, ignore_eos=ignore_eos)
            return _stream_text(codec, ids)
        if prompt is None:
            raise InvalidArgumentError("stream needs prompt (token ids) or text")
        _check_decoding(max_new_tokens, seed)
        native = _native.TokenStream(self, [int(t) for t in prompt], max_new_tokens, str(sample),
                                     float(temperature), int(top_k), float(top_p),
                                     float(min_p), int(seed), bool(ignore_eos))
        return _stream_tokens(native)

    def generate(self, prompt: Union[Sequence[int], Sequence[Sequence[int]], None] = None,
                 max_new_tokens: int = 16, *,
                 sample: str = "greedy", temperature: float = 1.0, top_k: int = 0,
                 top_p: float = 1.0, min_p: float = 0.0, seed: int = 1,
                 ignore_eos: bool = False, return_stats: bool = False,
                 text: Union[None, str, Sequence[str]] = None,
                 tokenizer: Optional[PathLike] = None):
        """`switchyard generate`: the prompt's token ids in one run, then one run per new
        token, each picked from the last row of 'logits' by the catalogue's sample op
        with numbers from splitmix64 seeded by `seed` (the core's Decoder, as the CLI).
        Stops after the model's end token (its EOS ids, docs/decoding.md) unless
        ignore_eos. Starts a new sequence (the state is emptied first). Returns the new
        token ids; with return_stats, (tokens, stats) where stats has the CLI's --json
        figures ("stopped": "end_token" or "max_new_tokens").

        `prompt` may be a list of prompts (lists of ids) for a model imported with
        decoder_batch=B (up to B of them, of any lengths: left-padded through the mask);
        then each prompt's new tokens come back, in order, a finished sequence stopping
        while the others go on.

        text="..." (or a list of texts) instead of ids: the prompt is encoded and the new
        tokens decoded with the model's tokenizer.json (tokenizer_path(), or `tokenizer`)
        through Hugging Face's tokenizers package; returns the new text (or texts)."""
        if text is not None:
            if prompt is not None:
                raise InvalidArgumentError("give either prompt (token ids) or text, not both")
            codec = self._text_tokenizer(tokenizer)
            texts = [text] if isinstance(text, str) else list(text)
            if not texts or not all(isinstance(t, str) for t in texts):
                raise InvalidArgumentError("text: expected a string or a list of strings")
            ids = [codec.encode(t).ids for t in texts]
            result = self.generate(ids[0] if isinstance(text, str) else ids, max_new_tokens,
                                   sample=sample, temperature=temperature, top_k=top_k,
                                   top_p=top_p, min_p=min_p, seed=seed, ignore_eos=ignore_eos,
                                   return_stats=return_stats)
            tokens, stats = result if return_stats else (result, None)
            out = codec.decode(tokens) if isinstance(text, str) else \
                [codec.decode(row) for row in tokens]
            return (out, stats) if return_stats else out
        if prompt is None:
            raise InvalidArgumentError("generate needs prompt (token ids) or text")
        _check_decoding(max_new_tokens, seed)
        prompt = list(prompt)
        if prompt and not isinstance(prompt[0], numbers.Integral):
            rows, stats = _native.generate_batch(
                self, [[int(t) for t in p] for p in prompt], max_new_tokens, str(sample),
                float(temperature), int(top_k), float(top_p), float(min_p), int(seed),
                bool(ignore_eos))
            return (rows, stats) if return_stats else rows
        tokens, stats = _native.generate(self, [int(t) for t in prompt], max_new_tokens,
                                         str(sample), float(temperature), int(top_k),
                                         float(top_p), float(min_p), int(seed),
                                         bool(ignore_eos))
        return (tokens, stats) if return_stats else tokens

def _check_decoding(max_new_tokens, seed):
    """generate's and stream's own checks, before the native ones."""
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int):
        raise InvalidArgumentError(f"max_new_tokens {max_new_tokens!r}: expected an int")
    if not 0 <= int(seed) < 2**64:
        raise InvalidArgumentError(f"seed {seed}: expected 0 to 2**64 - 1")


def _stream_text(codec, ids):
    tokens, shown = [], ""
    for token in ids:
        tokens.append(token)
        full = codec.decode(tokens)
        if full.startswith(shown):
            piece, shown = full[len(shown):], full
        else:  # a later token changed how earlier ones decode: the whole text again
            piece, shown = full, full
        if piece:
            yield piece


def _stream_tokens(native):
    while True:
        token = native.next()
        if token is None:
            return
        yield token


def generate(model: PathLike, prompt: Union[Sequence[int], Sequence[Sequence[int]], None] = None,
             max_new_tokens: int = 16, *,
             device: Union[None, str, Sequence[str]] = None, sample: str = "greedy",
             temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0, min_p: float = 0.0,
             seed: int = 1, threads: int = 0, ignore_eos: bool = False,
             return_stats: bool = False, text: Union[None, str, Sequence[str]] = None,
             tokenizer: Optional[PathLike] = None):
    """`switchyard generate MODEL --prompt IDS`: a session for `model`, then
    Session.generate (prompt ids, or text through the model's tokenizer.json)."""
    return Session(model, device, threads=threads).generate(
        prompt, max_new_tokens, sample=sample, temperature=temperature, top_k=top_k,
        top_p=top_p, min_p=min_p, seed=seed, ignore_eos=ignore_eos, return_stats=return_stats,
        text=text, tokenizer=tokenizer)


def import_onnx(path: PathLike, stem: PathLike, *,
                input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
                dim_examples: Optional[Mapping[str, int]] = None,
                dim_exprs: Optional[Mapping[str, str]] = None,
                input_values: Optional[Mapping[str, Any]] = None,
                decoder_state: Optional[int] = None, decoder_batch: int = 1,
                max_fold_bytes: Union[int, str] = "1GiB") -> dict:
    """`switchyard import PATH -o STEM`: writes STEM.json (+ STEM.safetensors), or the single
    file STEM.symodel when STEM ends so, and returns
    the summary `import --json` prints (model, opset, nodes, inputs, outputs, ...).
    decoder_state and decoder_batch are --decoder-state and --decoder-batch."""
    if decoder_state is not None and (isinstance(decoder_state, bool) or decoder_state < 1):
        raise InvalidArgumentError(f"decoder_state {decoder_state!r}: expected a capacity above 0")
    if isinstance(decoder_batch, bool) or not isinstance(decoder_batch, int) or \
            not 1 <= decoder_batch <= 4096 or (decoder_batch != 1 and decoder_state is None):
        raise InvalidArgumentError(f"decoder_batch {decoder_batch!r}: expected 1 to 4096, "
                                   "with decoder_state")
    return _native.import_onnx(
        os.fspath(path), os.fspath(stem),
        {k: [int(d) for d in v] for k, v in (input_shapes or {}).items()},
        {k: int(v) for k, v in (dim_examples or {}).items()},
        {k: str(v) for k, v in (dim_exprs or {}).items()},
        dict(input_values or {}), int(decoder_state or 0), int(decoder_batch),
        str(max_fold_bytes))


def convert(model: PathLike, output: PathLike) -> str:
    """`switchyard convert MODEL -o OUTPUT`: writes the model (graph JSON + safetensors, or
    a single .symodel file) as OUTPUT: one file when OUTPUT ends in .symodel, else
    OUTPUT.json + OUTPUT.safetensors (docs/format.md). The model is validated first; the
    graph and every weight's bytes carry over unchanged. Returns the path written."""
    return _native.convert(os.fspath(model), os.fspath(output))


def quantize(model: PathLike, output: PathLike, *, weights: str = "int4", block: int = 32,
             symmetric: bool = False) -> dict:
    """`switchyard quantize MODEL -o OUTPUT`: weight-only round-to-nearest quantization of
    the model's matmul and gemm weights onto quant_matmul (docs/quantize.md), written to
    OUTPUT.json (+ .safetensors). Returns what `quantize --json` prints: each quantized
    layer with its relative RMS and largest error, the layers left and why, the weights'
    bytes before and after."""
    if isinstance(block, bool) or not isinstance(block, int):
        raise InvalidArgumentError(f"block {block!r}: expected an int")
    return _native.quantize(os.fspath(model), os.fspath(output), str(weights), block,
                            bool(symmetric))
