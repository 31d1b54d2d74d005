#!/usr/bin/env python3
"""Block-quantized matmuls (com.microsoft MatMulNBits) on Switchyard's `cpu` device
against ONNX Runtime's CPU provider, same ONNX file, interleaved in one run.

Each layer is a one-node MatMul model of an LLM's size with random f32 weights, quantized
by ONNX Runtime's own tool (onnxruntime.quantization's MatMulNBitsQuantizer: round to
nearest, asymmetric unless --symmetric, so packed zero points are in the file), written
to WORK/NAME/model.onnx. For each layer:

1. the output of `switchyard run --device cpu` against ONNX Runtime's and against a
   float64 NumPy product with the weights dequantized from the file's initializers
   (max |diff| / max |value|);
2. --rounds rounds of ONNX Runtime then `switchyard bench --threads T --json`, 1 thread by
   default (intra_op_num_threads=T, ORT_ENABLE_ALL): the median CPU time of one run
   (process CPU time around session.run for ONNX Runtime; Switchyard's median_cpu_us),
   and Switchyard's p99 wall time;
3. a Markdown table on stdout.

Setup: a venv with numpy, onnx, onnxruntime and onnx_ir (which ONNX Runtime's quantizer
imports), e.g. python3 -m venv /work/venv-peer && /work/venv-peer/bin/pip install
"numpy<2" onnx onnxruntime onnx_ir.

usage: matmul_nbits_bench.py [--switchyard BIN] [--work DIR] [--rounds 3] [--threads 1]
                             [--accuracy-level 0-4]
Exit status: 0 when every layer ran and matched, 1 otherwise, 77 without the packages.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (rows of a, K, N, bits, block_size). Llama-family widths (TinyLlama 2048/5632,
# Llama-2-7B's 4096) at one token (decoding) and a 64-token prompt.
LAYERS = {
    "decode_2048x2048_q4b32": (1, 2048, 2048, 4, 32),
    "decode_2048x5632_q4b32": (1, 2048, 5632, 4, 32),
    "decode_5632x2048_q4b128": (1, 5632, 2048, 4, 128),
    "decode_4096x4096_q4b128": (1, 4096, 4096, 4, 128),
    "decode_2048x2048_q8b32": (1, 2048, 2048, 8, 32),
    "prompt64_2048x2048_q4b32": (64, 2048, 2048, 4, 32),
}


def make_layer(path, rows, k, n, bits, block, symmetric, accuracy_level):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    rng = np.random.default_rng(k * 7 + n)
    w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "w"], ["y"])], "layer",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [rows, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [rows, n])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    quant = MatMulNBitsQuantizer(model, bits=bits, block_size=block, is_symmetric=symmetric,
                                 accuracy_level=accuracy_level)
    quant.process()
    quant.model.save_model_to_file(path, False)
    return rng.standard_normal((rows, k)).astype(np.float32)


def dequantized_reference(path, a):
    """a @ W in float64, W dequantized from the MatMulNBits node's initializers."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    model = onnx.load(path)
    node = next(x for x in model.graph.node if x.op_type == "MatMulNBits")
    attrs = {x.name: x.i for x in node.attribute}
    init = {x.name: numpy_helper.to_array(x) for x in model.graph.initializer}
    k, n, bits, block = attrs["K"], attrs["N"], attrs.get("bits", 4), attrs["block_size"]
    blocks = -(-k // block)
    packed = init[node.input[1]].reshape(n, blocks, -1)
    if bits == 4:
        codes = np.stack([packed & 15, packed >> 4], axis=-1).reshape(n, blocks, block)
    else:
        codes = packed
    scales = init[node.input[2]].reshape(n, blocks).astype(np.float64)
    if len(node.input) > 3 and node.input[3]:
        zp = init[node.input[3]].reshape(n, -1)
        if bits == 4:
            zp = np.stack([zp & 15, zp >> 4], axis=-1).reshape(n, -1)
        zp = zp[:, :blocks].astype(np.float64)
    else:
        zp = np.full((n, blocks), 1 << (bits - 1), dtype=np.float64)
    w = (codes.astype(np.float64) - zp[:, :, None]) * scales[:, :, None]
    w = w.reshape(n, blocks * block)[:, :k]
    return a.astype(np.float64) @ w.T


def run(command, env=None):
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env)
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (command[1], proc.returncode, proc.stdout.strip()))
    return proc.stdout


def time_ort(session, feeds, seconds):
    session.run(None, feeds)
    t0 = time.perf_counter()
    session.run(None, feeds)
    repeat = max(10, int(seconds / max(time.perf_counter() - t0, 1e-6)))
    cpus = []
    for _ in range(repeat):
        c0 = time.process_time_ns()
        session.run(None, feeds)
        cpus.append((time.process_time_ns() - c0) / 1e3)
    return statistics.median(cpus)


def time_sy(args, stem, input_args, seconds, repeat=None):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.threads))
    out = run([args.switchyard, "bench", stem, "--device", "cpu", "--threads", str(args.threads),
               "--repeat", str(repeat or 20), "--warmup", "3", "--json"] + input_args, env=env)
    r = json.loads([x for x in out.splitlines() if x.startswith("{")][-1])
    if repeat is None:  # a probe: size the real measurement to about `seconds`
        return time_sy(args, stem, input_args, seconds,
                       max(10, int(seconds * 1e6 / max(r["median_us"], 1.0))))
    return r["median_cpu_us"], r.get("p99_us", r["median_us"])


def read_bandwidth():
    """GB/s of one thread summing a 256 MiB f32 array (NumPy's vectorised pairwise sum),
    best of 5: the memory rate a decoding step's weight reads are measured against."""
    import numpy as np
    big = np.ones(64 << 20, dtype=np.float32)
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        big.sum()
        best = max(best, big.nbytes / (time.perf_counter() - start) / 1e9)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--switchyard", default=os.path.join(ROOT, "build/release/bin/switchyard"))
    parser.add_argument("--work", default="/tmp/sy-nbits")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--symmetric", action="store_true")
    parser.add_argument("--only", nargs="*", choices=sorted(LAYERS))
    parser.add_argument("--accuracy-level", type=int, default=0, choices=range(5),
                        help="MatMulNBits' accuracy_level (4: both runtimes quantize a to "
                             "int8 per block on the decoding layers)")
    args = parser.parse_args()
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:
        print("matmul_nbits_bench: %s (see the setup in --help)" % e)
        return 77
    ok = True
    rows = []
    for name, (m, k, n, bits, block) in LAYERS.items():
        if args.only and name not in args.only:
            continue
        folder = os.path.join(args.work, name)
        os.makedirs(os.path.join(folder, "sy"), exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        a = make_layer(path, m, k, n, bits, block, args.symmetric, args.accuracy_level)
        np.save(os.path.join(folder, "a.npy"), a)
        input_args = ["--input", "a=" + os.path.join(folder, "a.npy")]
        so = ort.SessionOptions()
        so.intra_op_num_threads = args.threads
        so.inter_op_num_threads = 1
        session = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        want = session.run(None, {"a": a})[0]
        exact = dequantized_reference(path, a)
        stem = os.path.join(folder, "sy", "model")
        run([args.switchyard, "import", path, "-o", stem])
        out_dir = os.path.join(folder, "out")
        run([args.switchyard, "run", stem, "--device", "cpu", "--out", out_dir] + input_args)
        got = np.load(os.path.join(out_dir, "y.npy"))
        scale = float(np.abs(exact).max())
        d_ort = float(np.abs(got - want).max()) / scale
        d_exact = float(np.abs(got - exact).max()) / scale
        d_ort_exact = float(np.abs(want - exact).max()) / scale
        # At level 4 a is rounded to 8 bits per block (docs/ops.md: each element within
        # max|a| / 254 of its block); otherwise f32 rounding only.
        match = d_exact < (2e-2 if args.accuracy_level == 4 else 1e-4)
        ok = ok and match
        print("%s: vs ORT %.1e, vs float64 %.1e (ORT vs float64 %.1e)%s" % (
            name, d_ort, d_exact, d_ort_exact, "" if match else ": MISMATCH"), flush=True)
        ort_cpu, sy_cpu, sy_p99 = [], [], []
        for r in range(args.rounds):
            ort_cpu.append(time_ort(session, {"a": a}, args.seconds))
            c, p99 = time_sy(args, stem, input_args, args.seconds)
            sy_cpu.append(c)
            sy_p99.append(p99)
            print("  round %d: ORT %.3f ms CPU, Switchyard %.3f ms CPU" % (
                r + 1, ort_cpu[-1] / 1e3, sy_cpu[-1] / 1e3), flush=True)
        o, s = statistics.median(ort_cpu), statistics.median(sy_cpu)
        # What one run reads of the weights: the codes, f32 scales and u8 zero points.
        blocks = (k + block - 1) // block
        weight_bytes = n * blocks * (block * bits // 8 + 4 + (0 if args.symmetric else 1))
        rows.append("| %s | %d x %d x %d, %d-bit, block %d | %.3f | %.3f | %.2f | %.3f | %.1f | %.1e | %.1e |" % (
            name, m, k, n, bits, block, o / 1e3, s / 1e3, s / o, statistics.median(sy_p99) / 1e3,
            weight_bytes / (s * 1e3), d_exact, d_ort))
    print("\nOne thread's read bandwidth here (NumPy sum over 256 MiB): %.1f GB/s" %
          read_bandwidth())
    print("\n| layer | rows x K x N | ONNX Runtime ms CPU | Switchyard ms CPU | ratio | "
          "Switchyard p99 wall ms | Switchyard weight GB/s | max rel diff vs float64 | vs ONNX Runtime |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
