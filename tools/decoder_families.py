#!/usr/bin/env python3
"""Decoder families from transformers, exported with past key/values and an attention mask,
decoded by Switchyard against PyTorch's own greedy loop (issue 33, docs/decoding.md).

Each family (--list) is built from a small config written out here with random weights
from a fixed seed (nothing downloads), its weight matrices scaled so that random weights
give a varied greedy path. It is exported in optimum's decoder-with-past convention
(input_ids, attention_mask [batch, past + seq], position_ids where the model takes them,
past_key_values.<i>.key / .value in; logits and present.<i>.key / .value out) by
torch.onnx.export: the TorchScript exporter (`--exporter torchscript`, dynamo=False) or
the dynamo exporter (`--exporter dynamo`); or by optimum's exporter at its default opset
(`--exporter optimum`: the model saved with save_pretrained, then
optimum.exporters.onnx.main_export with task text-generation-with-past; optimum-onnx
needs an older transformers than the newest: give it a venv of its own). Then:

1. PyTorch's greedy loop: the prompt in one call, then one token per call, the cache
   passed back each time, attention_mask all ones over past + seq, position ids counting
   on;
2. `switchyard import MODEL.onnx --decoder-state CAPACITY`;
3. `switchyard generate --prompt ... --max-new-tokens N --json` on each device, whose
   tokens must equal PyTorch's;
4. imported again with `--decoder-batch 3`, three prompts of different lengths in one
   `generate` (left padding through the mask) must each give PyTorch's tokens for that
   prompt alone (on the first device; --no-batch skips it).

Setup (PyPI; the torch wheel pulls the CUDA libraries, a few GB) and a run:

    python3 -m venv /work/venv-llm
    /work/venv-llm/bin/pip install torch transformers onnx onnxscript onnxruntime numpy
    /work/venv-llm/bin/python tools/decoder_families.py --switchyard build/release/bin/switchyard

With --size 125m the families take a real model's sizes (width 768, 12 layers, 12 heads,
4 key/value heads where the family has them, FFN 2048, vocabulary 32000: a Llama of
about 125M parameters), for tools/decode_bench.py.

usage: decoder_families.py --switchyard PATH [--work DIR] [--only REGEX] [--exporter E]
                           [--device D[,D...]] [--size small|125m] [--list]
Exit 0 when every family decodes PyTorch's tokens on every device; 1 otherwise; 77 when
torch or transformers is missing.
"""
import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import warnings

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

try:
    import numpy as np
    import torch
    import transformers
except ImportError as error:  # pragma: no cover
    print("decoder_families: skipped (%s)" % error)
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_gpt2  # noqa: E402  (the cache as each transformers version takes and gives it)

VOCAB, WIDTH, FFN, LAYERS, HEADS, KV_HEADS = 128, 64, 128, 2, 4, 2
PROMPT = [1, 2, 3, 4, 5]
# One batch of three sequences (import --decoder-batch 3): prompts of other lengths, each
# of which must decode its own single-sequence tokens.
BATCH_PROMPTS = [[1, 2, 3, 4, 5], [7], [9, 8, 7]]
NEW_TOKENS = 32
CAPACITY = 48
# Random weights scaled by this (16 for the families whose path stays on one token at 4):
# a varied greedy path rather than one token repeated.
SCALE = {"gemma": 16.0, "opt": 16.0, "gpt2": 16.0}


def use_size(size):
    """Sets the families' sizes: `small` (the tests') or `125m`."""
    global VOCAB, WIDTH, FFN, LAYERS, HEADS, KV_HEADS, CAPACITY
    if size == "125m":
        VOCAB, WIDTH, FFN, LAYERS, HEADS, KV_HEADS, CAPACITY = 32000, 768, 2048, 12, 12, 4, 256


def _common(**extra):
    base = dict(vocab_size=VOCAB, hidden_size=WIDTH, intermediate_size=FFN,
                num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                max_position_embeddings=512, attn_implementation="eager")
    base.update(extra)
    return base


def llama():
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(
        **_common(num_key_value_heads=KV_HEADS)))


def qwen2():
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(
        **_common(num_key_value_heads=KV_HEADS, use_sliding_window=False)))


# Token ids inside the small vocabulary (the configs' defaults, 32000 or 50256, are not).
SPECIAL = dict(bos_token_id=1, eos_token_id=2, pad_token_id=0)


def phi3():
    return transformers.Phi3ForCausalLM(transformers.Phi3Config(
        **_common(num_key_value_heads=KV_HEADS, sliding_window=None, **SPECIAL)))


def gemma():
    return transformers.GemmaForCausalLM(transformers.GemmaConfig(
        **_common(num_key_value_heads=KV_HEADS, head_dim=WIDTH // HEADS)))


def mistral():
    return transformers.MistralForCausalLM(transformers.MistralConfig(
        **_common(num_key_value_heads=KV_HEADS, sliding_window=None)))


def gpt_neox():
    return transformers.GPTNeoXForCausalLM(transformers.GPTNeoXConfig(
        **_common(rotary_pct=0.5)))


def opt():
    return transformers.OPTForCausalLM(transformers.OPTConfig(
        vocab_size=VOCAB, hidden_size=WIDTH, ffn_dim=FFN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, max_position_embeddings=512, word_embed_proj_dim=WIDTH,
        attn_implementation="eager"))


def gpt2():
    return transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=WIDTH, n_layer=LAYERS, n_head=HEADS, n_positions=512,
        attn_implementation="eager", **SPECIAL))


def stablelm():
    return transformers.StableLmForCausalLM(transformers.StableLmConfig(
        **_common(num_key_value_heads=KV_HEADS)))


FAMILIES = {"llama": llama, "qwen2": qwen2, "phi3": phi3, "gemma": gemma, "mistral": mistral,
            "gpt_neox": gpt_neox, "opt": opt, "gpt2": gpt2, "stablelm": stablelm}


class WithPast(torch.nn.Module):
    """A causal LM called as optimum's export calls it: the past as a flat list of tensors
    made into a DynamicCache, the presents returned flat after the logits."""

    def __init__(self, model, layers, positions):
        super().__init__()
        self.model, self.layers, self.positions = model, layers, positions

    def forward(self, input_ids, attention_mask, *rest):
        position_ids = rest[0] if self.positions else None
        past = rest[1:] if self.positions else rest
        cache = export_gpt2.make_cache([(past[2 * i], past[2 * i + 1])
                                        for i in range(self.layers)])
        extra = {"position_ids": position_ids} if self.positions else {}
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         past_key_values=cache, use_cache=True, return_dict=True, **extra)
        return (out.logits,) + export_gpt2.flatten_cache(out.past_key_values)


def build(name):
    torch.manual_seed(33)
    model = FAMILIES[name]().eval()
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() >= 2:
                parameter.mul_(SCALE.get(name, 4.0))
    positions = "position_ids" in inspect.signature(model.forward).parameters
    config = model.config
    heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return WithPast(model, config.num_hidden_layers, positions).eval(), heads, head_dim


def names(module):
    """optimum's names (export_gpt2.optimum_names): the inputs, the outputs, the pasts."""
    past, outputs, _ = export_gpt2.optimum_names(module.layers)
    inputs = ["input_ids", "attention_mask"] + (["position_ids"] if module.positions else [])
    return inputs + past, outputs, past


def export_optimum(module, path):
    """optimum's own export of the module's model (saved first: optimum reads a folder)."""
    from optimum.exporters.onnx import main_export  # optimum-onnx
    folder = os.path.dirname(path)
    saved = os.path.join(folder, "hf")
    module.model.save_pretrained(saved)
    main_export(saved, output=folder, task="text-generation-with-past")


def export(module, heads, head_dim, path, exporter):
    if exporter == "optimum":
        return export_optimum(module, path)
    input_names, output_names, past = names(module)
    batch, seq, held = 2, 3, 5
    args = [torch.randint(0, VOCAB, (batch, seq)), torch.ones(batch, held + seq, dtype=torch.long)]
    if module.positions:
        args.append(torch.arange(held, held + seq).repeat(batch, 1))
    args += [torch.randn(batch, heads, held, head_dim) for _ in past]
    axes = {k: v for k, v in export_gpt2.optimum_names(module.layers)[2].items()
            if k in input_names + output_names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exporter == "dynamo":
            # torch.export's own sizes: every named axis dynamic; the mask's length comes
            # out as an expression of the others (past + seq) where tracing proves it.
            dynamic = torch.export.Dim.DYNAMIC
            shapes = [{axis: dynamic for axis in axes.get(name, {})} for name in input_names]
            shapes = (shapes[0], shapes[1], tuple(shapes[2:]))  # forward(ids, mask, *rest)
            torch.onnx.export(module, tuple(args), path, input_names=input_names,
                              output_names=output_names, dynamic_shapes=shapes, dynamo=True,
                              external_data=False)
        else:
            torch.onnx.export(module, tuple(args), path, input_names=input_names,
                              output_names=output_names, dynamic_axes=axes, dynamo=False,
                              external_data=False)


def torch_greedy(module, heads, head_dim, prompt=None):
    _, _, past_names = names(module)
    past = [torch.zeros(1, heads, 0, head_dim) for _ in past_names]
    ids = torch.tensor([prompt or PROMPT])
    tokens = []
    with torch.no_grad():
        for _ in range(NEW_TOKENS):
            held, seq = past[0].size(2), ids.size(1)
            args = [ids, torch.ones(1, held + seq, dtype=torch.long)]
            if module.positions:
                args.append(torch.arange(held, held + seq).unsqueeze(0))
            out = module(*args, *past)
            past = list(out[1:])
            tokens.append(int(torch.argmax(out[0][0, -1])))
            ids = torch.tensor([[tokens[-1]]])
    return tokens


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(" ".join(command) + ": " + (done.stderr.strip() or done.stdout.strip()))
    return done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--switchyard")
    parser.add_argument("--work", help="keep the files here (default: a temporary folder)")
    parser.add_argument("--only", default=".", help="families whose name matches this regex")
    parser.add_argument("--exporter", default="torchscript,dynamo",
                        help="any of torchscript, dynamo, optimum (comma-separated)")
    parser.add_argument("--device", default="cpu,cpu-ref")
    parser.add_argument("--size", choices=["small", "125m"], default="small")
    parser.add_argument("--no-batch", action="store_true",
                        help="skip the batch of three prompts of different lengths")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    use_size(args.size)
    if args.list:
        print("\n".join(FAMILIES))
        return 0
    if not args.switchyard:
        parser.error("--switchyard is required")
    work = args.work or tempfile.mkdtemp(prefix="sy_families_")
    failures = passes = 0
    for name in FAMILIES:
        if not re.search(args.only, name):
            continue
        module, heads, head_dim = build(name)
        expected = torch_greedy(module, heads, head_dim)
        for exporter in args.exporter.split(","):
            label = "%s.%s" % (name, exporter)
            folder = os.path.join(work, label)
            os.makedirs(folder, exist_ok=True)
            onnx_path = os.path.join(folder, "model.onnx")
            try:
                export(module, heads, head_dim, onnx_path, exporter)
            except Exception as error:  # noqa: BLE001  (an exporter failure is a result)
                print("FAIL %s: export: %s" % (label, str(error).splitlines()[0][:300]))
                failures += 1
                continue
            model = os.path.join(folder, "sy")
            try:
                run([args.switchyard, "import", onnx_path, "-o", model,
                     "--decoder-state", str(CAPACITY)])
            except RuntimeError as error:
                print("FAIL %s: import: %s" % (label, str(error)[-400:]))
                failures += 1
                continue
            for device in args.device.split(","):
                try:
                    got = json.loads(run([args.switchyard, "generate", model, "--prompt",
                                          ",".join(map(str, PROMPT)), "--max-new-tokens",
                                          str(NEW_TOKENS), "--device", device,
                                          "--json"]))["tokens"]
                except RuntimeError as error:
                    print("FAIL %s on %s: %s" % (label, device, str(error)[-400:]))
                    failures += 1
                    continue
                ok = got == expected
                print("%s %s on %s: %d tokens%s%s" % (
                    "ok  " if ok else "FAIL", label, device, len(got),
                    "" if ok else " DIFFER: PyTorch %s, switchyard %s" % (expected, got),
                    "" if len(set(expected)) > 2 else " (PyTorch repeats one token)"))
                passes += ok
                failures += not ok
            if args.no_batch:
                continue
            # Three prompts of different lengths in one batch, on the first device.
            batched = os.path.join(folder, "sy_batch3")
            device = args.device.split(",")[0]
            try:
                run([args.switchyard, "import", onnx_path, "-o", batched,
                     "--decoder-state", str(CAPACITY), "--decoder-batch", "3"])
                command = [args.switchyard, "generate", batched, "--max-new-tokens",
                           str(NEW_TOKENS), "--device", device, "--json", "--ignore-eos"]
                for prompt in BATCH_PROMPTS:
                    command += ["--prompt", ",".join(map(str, prompt))]
                rows = json.loads(run(command))["sequences"]
            except RuntimeError as error:
                print("FAIL %s batch of 3 on %s: %s" % (label, device, str(error)[-400:]))
                failures += 1
                continue
            wanted = [torch_greedy(module, heads, head_dim, p) for p in BATCH_PROMPTS]
            ok = rows == wanted
            print("%s %s batch of 3 (prompts of %s tokens) on %s%s" % (
                "ok  " if ok else "FAIL", label, "/".join(str(len(p)) for p in BATCH_PROMPTS),
                device, "" if ok else ": rows %s, PyTorch %s" % (rows, wanted)))
            passes += ok
            failures += not ok
    print("decoder families: %d passed, %d failed" % (passes, failures))
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
