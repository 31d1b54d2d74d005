"""Side by side, 1 thread, CPU time: ops this round mapped or added, on switchyard's cpu
device against ONNX Runtime, same ONNX file, seeded random inputs: STFT of one second of
16 kHz audio (400-sample Hann frames, hop 160: Whisper's front end), a batch of one-sided
DFTs (matmul by a twiddle matrix, docs/onnx-import.md), Resize with antialias (a
torchvision-style 512 -> 224 downscale) and the upsampling of segmentation heads and
feature pyramids (linear, align_corners, nearest), and RoiAlign (a detector's box head). Figures in
docs/performance.md.

usage: spectral_peer_bench.py SWITCHYARD [WORK_DIR]   (needs numpy, onnx, onnxruntime)"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper as h, numpy_helper, TensorProto as T

F = T.FLOAT
SY = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else "/tmp/spectral_peer_bench"
rng = np.random.default_rng(0)


def vi(n, s, t=F):
    return h.make_tensor_value_info(n, t, s)


def const(name, value):
    return h.make_node("Constant", [], [name], value=numpy_helper.from_array(value, name))


def model(nodes, ins, outs, opset):
    g = h.make_graph(nodes, "m", [vi(k, s, t) for k, (s, t) in ins.items()], [vi(o, None) for o in outs])
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)])


def stft():
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)).astype(np.float32)
    nodes = [const("step", np.array(160, np.int64)), const("win", window),
             const("len", np.array(400, np.int64)),
             h.make_node("STFT", ["x", "step", "win", "len"], ["y"], onesided=1)]
    return model(nodes, {"x": ((1, 16000, 1), F)}, ["y"], 17)


def dft():
    nodes = [const("n", np.array(512, np.int64)), const("axis", np.array(1, np.int64)),
             h.make_node("DFT", ["x", "n", "axis"], ["y"], onesided=1)]
    return model(nodes, {"x": ((64, 512, 1), F)}, ["y"], 20)


def resize():
    nodes = [const("sizes", np.array([1, 3, 224, 224], np.int64)),
             h.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear", antialias=1)]
    return model(nodes, {"x": ((1, 3, 512, 512), F)}, ["y"], 19)


def upsample(shape, size, **attrs):
    nodes = [const("sizes", np.array(list(shape[:2]) + [size, size], np.int64)),
             h.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attrs)]
    return model(nodes, {"x": (shape, F)}, ["y"], 19)


def roi_align():
    boxes = np.sort(rng.uniform(0, 60, (100, 2, 2)), axis=1).transpose(0, 2, 1).reshape(100, 4)
    nodes = [const("rois", boxes[:, [0, 2, 1, 3]].astype(np.float32)),
             const("bi", np.zeros(100, np.int64)),
             h.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], output_height=7, output_width=7,
                         sampling_ratio=2, spatial_scale=1.0)]
    return model(nodes, {"x": ((1, 256, 64, 64), F)}, ["y"], 16)


print("| model | switchyard cpu ms (CPU time) | p90 ms (wall) | ONNX Runtime ms (CPU time) | p90 ms | ratio |")
print("|---|---|---|---|---|---|")
cases = [("STFT 16000 samples, n_fft 400, hop 160", stft()), ("DFT 64 x 512 onesided", dft()),
         ("Resize 3x512x512 -> 224 linear antialias", resize()),
         ("Resize 21x65x65 -> 520 linear pytorch_half_pixel (DeepLabV3's head)",
          upsample((1, 21, 65, 65), 520, mode="linear",
                   coordinate_transformation_mode="pytorch_half_pixel")),
         ("Resize 256x33x33 -> 65 linear align_corners",
          upsample((1, 256, 33, 33), 65, mode="linear", coordinate_transformation_mode="align_corners")),
         ("Resize 256x56x56 -> 112 nearest asymmetric floor (an FPN's top-down path)",
          upsample((1, 256, 56, 56), 112, mode="nearest", coordinate_transformation_mode="asymmetric",
                   nearest_mode="floor")),
         ("RoiAlign 100 rois 7x7 over 256x64x64", roi_align())]
for name, m in cases:
    d = os.path.join(WORK, "".join(c if c.isalnum() else "_" for c in name))
    os.makedirs(d + "/inputs", exist_ok=True)
    feeds = {}
    for inp in m.graph.input:
        shape = [dim.dim_value for dim in inp.type.tensor_type.shape.dim]
        feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
        np.save(f"{d}/inputs/{inp.name}.npy", feeds[inp.name])
    onnx.save(m, d + "/model.onnx")
    subprocess.run([SY, "import", d + "/model.onnx", "-o", d + "/model"], check=True, capture_output=True)
    r = subprocess.run([SY, "bench", d + "/model", "--device", "cpu", "--threads", "1", "--warmup", "3",
                        "--repeat", "30", "--json"], capture_output=True, text=True, check=True)
    sy = json.loads(r.stdout)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(d + "/model.onnx", so, providers=["CPUExecutionProvider"])
    for _ in range(3):
        sess.run(None, feeds)
    ts = []
    for _ in range(30):
        c0 = time.process_time()
        sess.run(None, feeds)
        ts.append(time.process_time() - c0)
    ts.sort()
    print(f"| {name} | {sy['median_cpu_us'] / 1e3:.3f} | {sy['p90_us'] / 1e3:.3f} | "
          f"{1e3 * ts[15]:.3f} | {1e3 * ts[27]:.3f} | {sy['median_cpu_us'] / 1e3 / (1e3 * ts[15]):.2f} |")
