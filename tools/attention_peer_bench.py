"""Side by side, 1 thread, CPU time: ONNX Attention-23 (prefill, and decode with a KV cache;
16 query heads over 4 kv heads of 64) and LinearAttention-27 (gated delta, 8 heads of 64,
normalised keys) on switchyard's cpu device against ONNX Runtime, same ONNX file, seeded
random inputs. Figures in docs/performance.md.

usage: attention_peer_bench.py SWITCHYARD [WORK_DIR]   (needs numpy, onnx, onnxruntime)"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper as h, TensorProto as T
F = T.FLOAT
SY = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp/attention_peer_bench"
rng = np.random.default_rng(0)
def vi(n, s): return h.make_tensor_value_info(n, F, s)
def attention(s, p):
    n = h.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y", "ok", "ov"], is_causal=1, q_num_heads=16, kv_num_heads=4)
    ins = {"q": (1, s, 1024), "k": (1, s, 256), "v": (1, s, 256), "pk": (1, 4, p, 64), "pv": (1, 4, p, 64)}
    g = h.make_graph([n], "a", [vi(k, v) for k, v in ins.items()], [vi(o, None) for o in ("y", "ok", "ov")])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 23)]), ins
def linear(t):
    n = h.make_node("LinearAttention", ["q", "k", "v", "", "g", "b"], ["y", "s"], q_num_heads=8, kv_num_heads=8, update_rule="gated_delta")
    ins = {"q": (1, t, 512), "k": (1, t, 512), "v": (1, t, 512), "g": (1, t, 8), "b": (1, t, 8)}
    g = h.make_graph([n], "l", [vi(k, v) for k, v in ins.items()], [vi("y", None), vi("s", None)])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 27)]), ins
print("| model | switchyard cpu ms (CPU time) | p90 ms (wall) | ONNX Runtime ms (CPU time) | p90 ms | ratio |")
print("|---|---|---|---|---|---|")
cases = [("attention prefill S=256", *attention(256, 0)), ("attention decode S=1 past=512", *attention(1, 512)),
         ("linear_attention gated_delta T=128", *linear(128))]
for name, model, shapes in cases:
    d = os.path.join(WORK, name.replace(" ", "_").replace("=", ""))
    os.makedirs(d + "/inputs", exist_ok=True)
    feeds = {}
    for k, s in shapes.items():
        a = rng.standard_normal(s).astype(np.float32) * (0.1 if k in ("g",) else 1)
        if k == "g": a = -np.abs(a)
        if k == "b": a = 1 / (1 + np.exp(-a))
        if k == "k" and "linear" in name: a /= np.linalg.norm(a.reshape(1, s[1], 8, 64), axis=-1, keepdims=True).reshape(1, s[1], 8, 1).repeat(64, -1).reshape(s)
        feeds[k] = a.astype(np.float32); np.save(f"{d}/inputs/{k}.npy", feeds[k])
    onnx.save(model, d + "/model.onnx")
    subprocess.run([SY, "import", d + "/model.onnx", "-o", d + "/model"], check=True, capture_output=True)
    r = subprocess.run([SY, "bench", d + "/model", "--device", "cpu", "--threads", "1", "--warmup", "3", "--repeat", "30", "--json"], capture_output=True, text=True, check=True)
    sy = json.loads(r.stdout)
    so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1
    sess = ort.InferenceSession(d + "/model.onnx", so, providers=["CPUExecutionProvider"])
    for _ in range(3): sess.run(None, feeds)
    ts = []
    for _ in range(30):
        c0 = time.process_time(); sess.run(None, feeds); ts.append(time.process_time() - c0)
    ts.sort()
    print(f"| {name} | {sy['median_cpu_us'] / 1e3:.3f} | {sy['p90_us'] / 1e3:.3f} | "
          f"{1e3 * ts[15]:.3f} | {1e3 * ts[27]:.3f} | {sy['median_cpu_us'] / 1e3 / (1e3 * ts[15]):.2f} |")
