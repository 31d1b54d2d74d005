#!/usr/bin/env python3
"""Per-token decode latency: Switchyard's decoding state against ONNX Runtime.

ONNX Runtime runs the decoder-with-past ONNX file the way its users decode: one run per
token with I/O binding, each run's present outputs bound as the next run's past inputs
(OrtValues, no copies through NumPy). Switchyard runs the same file imported with
`--decoder-state` (docs/decoding.md): `switchyard bench` times one token's run, the cache
kept and appended in place by the session. Both on the CPU with the same thread count;
the medians and their ratio are printed (lower is faster).

With --genai FOLDER (a model onnxruntime-genai's builder wrote, and --model its
Switchyard import with --decoder-state) it compares onnxruntime-genai's own generator
instead: the same 16-token prompt, then --tokens greedy tokens, per-token time of the
decoding phase (after the first token) by each, --rounds times, medians.

usage: decode_bench.py --onnx FILE.onnx --model STATEFUL_MODEL --switchyard PATH
                       [--threads N] [--tokens N] [--rounds N]
       decode_bench.py --genai FOLDER --model STATEFUL_MODEL --switchyard PATH [...]
Needs onnxruntime and numpy (a venv: pip install onnxruntime numpy), and
onnxruntime-genai for --genai.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnxruntime as ort


def present_name(past):
    """past_key_0 -> present_key_0; optimum's past_key_values.0.key -> present.0.key."""
    if past.startswith("past_key_values."):
        return "present." + past[len("past_key_values."):]
    return past.replace("past", "present")


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
            # optimum's convention: a mask over past + 1, the new token's position.
            if "attention_mask" in inputs:
                binding.bind_ortvalue_input("attention_mask", ort.OrtValue.ortvalue_from_numpy(
                    np.ones((1, step + 1), np.int64)))
            if "position_ids" in inputs:
                binding.bind_ortvalue_input("position_ids", ort.OrtValue.ortvalue_from_numpy(
                    np.array([[step]], np.int64)))
            for n, v in past.items():
                binding.bind_ortvalue_input(n, v)
            for n in outputs:
                binding.bind_output(n, "cpu")
            start = time.perf_counter()
            session.run_with_iobinding(binding)
            times.append(time.perf_counter() - start)
            values = binding.get_outputs()
            presents = dict(zip(outputs, values))
            past = {n: presents[present_name(n)] for n in pasts}
            token = np.array([[int(np.argmax(presents[outputs[0]].numpy()[0, -1]))]], np.int64)
    return statistics.median(times) * 1e6


def switchyard_per_token(binary, model, threads, repeat):
    """`switchyard bench` of one token's run; a model in optimum's convention gets a mask of
    ones over its capacity and position 0 (the same work at every position)."""
    path = model if model.endswith(".json") else model + ".json"
    with open(path) as f:
        graph = json.load(f)
    names = {graph["values"][i]["name"]: graph["values"][i] for i in graph["inputs"]}
    extra = []
    work = tempfile.mkdtemp(prefix="sy_decode_bench_")
    if "attention_mask" in names:
        np.save(os.path.join(work, "mask.npy"),
                np.ones(names["attention_mask"]["shape"], np.int64))
        extra += ["--input", "attention_mask=" + os.path.join(work, "mask.npy")]
    if "position_ids" in names:
        np.save(os.path.join(work, "pos.npy"), np.zeros((1, 1), np.int64))
        extra += ["--input", "position_ids=" + os.path.join(work, "pos.npy")]
    out = subprocess.run([binary, "bench", model, "--input-shape", "input_ids=1,1", *extra,
                          "--repeat", str(repeat), "--warmup", "20", "--threads", str(threads),
                          "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("switchyard bench failed: " + out.stderr.strip())
    return json.loads(out.stdout)["median_us"]


PROMPT = list(range(3, 19))


def genai_per_token(folder, threads, tokens):
    """onnxruntime-genai's generator on `folder` (a copy whose genai_config.json sets the
    thread count): microseconds per token after the first."""
    import onnxruntime_genai as og
    work = tempfile.mkdtemp(prefix="sy_genai_bench_")
    for name in os.listdir(folder):
        os.symlink(os.path.join(os.path.abspath(folder), name), os.path.join(work, name))
    os.remove(os.path.join(work, "genai_config.json"))
    with open(os.path.join(folder, "genai_config.json")) as f:
        config = json.load(f)
    config["model"]["decoder"].setdefault("session_options", {})
    config["model"]["decoder"]["session_options"]["intra_op_num_threads"] = threads
    config["model"]["decoder"]["session_options"]["inter_op_num_threads"] = 1
    with open(os.path.join(work, "genai_config.json"), "w") as f:
        json.dump(config, f)
    model = og.Model(work)
    params = og.GeneratorParams(model)
    params.set_search_options(max_length=len(PROMPT) + tokens, do_sample=False)
    generator = og.Generator(model, params)
    generator.append_tokens(np.array([PROMPT], np.int32))
    generator.generate_next_token()  # the first token: the prompt's run
    start = time.perf_counter()
    steps = 0
    while not generator.is_done():
        generator.generate_next_token()
        steps += 1
    return (time.perf_counter() - start) / max(steps, 1) * 1e6


def switchyard_generate_per_token(binary, model, threads, tokens):
    """`switchyard generate` of the same prompt: microseconds per token after the first."""
    out = subprocess.run([binary, "generate", model, "--prompt", ",".join(map(str, PROMPT)),
                          "--max-new-tokens", str(tokens), "--threads", str(threads),
                          "--ignore-eos", "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("switchyard generate failed: " + out.stderr.strip())
    return 1e6 / json.loads(out.stdout)["decode_tokens_per_second"]


def main_genai(args):
    ours, theirs = [], []
    for _ in range(args.rounds):  # interleaved
        ours.append(switchyard_generate_per_token(args.switchyard, args.model, args.threads,
                                                  args.tokens))
        theirs.append(genai_per_token(args.genai, args.threads, args.tokens))
    ours_m, theirs_m = statistics.median(ours), statistics.median(theirs)
    print("per token after the first, median of %d rounds: Switchyard %.1f us, "
          "onnxruntime-genai %.1f us: ratio %.2f (Switchyard / onnxruntime-genai)" % (
              args.rounds, ours_m, theirs_m, ours_m / theirs_m))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--genai", help="an onnxruntime-genai model folder (see above)")
    parser.add_argument("--onnx")
    parser.add_argument("--model", required=True)
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if args.genai:
        return main_genai(args)
    if not args.onnx:
        parser.error("--onnx or --genai is required")
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
