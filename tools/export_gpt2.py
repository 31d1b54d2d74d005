#!/usr/bin/env python3
"""Exports a GPT-2 of real size (transformers' GPT2Config defaults: 12 layers, width 768,
12 heads, vocabulary 50257, 124M parameters) with random weights, in optimum's
decoder-with-past convention: input_ids, attention_mask [batch, total_sequence_length],
position_ids, past_key_values.<i>.key / .value in; logits and present.<i>.key / .value
out. No weights are downloaded: the model is built from its config with a fixed seed, so
its speed is GPT-2's and its tokens are meaningless.

usage: export_gpt2.py OUT.onnx [--layers N]
Needs torch and transformers (a venv: pip install torch transformers).
"""
import argparse
import inspect

import torch


class WithPast(torch.nn.Module):
    """A transformers causal LM called as optimum's export calls it (tools/pytorch_decode.py
    exports a small one the same way)."""

    def __init__(self, model, layers):
        super().__init__()
        self.model, self.layers = model, layers

    def forward(self, input_ids, attention_mask, position_ids, *past):
        cache = make_cache([(past[2 * i], past[2 * i + 1]) for i in range(self.layers)])
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         position_ids=position_ids, past_key_values=cache, use_cache=True,
                         return_dict=True)
        return (out.logits,) + flatten_cache(out.past_key_values)


def make_cache(pairs):
    """The past as the model takes it: transformers 5's DynamicCache (built from the pairs),
    4's from_legacy_cache, or the tuple of older versions."""
    try:
        from transformers import DynamicCache
    except ImportError:
        return tuple(pairs)
    if "ddp_cache_data" in inspect.signature(DynamicCache.__init__).parameters:
        return DynamicCache(ddp_cache_data=pairs)
    if hasattr(DynamicCache, "from_legacy_cache"):
        return DynamicCache.from_legacy_cache(tuple(pairs))
    return tuple(pairs)


def flatten_cache(presents):
    """The presents as one flat tuple (key, value of each layer), whatever holds them."""
    if hasattr(presents, "layers"):  # transformers 5: a Cache of layers
        return tuple(t for layer in presents.layers for t in (layer.keys, layer.values))
    if hasattr(presents, "to_legacy_cache"):  # transformers 4's Cache objects
        presents = presents.to_legacy_cache()
    return tuple(t for kv in presents for t in kv)


def optimum_names(layers):
    """optimum's decoder-with-past convention for `layers` layers: the past inputs' names,
    the outputs' names (logits, then the presents) and the dynamic axes of them all."""
    past_names = ["past_key_values.%d.%s" % (i, kv) for i in range(layers)
                  for kv in ("key", "value")]
    outputs = ["logits"] + [n.replace("past_key_values", "present") for n in past_names]
    axes = {"input_ids": {0: "batch_size", 1: "sequence_length"},
            "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
            "position_ids": {0: "batch_size", 1: "sequence_length"},
            "logits": {0: "batch_size", 1: "sequence_length"}}
    axes.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in past_names})
    axes.update({n: {0: "batch_size", 2: "past_sequence_length + sequence_length"}
                 for n in outputs[1:]})
    return past_names, outputs, axes


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args()
    import transformers  # here: tools/pytorch_decode.py imports this module without it
    torch.manual_seed(124)
    config = transformers.GPT2Config(n_layer=args.layers)
    config._attn_implementation = "eager"
    module = WithPast(transformers.GPT2LMHeadModel(config).eval(), args.layers).eval()
    heads, head_dim = config.n_head, config.n_embd // config.n_head
    past_names, outputs, axes = optimum_names(args.layers)
    inputs = (torch.ones(2, 3, dtype=torch.long), torch.ones(2, 8, dtype=torch.long),
              torch.tensor([[5, 6, 7]] * 2), *[torch.zeros(2, heads, 5, head_dim)
                                               for _ in past_names])
    extra = ({"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters
             else {})
    torch.onnx.export(module, inputs, args.out, opset_version=17, do_constant_folding=True,
                      input_names=["input_ids", "attention_mask", "position_ids"] + past_names,
                      output_names=outputs, dynamic_axes=axes, **extra)
    print("wrote %s: GPT-2 with %d layers, %d parameters" % (
        args.out, args.layers, sum(p.numel() for p in module.parameters())))


if __name__ == "__main__":
    main()
