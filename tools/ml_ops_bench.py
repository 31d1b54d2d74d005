#!/usr/bin/env python3
"""Side by side, 1 thread, the same ONNX files: this session's new importer paths against
ONNX Runtime's CPU provider. Each model is built here with onnx.helper (random, seeded):
- a TreeEnsembleRegressor of 100 trees of depth 6 over 10000 rows of 16 features
  (tree_ensemble's reference kernel);
- RandomNormalLike over [1000, 1000] (random_normal's reference kernel) and Bernoulli;
- LabelEncoder int64 -> float over 100000 elements with a table of 64 keys;
- a 1024 x 1024 Gemm (trans_b) as f32 and after `switchyard quantize` (int4, blocks of 32),
  against ONNX Runtime on the f32 Gemm.
Our figures are `switchyard bench --json` CPU time per run (median) and p90 latency;
ONNX Runtime's are time.process_time over the same number of runs, with its p90.

usage: ml_ops_bench.py SWITCHYARD [--repeat N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(3)
F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), ml=False):
    graph = helper.make_graph(nodes, "bench", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", 17)] + ([helper.make_opsetid("ai.onnx.ml", 3)] if ml else [])
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def tree_regressor(trees=100, depth=6, features=16):
    attrs = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values",
                             "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids",
                             "target_treeids", "target_nodeids", "target_ids", "target_weights")}
    for t in range(trees):
        interior = 2 ** depth - 1
        for n in range(2 ** (depth + 1) - 1):
            attrs["nodes_treeids"].append(t)
            attrs["nodes_nodeids"].append(n)
            if n < interior:
                attrs["nodes_featureids"].append(int(RNG.integers(features)))
                attrs["nodes_values"].append(float(RNG.standard_normal()))
                attrs["nodes_modes"].append("BRANCH_LEQ")
                attrs["nodes_truenodeids"].append(2 * n + 1)
                attrs["nodes_falsenodeids"].append(2 * n + 2)
            else:
                attrs["nodes_featureids"].append(0)
                attrs["nodes_values"].append(0.0)
                attrs["nodes_modes"].append("LEAF")
                attrs["nodes_truenodeids"].append(0)
                attrs["nodes_falsenodeids"].append(0)
                attrs["target_treeids"].append(t)
                attrs["target_nodeids"].append(n)
                attrs["target_ids"].append(0)
                attrs["target_weights"].append(float(RNG.standard_normal()))
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], domain="ai.onnx.ml",
                            n_targets=1, aggregate_function="SUM", **attrs)
    x = RNG.standard_normal((10000, features)).astype(np.float32)
    return (model([node], [helper.make_tensor_value_info("x", F, [10000, features])],
                  [helper.make_tensor_value_info("y", F, [10000, 1])], ml=True), {"x": x})


def random_normal():
    node = helper.make_node("RandomNormalLike", ["x"], ["y"], seed=1.0)
    x = np.zeros((1000, 1000), np.float32)
    return (model([node], [helper.make_tensor_value_info("x", F, [1000, 1000])],
                  [helper.make_tensor_value_info("y", F, [1000, 1000])]), {"x": x})


def bernoulli():
    node = helper.make_node("Bernoulli", ["p"], ["y"], seed=2.0)
    p = RNG.random((1000, 1000)).astype(np.float32)
    return (model([node], [helper.make_tensor_value_info("p", F, [1000, 1000])],
                  [helper.make_tensor_value_info("y", F, [1000, 1000])]), {"p": p})


def label_encoder():
    keys = list(range(0, 128, 2))
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_int64s=keys,
                            values_floats=[float(k) / 2 for k in keys], default_float=-1.0)
    x = RNG.integers(0, 128, 100000).astype(np.int64)
    return (model([node], [helper.make_tensor_value_info("x", TensorProto.INT64, [100000])],
                  [helper.make_tensor_value_info("y", F, [100000])], ml=True), {"x": x})


def gemm():
    w = (RNG.standard_normal((1024, 1024)) * 0.05).astype(np.float32)
    b = RNG.standard_normal(1024).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    x = RNG.standard_normal((1, 1024)).astype(np.float32)
    return (model([node], [helper.make_tensor_value_info("x", F, [1, 1024])],
                  [helper.make_tensor_value_info("y", F, [1, 1024])],
                  [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]), {"x": x})


def ort_times(path, feeds, repeat):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    s = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    for _ in range(3):
        s.run(None, feeds)
    cpu, wall = [], []
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        s.run(None, feeds)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return float(np.median(cpu)) * 1e3, float(np.percentile(wall, 90)) * 1e3


def ours(sy, stem, inputs, repeat):
    r = subprocess.run([sy, "bench", stem, "--device", "cpu", "--threads", "1", "--repeat",
                        str(repeat), "--json", *inputs], capture_output=True, text=True, check=True)
    j = json.loads(r.stdout)
    return j["median_cpu_us"] / 1e3, j["p90_us"] / 1e3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("switchyard")
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    sy = os.path.abspath(a.switchyard)
    print("| model | switchyard cpu ms (p90) | ONNX Runtime cpu ms (p90) | ratio |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for name, make in [("TreeEnsembleRegressor 100 trees d6, 10000x16", tree_regressor),
                           ("RandomNormalLike [1000, 1000]", random_normal),
                           ("Bernoulli [1000, 1000]", bernoulli),
                           ("LabelEncoder 64 keys, 100000 i64", label_encoder),
                           ("Gemm 1x1024x1024 f32", gemm)]:
            m, feeds = make()
            path = os.path.join(work, name.split()[0] + ".onnx")
            onnx.save(m, path)
            stem = os.path.join(work, name.split()[0])
            subprocess.run([sy, "import", path, "-o", stem], check=True, capture_output=True)
            inputs = []
            for k, v in feeds.items():
                np.save(os.path.join(work, k + ".npy"), v)
                inputs += ["--input", f"{k}={os.path.join(work, k + '.npy')}"]
            rows = [(name, stem)]
            if make is gemm:
                subprocess.run([sy, "quantize", stem, "-o", stem + "_q4"], check=True,
                               capture_output=True)
                rows.append(("Gemm 1x1024x1024 after `switchyard quantize` int4 b32", stem + "_q4"))
            o_cpu, o_p90 = ort_times(path, feeds, a.repeat)
            for label, s in rows:
                s_cpu, s_p90 = ours(sy, s, inputs, a.repeat)
                print(f"| {label} | {s_cpu:.3f} ({s_p90:.3f}) | {o_cpu:.3f} ({o_p90:.3f}) | "
                      f"{s_cpu / o_cpu:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
