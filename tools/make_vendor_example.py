#!/usr/bin/env python3
"""Writes the vendor plugin example's model with NumPy only.

sdk/examples/vendor_plugin/model/ gets model.json (rml-graph v1, constants inline, no
safetensors file), inputs/x.npy and expected/{y,z}.npy computed here by NumPy,
independently of Switchyard and of the vendor plugin.

The model mixes ops the example plugin runs (add, sub, mul, relu, sigmoid, tanh on
f32, marked with "backend": "vendor" hints) with ops it declines (matmul, softmax), so
that a plan puts nodes on both vendor:0 and cpu:0:

    x [4, 8] -> add b [8] -> tanh -> matmul w [8, 6] -> mul g [1, 6] -> sub c [4, 1]
      -> relu -> softmax -> y [4, 6]
      `-> sigmoid (of the sub) -> z [4, 6]

Usage: python3 tools/make_vendor_example.py [--out sdk/examples/vendor_plugin/model]
Deterministic: rerunning rewrites identical files.
"""
import argparse
import json
import os

import numpy as np


def f64(a):
    return np.asarray(a, dtype=np.float64)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(root, "sdk", "examples", "vendor_plugin",
                                                      "model"))
    args = parser.parse_args()

    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    b = (0.5 * rng.standard_normal(8)).astype(np.float32)
    w = (rng.standard_normal((8, 6)) / np.sqrt(8)).astype(np.float32)
    g = rng.uniform(0.5, 2.0, (1, 6)).astype(np.float32)
    c = (0.25 * rng.standard_normal((4, 1))).astype(np.float32)

    # The reference, in float64 from the float32 data, rounded once at the end.
    t = np.tanh(f64(x) + f64(b))
    d = (t @ f64(w)) * f64(g) - f64(c)
    r = np.maximum(d, 0.0)
    e = np.exp(r - r.max(axis=-1, keepdims=True))
    y = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
    z = (1.0 / (1.0 + np.exp(-d))).astype(np.float32)

    values = [
        ("x", [4, 8]), ("b", [8]), ("w", [8, 6]), ("g", [1, 6]), ("c", [4, 1]),
        ("biased", [4, 8]), ("t", [4, 8]), ("proj", [4, 6]), ("scaled", [4, 6]),
        ("d", [4, 6]), ("r", [4, 6]), ("y", [4, 6]), ("z", [4, 6]),
    ]
    ids = {name: i for i, (name, _) in enumerate(values)}

    def data(array):
        return [float(v) for v in array.reshape(-1)]

    def node(op, inputs, output, name, vendor):
        n = {"op": op, "inputs": [ids[i] for i in inputs], "outputs": [ids[output]],
             "name": name}
        if vendor:
            n["backend"] = "vendor"
        return n

    graph = {
        "format": "rml-graph",
        "version": 1,
        "producer": "tools/make_vendor_example.py",
        "values": [{"name": n, "dtype": "f32", "shape": s} for n, s in values],
        "inputs": [ids["x"]],
        "outputs": [ids["y"], ids["z"]],
        "constants": [{"value": ids[n], "data": data(a)}
                      for n, a in (("b", b), ("w", w), ("g", g), ("c", c))],
        "nodes": [
            node("add", ["x", "b"], "biased", "bias", True),            # [4, 8] + [8]
            node("tanh", ["biased"], "t", "act0", True),
            node("matmul", ["t", "w"], "proj", "proj", False),          # the CPU plugin's
            node("mul", ["proj", "g"], "scaled", "scale", True),        # [4, 6] * [1, 6]
            node("sub", ["scaled", "c"], "d", "shift", True),           # [4, 6] - [4, 1]
            node("relu", ["d"], "r", "act1", True),
            node("softmax", ["r"], "y", "probs", False),                # the CPU plugin's
            node("sigmoid", ["d"], "z", "gate", True),
        ],
    }

    os.makedirs(os.path.join(args.out, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "expected"), exist_ok=True)
    with open(os.path.join(args.out, "model.json"), "w") as f:
        f.write("{\n")
        keys = list(graph)
        for i, key in enumerate(keys):
            item = graph[key]
            sep = "," if i + 1 < len(keys) else ""
            if isinstance(item, list) and item and isinstance(item[0], dict):
                rows = ",\n    ".join(json.dumps(v) for v in item)
                f.write(f'  "{key}": [\n    {rows}\n  ]{sep}\n')
            else:
                f.write(f'  "{key}": {json.dumps(item)}{sep}\n')
        f.write("}\n")
    np.save(os.path.join(args.out, "inputs", "x.npy"), x)
    np.save(os.path.join(args.out, "expected", "y.npy"), y)
    np.save(os.path.join(args.out, "expected", "z.npy"), z)


if __name__ == "__main__":
    main()
