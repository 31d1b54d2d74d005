#!/usr/bin/env python3
"""Greedy decoding through decoding state, against PyTorch's own loop (docs/decoding.md).

For each decoder of tools/pytorch_dynamic.py with a key/value cache (gpt_past: a GPT-2-style
decoder in plain PyTorch; hf_gpt2_past: transformers.GPT2LMHeadModel, where transformers
is installed, its weight matrices scaled up so that random weights give a varied greedy
path rather than one token repeated):

1. exports it ONCE in the decoder-with-past form (past_key_<i>, past_value_<i> inputs,
   present_ outputs, dynamic batch, seq and past), as pytorch_dynamic.py does;
2. `switchyard import MODEL.onnx --decoder-state 48`: the caches become decoding state of
   48 positions, appended in place by cache_write;
3. on every device, `switchyard generate --prompt 1,2,3,4 --max-new-tokens 32 --json`, and
   checks the 32 tokens against the module's own greedy loop (the prompt in one call, then
   one token per call, the cache passed back each time);
4. runs a seeded top-k generation twice and checks that both give the same tokens.

usage: pytorch_decode.py --switchyard PATH [--work DIR] [--device D[,D...]]
Exit 0 when every device matches; 1 on a mismatch or a failure; 77 (the ctest skip code)
when PyTorch is not installed (found as tools/pytorch_roundtrip.py finds it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_dynamic as pd  # noqa: E402  (finds a Python with torch, or exits 77)

torch = pd.torch
PROMPT = [1, 2, 3, 4]
NEW_TOKENS = 32
CAPACITY = 48
# GPT-2's initialisation (std 0.02) makes a random model repeat its last input token; its
# matrices scaled by this give a varied greedy path.
SCALE = 8.0


def torch_greedy(module, layers, heads, head_dim):
    """The module's own loop: past caches as it returns them, argmax of the last row."""
    past = [torch.zeros(1, heads, 0, head_dim) for _ in range(2 * layers)]
    ids = torch.tensor([PROMPT], dtype=torch.long)
    tokens = []
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            out = module(ids, *past)
            past = list(out[1:])
            tokens.append(int(torch.argmax(out[0][0, -1])))
            ids = torch.tensor([[tokens[-1]]], dtype=torch.long)
    return tokens


def models():
    yield "gpt_past", pd.gpt_past()
    transformers = pd.import_transformers()
    if transformers is None:
        print("hf_gpt2_past: skipped (transformers is not installed)")
        return
    case = pd.hf_gpt2_past(transformers)
    with torch.no_grad():
        for parameter in case.module.parameters():
            if parameter.dim() >= 2:  # embeddings (the LM head is tied) and projections
                parameter.mul_(SCALE)
    yield "hf_gpt2_past", case


def generate(args, model, device, extra=()):
    command = [args.switchyard, "generate", model, "--prompt", ",".join(map(str, PROMPT)),
               "--max-new-tokens", str(NEW_TOKENS), "--device", device, "--json", *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(" ".join(command) + ": " + done.stderr.strip())
    return json.loads(done.stdout)["tokens"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--switchyard", required=True)
    parser.add_argument("--work", help="keep the files here (default: a temporary folder)")
    parser.add_argument("--device", default="cpu,cpu-ref")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="sy_decode_")
    failures = 0
    for name, case in models():
        folder = os.path.join(work, name)
        os.makedirs(folder, exist_ok=True)
        onnx_path = os.path.join(folder, name + ".onnx")
        case.module.eval()
        pd.export(case, onnx_path, 17)
        heads, head_dim = case.export_inputs["past_key_0"].shape[1::2]
        layers = sum(1 for n in case.input_names if n.startswith("past_key_"))
        expected = torch_greedy(case.module, layers, heads, head_dim)
        print("%s: PyTorch greedy %s" % (name, ",".join(map(str, expected))))
        model = os.path.join(folder, "model")
        imported = subprocess.run([args.switchyard, "import", onnx_path, "-o", model,
                                   "--decoder-state", str(CAPACITY)], capture_output=True,
                                  text=True)
        if imported.returncode != 0:
            print("FAIL %s: import --decoder-state: %s" % (name, imported.stderr.strip()))
            failures += 1
            continue
        for device in args.device.split(","):
            try:
                got = generate(args, model, device)
                sampled = [generate(args, model, device,
                                    ["--sample", "top-k", "--top-k", "5", "--seed", "3"])
                           for _ in range(2)]
            except RuntimeError as error:
                print("FAIL %s on %s: %s" % (name, device, error))
                failures += 1
                continue
            ok = got == expected and sampled[0] == sampled[1]
            print("  %s on %s: greedy %s%s; seeded top-k %s" % (
                name, device, "matches" if got == expected else "DIFFERS: " +
                ",".join(map(str, got)), "" if len(set(got)) > 1 else " (one token repeated)",
                "reproducible" if sampled[0] == sampled[1] else "NOT reproducible"))
            failures += 0 if ok else 1
    print("decode: %s" % ("all match" if failures == 0 else "%d failures" % failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
