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
import export_gpt2  # noqa: E402  (optimum's names; needs torch, found above)

torch = pd.torch
np = pd.np
PROMPT = [1, 2, 3, 4]
NEW_TOKENS = 32
CAPACITY = 48
# GPT-2's initialisation (std 0.02) makes a random model repeat its last input token; its
# matrices scaled by this give a varied greedy path.
SCALE = 8.0


def torch_greedy(module, layers, heads, head_dim, masked=False):
    """The module's own loop: past caches as it returns them, argmax of the last row;
    `masked` modules also take an attention mask of ones over past + seq and the
    positions past .. past + seq - 1."""
    past = [torch.zeros(1, heads, 0, head_dim) for _ in range(2 * layers)]
    ids = torch.tensor([PROMPT], dtype=torch.long)
    tokens = []
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            held, seq = past[0].size(2), ids.size(1)
            extra = ((torch.ones(1, held + seq, dtype=torch.long),
                      torch.arange(held, held + seq, dtype=torch.long).unsqueeze(0))
                     if masked else ())
            out = module(ids, *extra, *past)
            past = list(out[1:])
            tokens.append(int(torch.argmax(out[0][0, -1])))
            ids = torch.tensor([[tokens[-1]]], dtype=torch.long)
    return tokens


# ----------------------------------------------------------------------------------
# optimum's convention (what `optimum-cli export onnx --task text-generation-with-past`
# writes): input_ids, attention_mask [batch, past + seq] with a dim name of its own,
# position_ids [batch, seq], past_key_values.<i>.key / .value in, logits and
# present.<i>.key / .value out.
# ----------------------------------------------------------------------------------


class GptMask(pd.GptPast):
    """GptPast taking the attention mask and position ids as inputs: the causal mask
    and-ed with attention_mask (a 0 hides that key position)."""

    def forward(self, input_ids, attention_mask, position_ids, *past):
        seq, past_length = input_ids.size(1), past[0].size(2)
        h = self.wte(input_ids) + self.wpe(position_ids)
        causal = self.bias[past_length:past_length + seq, :past_length + seq]
        causal = causal & attention_mask[:, None, None, :].bool()
        presents = []
        for i, block in enumerate(self.blocks):
            h, key, value = block(h, causal, past[2 * i], past[2 * i + 1])
            presents += [key, value]
        return (self.lm_head(self.ln_f(h)),) + tuple(presents)


def hf_gpt2_mask(transformers, layers):
    """A small transformers.GPT2LMHeadModel called as optimum's export calls it."""
    config = transformers.GPT2Config(vocab_size=100, n_positions=64, n_embd=32,
                                     n_layer=layers, n_head=4)
    config._attn_implementation = "eager"
    return export_gpt2.WithPast(transformers.GPT2LMHeadModel(config), layers)


def optimum_case(module, vocab, layers, heads, head_dim, rng):
    """The export of a masked decoder under optimum's names and dim names, traced at
    batch 2, seq 3, past 5 (the mask's last two positions of row 1 zero)."""
    past_names, output_names, axes = export_gpt2.optimum_names(layers)
    pd.vary_defaults(module).eval()
    mask = np.ones((2, 8), np.int64)
    mask[1, 6:] = 0
    export_inputs = dict([("input_ids", pd.tokens(rng, vocab, 2, 3)), ("attention_mask", mask),
                          ("position_ids", np.array([[5, 6, 7]] * 2, np.int64))] +
                         [(n, pd.randn(rng, 2, heads, 5, head_dim)) for n in past_names])
    return pd.Case(module, output_names, axes, export_inputs, [])


def scaled(case):
    with torch.no_grad():
        for parameter in case.module.parameters():
            if parameter.dim() >= 2:  # embeddings (the LM head is tied) and projections
                parameter.mul_(SCALE)
    return case


def models():
    """(name, Case, masked): masked models take attention_mask and position_ids."""
    yield "gpt_past", pd.gpt_past(), False
    torch.manual_seed(26)
    yield "gpt_optimum", optimum_case(GptMask(), 50, 2, 4, 8, np.random.default_rng(26)), True
    transformers = pd.import_transformers()
    if transformers is None:
        print("hf_gpt2_past, hf_gpt2_optimum: skipped (transformers is not installed)")
        return
    yield "hf_gpt2_past", scaled(pd.hf_gpt2_past(transformers)), False
    torch.manual_seed(27)
    yield "hf_gpt2_optimum", scaled(optimum_case(hf_gpt2_mask(transformers, 2), 100, 2, 4, 8,
                                                 np.random.default_rng(27))), True


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
    for name, case, masked in models():
        folder = os.path.join(work, name)
        os.makedirs(folder, exist_ok=True)
        onnx_path = os.path.join(folder, name + ".onnx")
        case.module.eval()
        pd.export(case, onnx_path, 17)
        past_names = [n for n in case.input_names if n.startswith("past")]
        heads, head_dim = case.export_inputs[past_names[0]].shape[1::2]
        expected = torch_greedy(case.module, len(past_names) // 2, heads, head_dim, masked)
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
