#!/usr/bin/env python3
"""Per-token decode latency: Switchyard's decoding state against ONNX Runtime.

ONNX Runtime runs the decoder-with-past ONNX file the way its users decode: one run per
token with I/O binding, each run's present outputs bound as the next run's past inputs
(OrtValues, no copies through NumPy). Switchyard runs the same file imported with
`--decoder-state` (docs/decoding.md): `switchyard bench` times one token's run, the cache
kept and appended in place by the session. Both on the CPU with the same thread count;
the medians and their ratio are printed (lower is faster).

usage: decode_bench.py --onnx FILE.onnx --model STATEFUL_MODEL --switchyard PATH
                       [--threads N] [--tokens N] [--rounds N]
Needs onnxruntime and numpy (a venv: pip install onnxruntime numpy).
"""
import argparse
import json
import statistics
import subprocess
import time

import numpy as np
import onnxruntime as ort


def ort_per_token(path, threads, tokens, rounds):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    inputs = {i.name: i for i in session.get_inputs()}
    pasts = [n for n in inputs if n.startswith("past")]
    outputs = [o.name for o in session.get_outputs()]
    first = inputs[pasts[0]].shape  # [batch, heads, past, head_dim]
    heads, head_dim = first[1], first[3]
    times = []
    for _ in range(rounds):
        past = {n: ort.OrtValue.ortvalue_from_numpy(np.zeros((1, heads, 0, head_dim), np.float32))
                for n in pasts}
        token = np.array([[1]], dtype=np.int64)
        for step in range(tokens):
            binding = session.io_binding()
            binding.bind_ortvalue_input("input_ids", ort.OrtValue.ortvalue_from_numpy(token))
            for n, v in past.items():
                binding.bind_ortvalue_input(n, v)
            for n in outputs:
                binding.bind_output(n, "cpu")
            start = time.perf_counter()
            session.run_with_iobinding(binding)
            times.append(time.perf_counter() - start)
            values = binding.get_outputs()
            presents = dict(zip(outputs, values))
            past = {n: presents[n.replace("past", "present")] for n in pasts}
            token = np.array([[int(np.argmax(presents[outputs[0]].numpy()[0, -1]))]], np.int64)
    return statistics.median(times) * 1e6


def switchyard_per_token(binary, model, threads, repeat):
    out = subprocess.run([binary, "bench", model, "--input-shape", "input_ids=1,1",
                          "--repeat", str(repeat), "--warmup", "20", "--threads", str(threads),
                          "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["median_us"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--onnx", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    ours = switchyard_per_token(args.switchyard, args.model, args.threads,
                                args.tokens * args.rounds)
    theirs = ort_per_token(args.onnx, args.threads, args.tokens, args.rounds)
    ours_again = switchyard_per_token(args.switchyard, args.model, args.threads,
                                      args.tokens * args.rounds)
    ours = min(ours, ours_again)
    print("per token, median: Switchyard %.1f us, ONNX Runtime %.1f us: ratio %.2f "
          "(Switchyard / ORT)" % (ours, theirs, ours / theirs))


if __name__ == "__main__":
    main()
