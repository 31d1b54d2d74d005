#!/usr/bin/env python3
"""Writes the bundled example models under examples/ with NumPy only.

Each example is examples/<name>/<name>.json plus <name>.safetensors, an inputs/ folder
of .npy files (one per graph input) and an expected/ folder of .npy files (one per
graph output) computed here by NumPy, independently of Switchyard's own code. The
safetensors files are written by this script (not by Switchyard's writer), so loading
them also checks our reader against an independent producer.

Usage: python3 tools/make_examples.py [--out examples]
Deterministic: a fixed seed per example; rerunning rewrites identical files.
"""
import argparse
import json
import os
import struct

import numpy as np

import numpy_reference as ref

SAFETENSORS_DTYPES = {np.float32: "F32", np.float16: "F16", np.float64: "F64",
                      np.int8: "I8", np.uint8: "U8", np.int32: "I32", np.int64: "I64",
                      np.bool_: "BOOL"}
GRAPH_DTYPES = {np.float32: "f32", np.float16: "f16", np.float64: "f64", np.int8: "i8",
                np.uint8: "u8", np.int32: "i32", np.int64: "i64", np.bool_: "bool"}


def write_safetensors(path, tensors):
    """The public safetensors layout: u64 header length, JSON header, contiguous data."""
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        data = array.tobytes()
        header[name] = {"dtype": SAFETENSORS_DTYPES[array.dtype.type],
                        "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"producer": "tools/make_examples.py"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)  # data section 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


class GraphBuilder:
    """Collects values, constants and nodes in the order rml-graph v1 requires."""

    def __init__(self, name):
        self.name = name
        self.values, self.inputs, self.outputs = [], [], []
        self.constants, self.nodes, self.weights = [], [], {}

    def value(self, name, dtype, shape):
        self.values.append({"name": name, "dtype": GRAPH_DTYPES[np.dtype(dtype).type],
                            "shape": [int(d) for d in shape]})
        return len(self.values) - 1

    def input(self, name, array):
        vid = self.value(name, array.dtype, array.shape)
        self.inputs.append(vid)
        return vid

    def weight(self, name, array):
        vid = self.value(name, array.dtype, array.shape)
        self.constants.append({"value": vid, "tensor": name})
        self.weights[name] = array
        return vid

    def node(self, op, inputs, out_name, out_dtype, out_shape, attrs=None, name=None):
        vid = self.value(out_name, out_dtype, out_shape)
        node = {"op": op, "inputs": inputs, "outputs": [vid]}
        if attrs:
            node["attrs"] = attrs
        if name:
            node["name"] = name
        self.nodes.append(node)
        return vid

    def write(self, out_dir, inputs, expected):
        folder = os.path.join(out_dir, self.name)
        os.makedirs(os.path.join(folder, "inputs"), exist_ok=True)
        os.makedirs(os.path.join(folder, "expected"), exist_ok=True)
        graph = {"format": "rml-graph", "version": 1, "producer": "tools/make_examples.py",
                 "values": self.values, "inputs": self.inputs, "outputs": self.outputs,
                 "constants": self.constants, "nodes": self.nodes}
        with open(os.path.join(folder, self.name + ".json"), "w") as f:
            f.write("{\n")
            keys = list(graph)
            for i, key in enumerate(keys):
                item = graph[key]
                sep = "," if i + 1 < len(keys) else ""
                if isinstance(item, list) and item and isinstance(item[0], dict):
                    rows = ",\n    ".join(json.dumps(x) for x in item)
                    f.write(f'  "{key}": [\n    {rows}\n  ]{sep}\n')
                else:
                    f.write(f'  "{key}": {json.dumps(item)}{sep}\n')
            f.write("}\n")
        write_safetensors(os.path.join(folder, self.name + ".safetensors"), self.weights)
        for name, array in inputs.items():
            np.save(os.path.join(folder, "inputs", name + ".npy"), array)
        for name, array in expected.items():
            np.save(os.path.join(folder, "expected", name + ".npy"), array)


def make_mlp(out_dir):
    """A 3-layer perceptron like the seed's torch_mlp: [2, 12] -> 16 -> 16 -> 4."""
    rng = np.random.default_rng(1)
    g = GraphBuilder("mlp")
    x = rng.standard_normal((2, 12)).astype(np.float32)
    sizes = [12, 16, 16, 4]
    h_np = x
    h = g.input("x", x)
    for layer in range(3):
        fan_in, fan_out = sizes[layer], sizes[layer + 1]
        w = (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)
        b = (0.1 * rng.standard_normal(fan_out)).astype(np.float32)
        w_id = g.weight(f"layers.{layer}.weight", w)
        b_id = g.weight(f"layers.{layer}.bias", b)
        last = layer == 2
        mm = g.node("matmul", [h, w_id], f"fc{layer}.mm", np.float32, (2, fan_out),
                    name=f"fc{layer}")
        h = g.node("add", [mm, b_id], "y" if last else f"fc{layer}.out", np.float32,
                   (2, fan_out), name=f"fc{layer}.bias")
        h_np = h_np @ w + b
        if not last:
            h = g.node("relu", [h], f"act{layer}", np.float32, (2, fan_out), name=f"act{layer}")
            h_np = np.maximum(h_np, 0)
    g.outputs.append(h)
    g.write(out_dir, {"x": x}, {"y": h_np.astype(np.float32)})


def make_cnn(out_dir):
    """A small image classifier: conv, batch_norm, relu, max_pool, conv, relu,
    global_avg_pool, reshape and gemm; [1, 3, 16, 16] -> logits [1, 10]."""
    rng = np.random.default_rng(2)
    g = GraphBuilder("cnn")
    f32 = np.float32

    def param(shape, std):
        return (std * rng.standard_normal(shape)).astype(f32)

    x = rng.standard_normal((1, 3, 16, 16)).astype(f32)
    w1, b1 = param((8, 3, 3, 3), 1 / np.sqrt(27)), param(8, 0.1)
    bn_scale = (1.0 + 0.1 * rng.standard_normal(8)).astype(f32)
    bn_bias, bn_mean = param(8, 0.1), param(8, 0.2)
    bn_var = rng.uniform(0.5, 1.5, 8).astype(f32)
    w2 = param((16, 8, 3, 3), 1 / np.sqrt(72))
    fc_w, fc_b = param((10, 16), 1 / np.sqrt(16)), param(10, 0.1)

    xi = g.input("x", x)
    ids = {name: g.weight(name, array) for name, array in [
        ("conv1.weight", w1), ("conv1.bias", b1), ("bn1.scale", bn_scale),
        ("bn1.bias", bn_bias), ("bn1.mean", bn_mean), ("bn1.var", bn_var),
        ("conv2.weight", w2), ("fc.weight", fc_w), ("fc.bias", fc_b)]}
    h = g.node("conv", [xi, ids["conv1.weight"], ids["conv1.bias"]], "conv1.out", f32,
               (1, 8, 16, 16), {"pads": [1, 1, 1, 1]}, name="conv1")
    h = g.node("batch_norm", [h] + [ids["bn1." + k] for k in ("scale", "bias", "mean", "var")],
               "bn1.out", f32, (1, 8, 16, 16), {"epsilon": 1e-5}, name="bn1")
    h = g.node("relu", [h], "relu1.out", f32, (1, 8, 16, 16), name="relu1")
    h = g.node("max_pool", [h], "pool1.out", f32, (1, 8, 8, 8),
               {"kernel_shape": [2, 2], "strides": [2, 2]}, name="pool1")
    h = g.node("conv", [h, ids["conv2.weight"]], "conv2.out", f32, (1, 16, 8, 8),
               {"strides": [1, 1], "pads": [1, 1, 1, 1], "group": 1}, name="conv2")
    h = g.node("relu", [h], "relu2.out", f32, (1, 16, 8, 8), name="relu2")
    h = g.node("global_avg_pool", [h], "gap.out", f32, (1, 16, 1, 1), name="gap")
    h = g.node("reshape", [h], "flatten.out", f32, (1, 16), {"shape": [1, -1]}, name="flatten")
    h = g.node("gemm", [h, ids["fc.weight"], ids["fc.bias"]], "logits", f32, (1, 10),
               {"trans_b": 1}, name="fc")
    g.outputs.append(h)

    r = ref.conv2d(x, w1, b1, pads=(1, 1, 1, 1))
    r = ref.relu(ref.batch_norm(r, bn_scale, bn_bias, bn_mean, bn_var, 1e-5))
    r = ref.max_pool2d(r, (2, 2), (2, 2))
    r = ref.relu(ref.conv2d(r, w2, None, strides=(1, 1), pads=(1, 1, 1, 1)))
    r = ref.global_avg_pool(r).reshape(1, -1)
    r = ref.gemm(r, fc_w, fc_b, trans_b=1)
    g.write(out_dir, {"x": x}, {"logits": r.astype(f32)})


def make_transformer(out_dir):
    """One pre-norm encoder block over 8 token ids: embedding gather + positions,
    layer_norm, 2-head attention + residual, layer_norm, gelu MLP + residual;
    tokens i64 [1, 8] -> hidden [1, 8, 16]."""
    rng = np.random.default_rng(3)
    g = GraphBuilder("transformer")
    f32 = np.float32
    seq, dim, heads, head_dim, vocab, hidden = 8, 16, 2, 8, 32, 32

    def param(shape, std):
        return (std * rng.standard_normal(shape)).astype(f32)

    def ln_params():
        return (1.0 + 0.1 * rng.standard_normal(dim)).astype(f32), param(dim, 0.1)

    tokens = rng.integers(0, vocab, (1, seq), dtype=np.int64)
    table, pos = param((vocab, dim), 1.0), param((seq, dim), 0.5)
    ln1_scale, ln1_bias = ln_params()
    proj = {n: (param((dim, dim), 1 / np.sqrt(dim)), param(dim, 0.1)) for n in "qkvo"}
    ln2_scale, ln2_bias = ln_params()
    w1, b1 = param((dim, hidden), 1 / np.sqrt(dim)), param(hidden, 0.1)
    w2, b2 = param((hidden, dim), 1 / np.sqrt(hidden)), param(dim, 0.1)

    ti = g.input("tokens", tokens)
    table_id, pos_id = g.weight("embed.table", table), g.weight("embed.pos", pos)
    ln1 = (g.weight("ln1.scale", ln1_scale), g.weight("ln1.bias", ln1_bias))
    proj_ids = {n: (g.weight(f"attn.{n}.weight", w), g.weight(f"attn.{n}.bias", b))
                for n, (w, b) in proj.items()}
    ln2 = (g.weight("ln2.scale", ln2_scale), g.weight("ln2.bias", ln2_bias))
    mlp_ids = [(g.weight("mlp.fc1.weight", w1), g.weight("mlp.fc1.bias", b1)),
               (g.weight("mlp.fc2.weight", w2), g.weight("mlp.fc2.bias", b2))]

    tok_shape, head_shape = (1, seq, dim), (1, heads, seq, head_dim)

    def linear(x, ids, name, width, out_name=None):
        mm = g.node("matmul", [x, ids[0]], name + ".mm", f32, (1, seq, width), name=name)
        return g.node("add", [mm, ids[1]], out_name or name + ".out", f32, (1, seq, width),
                      name=name + ".bias")

    e = g.node("gather", [table_id, ti], "embed.tok", f32, tok_shape, {"axis": 0}, name="embed")
    h = g.node("add", [e, pos_id], "embed.out", f32, tok_shape, name="embed.pos")
    n1 = g.node("layer_norm", [h, ln1[0], ln1[1]], "ln1.out", f32, tok_shape,
                {"axis": -1, "epsilon": 1e-5}, name="ln1")
    qkv = []
    for n in "qkv":
        t = linear(n1, proj_ids[n], f"attn.{n}", dim)
        t = g.node("reshape", [t], f"attn.{n}.split", f32, (1, seq, heads, head_dim),
                   {"shape": [1, seq, heads, head_dim]}, name=f"attn.{n}.split")
        qkv.append(g.node("transpose", [t], f"attn.{n}.heads", f32, head_shape,
                          {"perm": [0, 2, 1, 3]}, name=f"attn.{n}.heads"))
    a = g.node("attention", qkv, "attn.out", f32, head_shape, name="attn")
    a = g.node("transpose", [a], "attn.merge.t", f32, (1, seq, heads, head_dim),
               {"perm": [0, 2, 1, 3]}, name="attn.merge.t")
    a = g.node("reshape", [a], "attn.merge", f32, tok_shape, {"shape": [1, seq, dim]},
               name="attn.merge")
    a = linear(a, proj_ids["o"], "attn.o", dim)
    h2 = g.node("add", [h, a], "resid1", f32, tok_shape, name="resid1")
    n2 = g.node("layer_norm", [h2, ln2[0], ln2[1]], "ln2.out", f32, tok_shape,
                {"axis": -1, "epsilon": 1e-5}, name="ln2")
    m = linear(n2, mlp_ids[0], "mlp.fc1", hidden)
    m = g.node("gelu", [m], "mlp.gelu", f32, (1, seq, hidden), {"approximate": "none"},
               name="mlp.gelu")
    m = linear(m, mlp_ids[1], "mlp.fc2", dim)
    out = g.node("add", [h2, m], "hidden", f32, tok_shape, name="resid2")
    g.outputs.append(out)

    def heads_of(t):
        return t.reshape(1, seq, heads, head_dim).transpose(0, 2, 1, 3)

    rh = ref.f64(table)[tokens] + ref.f64(pos)
    r1 = ref.layer_norm(rh, ln1_scale, ln1_bias, -1, 1e-5)
    rq, rk, rv = (heads_of(r1 @ ref.f64(proj[n][0]) + ref.f64(proj[n][1])) for n in "qkv")
    ra = ref.attention(rq, rk, rv).transpose(0, 2, 1, 3).reshape(1, seq, dim)
    rh2 = rh + ra @ ref.f64(proj["o"][0]) + ref.f64(proj["o"][1])
    r2 = ref.layer_norm(rh2, ln2_scale, ln2_bias, -1, 1e-5)
    rm = ref.gelu(r2 @ ref.f64(w1) + ref.f64(b1)) @ ref.f64(w2) + ref.f64(b2)
    g.write(out_dir, {"tokens": tokens}, {"hidden": (rh2 + rm).astype(f32)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "examples"))
    args = parser.parse_args()
    make_mlp(args.out)
    make_cnn(args.out)
    make_transformer(args.out)


if __name__ == "__main__":
    main()
