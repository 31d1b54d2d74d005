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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "examples"))
    args = parser.parse_args()
    make_mlp(args.out)


if __name__ == "__main__":
    main()
