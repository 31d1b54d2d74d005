#!/usr/bin/env python3
"""ONNX Attention (opset 23) and RotaryEmbedding (opset 23) with run-time sizes, as LLM
exports write them: 3-D inputs with heads in attributes, grouped-query heads, a KV cache
with bottom-right causal masking, an additive mask over past + new keys, softcap and the
qk_matmul_output output (the decomposed form), and rotary position ids; and FlexAttention
(ai.onnx.preview) with modifier graphs that read the scores' run-time shape. Each model is
imported once by `switchyard import` (its sizes left symbolic) and run at two sets of
sizes on cpu, every output against ONNX's reference evaluator (onnx.reference).

usage: attention_test.py SWITCHYARD   (skips, exit 77, without numpy and onnx)
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator
except ImportError as e:
    print(f"attention_test: skipped: {e}")
    sys.exit(77)

F = TensorProto.FLOAT
RNG = np.random.default_rng(11)


def info(name, dims):
    return helper.make_tensor_value_info(name, F, dims)


def attention_model(**attrs):
    qk = attrs.pop("qk_output", False)
    outs = ["y", "present_key", "present_value"] + (["qk"] if qk else [])
    node = helper.make_node("Attention", ["q", "k", "v", "mask", "past_key", "past_value"],
                            outs, is_causal=1, q_num_heads=4, kv_num_heads=2, **attrs)
    inputs = [info("q", ["b", "s", 32]), info("k", ["b", "s", 16]), info("v", ["b", "s", 16]),
              info("mask", ["b", 1, "s", "t"]), info("past_key", ["b", 2, "p", 8]),
              info("past_value", ["b", 2, "p", 8])]
    graph = helper.make_graph([node], "attention", inputs, [info(o, None) for o in outs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])


def attention_feeds(b, s, p):
    return {"q": (b, s, 32), "k": (b, s, 16), "v": (b, s, 16), "mask": (b, 1, s, p + s),
            "past_key": (b, 2, p, 8), "past_value": (b, 2, p, 8)}


def rotary_model():
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"],
                            num_heads=2, rotary_embedding_dim=4, interleaved=1)
    inputs = [info("x", ["b", "s", 12]), info("cos", [16, 2]), info("sin", [16, 2]),
              helper.make_tensor_value_info("pos", TensorProto.INT64, ["b", "s"])]
    graph = helper.make_graph([node], "rotary", inputs, [info("y", None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])


def rotary_feeds(b, s, _):
    return {"x": (b, s, 12), "cos": (16, 2), "sin": (16, 2), "pos": ("ids", b, s)}


def flex_model():
    """FlexAttention (ai.onnx.preview) with grouped-query heads, a causal score_mod built
    from ranges over the scores' run-time shape, and a prob_mod with a constant of its own."""
    scores_in = info("scores", ["B", "H", "L", "S"])
    nodes = [
        helper.make_node("Shape", ["scores"], ["shape"]),
        helper.make_node("Gather", ["shape", "two"], ["l"], axis=0),
        helper.make_node("Gather", ["shape", "three"], ["s"], axis=0),
        helper.make_node("Range", ["zero", "l", "one"], ["qr"]),
        helper.make_node("Reshape", ["qr", "col"], ["qi"]),
        helper.make_node("Range", ["zero", "s", "one"], ["kr"]),
        helper.make_node("Reshape", ["kr", "row"], ["ki"]),
        helper.make_node("GreaterOrEqual", ["qi", "ki"], ["keep"]),
        helper.make_node("Where", ["keep", "scores", "ninf"], ["masked"]),
    ]
    consts = [helper.make_tensor("zero", TensorProto.INT64, [], [0]),
              helper.make_tensor("one", TensorProto.INT64, [], [1]),
              helper.make_tensor("two", TensorProto.INT64, [], [2]),
              helper.make_tensor("three", TensorProto.INT64, [], [3]),
              helper.make_tensor("col", TensorProto.INT64, [2], [-1, 1]),
              helper.make_tensor("row", TensorProto.INT64, [2], [1, -1]),
              helper.make_tensor("ninf", F, [], [float("-inf")])]
    score_mod = helper.make_graph(nodes, "causal", [scores_in], [info("masked", None)], consts)
    prob_mod = helper.make_graph([helper.make_node("Mul", ["probs", "gain"], ["scaled"])],
                                 "gain", [info("probs", ["B", "H", "L", "S"])],
                                 [info("scaled", None)],
                                 [helper.make_tensor("gain", F, [], [1.5])])
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                            scale=0.3, score_mod=score_mod, prob_mod=prob_mod)
    inputs = [info("q", ["b", 4, "s", 8]), info("k", ["b", 2, "s", 8]),
              info("v", ["b", 2, "s", 6])]
    graph = helper.make_graph([node], "flex", inputs, [info("y", None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26),
                                                   helper.make_opsetid("ai.onnx.preview", 1)])


def flex_feeds(b, s, _):
    return {"q": (b, 4, s, 8), "k": (b, 2, s, 8), "v": (b, 2, s, 6)}


def make(shapes):
    feeds = {}
    for name, shape in shapes.items():
        if shape[0] == "ids":
            feeds[name] = RNG.integers(0, 16, shape[1:]).astype(np.int64)
        else:
            feeds[name] = RNG.standard_normal(shape).astype(np.float32)
    return feeds


CASES = [
    ("attention_causal_cache", attention_model(), attention_feeds),
    ("attention_softcap_qk", attention_model(softcap=2.0, qk_output=True), attention_feeds),
    ("attention_qk_after_softmax", attention_model(qk_output=True, qk_matmul_output_mode=3),
     attention_feeds),
    ("rotary_position_ids", rotary_model(), rotary_feeds),
    ("flex_attention_causal_gqa", flex_model(), flex_feeds),
]


def main() -> int:
    sy = os.path.abspath(sys.argv[1])
    passed = failed = 0
    with tempfile.TemporaryDirectory() as work:
        for name, model, feeds_of in CASES:
            folder = os.path.join(work, name)
            os.makedirs(folder)
            path = os.path.join(folder, "model.onnx")
            onnx.save(model, path)
            stem = os.path.join(folder, "sy")
            steps = [[sy, "import", path, "-o", stem]]
            reference = ReferenceEvaluator(model)
            for sizes in [(1, 3, 4), (2, 1, 6)]:
                run = os.path.join(folder, "x".join(map(str, sizes)))
                os.makedirs(os.path.join(run, "want"))
                feeds = make(feeds_of(*sizes))
                args = []
                for k, v in feeds.items():
                    np.save(os.path.join(run, k + ".npy"), v)
                    args += ["--input", f"{k}={os.path.join(run, k + '.npy')}"]
                for out, v in zip([o.name for o in model.graph.output],
                                  reference.run(None, feeds)):
                    np.save(os.path.join(run, "want", out + ".npy"), v)
                steps.append([sy, "run", stem + ".json", "--device", "cpu", *args, "--compare",
                              os.path.join(run, "want")])
            ok = True
            for step in steps:
                r = subprocess.run(step, capture_output=True, text=True, cwd=folder)
                if r.returncode != 0:
                    print(f"FAIL {name}: {' '.join(step[:2])}: {(r.stdout + r.stderr).strip()}")
                    ok = False
                    break
            passed += ok
            failed += not ok
            if ok:
                print(f"ok {name}: imported once, matches onnx.reference at two sets of sizes")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
