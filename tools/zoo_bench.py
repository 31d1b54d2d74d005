#!/usr/bin/env python3
"""The architecture zoo against ONNX Runtime and OpenVINO (issue 35): 26 models from
torchvision, timm and transformers with random weights (nothing downloads weights), each
exported once with torch.onnx.export (opset 17) and run from the same ONNX file by the
three runtimes, interleaved in rounds: CPU time at 1 thread, wall time at 2.

For each model: export (cached under WORK/NAME, as tools/real_model_bench.py does, whose
machinery this reuses), `switchyard import`, `switchyard run` on cpu compared with ONNX
Runtime's outputs, then the timing rounds. A model that fails to export, import, match
or run is marked in the table and the others go on. Prints a Markdown table with the
geometric means (--markdown FILE writes it, --json FILE the raw figures).

Setup: tools/real_model_bench.py's venv, plus

    /work/venv-bench/bin/pip install timm==0.9.16 openvino

usage: zoo_bench.py [--only NAME,...] [--rounds N] [--seconds S] [--work DIR] [--list]
Exit status: 0 when every model imported, ran and matched; 1 otherwise; 77 when a
Python package is missing.
"""
import argparse
import datetime
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_model_bench as rmb  # noqa: E402


def tv(arch, size=224, key=None, family="models"):
    """A torchvision model (torchvision.models or a sub-package: `family`), its BatchNorm
    statistics from one random batch of its input size, as rmb.cnn sets them."""
    def build():
        import numpy as np
        import torch
        import torchvision
        torch.manual_seed(7)
        package = torchvision.models
        for part in family.split(".")[1:]:
            package = getattr(package, part)
        kwargs = {"aux_logits": False, "init_weights": True} if arch == "inception_v3" else {}
        if family != "models":
            kwargs["weights_backbone"] = None  # else its backbone's weights would download
        module = getattr(package, arch)(weights=None, **kwargs)
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.reset_running_stats()
                m.momentum = None
        with torch.no_grad():
            module.train()(torch.randn(4, 3, size, size))
        module = module.eval()
        if key is not None:
            module = select_item(module, key)
        x = np.random.default_rng(7).standard_normal((1, 3, size, size)).astype(np.float32)
        return module, {"pixel_values": x}, ["logits"]
    return build


def select_item(inner, key):
    """A module returning item `key` of a model that returns a dict (DeepLabV3's 'out')."""
    import torch

    class Select(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x)[key]
    return Select()


def timm_model(arch):
    def build():
        import numpy as np
        import timm
        import torch
        torch.manual_seed(7)
        module = timm.create_model(arch, pretrained=False)
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.reset_running_stats()
                m.momentum = None
        with torch.no_grad():
            module.train()(torch.randn(8, 3, 224, 224))
        x = np.random.default_rng(7).standard_normal((1, 3, 224, 224)).astype(np.float32)
        return module.eval(), {"pixel_values": x}, ["logits"]
    return build


def hf(kind):
    """transformers models from small configs, random weights."""
    def build():
        import numpy as np
        import torch
        import transformers as t
        torch.manual_seed(7)
        rng = np.random.default_rng(7)
        if kind == "distilbert":
            m = rmb.eager(t.DistilBertModel, t.DistilBertConfig())
            return (rmb.select(m, "last_hidden_state"),
                    {"input_ids": rng.integers(0, 30000, (1, 128)).astype(np.int64)},
                    ["last_hidden_state"])
        if kind == "t5_encoder":
            m = t.T5EncoderModel(t.T5Config(d_model=512, d_ff=2048, num_layers=6, num_heads=8))
            return (rmb.select(m, "last_hidden_state"),
                    {"input_ids": rng.integers(0, 32000, (1, 128)).astype(np.int64)},
                    ["last_hidden_state"])
        if kind == "whisper_encoder":
            config = t.WhisperConfig(d_model=384, encoder_layers=4, encoder_attention_heads=6,
                                     decoder_layers=1, decoder_attention_heads=6,
                                     encoder_ffn_dim=1536, decoder_ffn_dim=1536)
            m = rmb.eager(t.WhisperModel, config).get_encoder()
            return (rmb.select(m, "last_hidden_state"),
                    {"input_features": rng.standard_normal((1, 80, 3000)).astype(np.float32)},
                    ["last_hidden_state"])
        if kind == "wav2vec2":
            m = rmb.eager(t.Wav2Vec2Model, t.Wav2Vec2Config(num_hidden_layers=6))
            return (rmb.select(m, "last_hidden_state"),
                    {"input_values": rng.standard_normal((1, 16000)).astype(np.float32)},
                    ["last_hidden_state"])
        if kind == "clip_vision":
            m = rmb.eager(t.CLIPVisionModel, t.CLIPVisionConfig(patch_size=32))
            return (rmb.select(m, "pooler_output"),
                    {"pixel_values": rng.standard_normal((1, 3, 224, 224)).astype(np.float32)},
                    ["pooler_output"])
        raise ValueError(kind)
    return build


TV = ["torchvision"]
ZOO = {
    "resnet18": (tv("resnet18"), TV, "torchvision ResNet-18"),
    "resnet50": (tv("resnet50"), TV, "torchvision ResNet-50"),
    "mobilenet_v2": (tv("mobilenet_v2"), TV, "torchvision MobileNetV2"),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), TV, "torchvision MobileNetV3-Small"),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), TV, "torchvision MobileNetV3-Large"),
    "efficientnet_b0": (tv("efficientnet_b0"), TV, "torchvision EfficientNet-B0"),
    "regnet_y_400mf": (tv("regnet_y_400mf"), TV, "torchvision RegNetY-400MF"),
    "convnext_tiny": (tv("convnext_tiny"), TV, "torchvision ConvNeXt-T"),
    "densenet121": (tv("densenet121"), TV, "torchvision DenseNet-121"),
    "inception_v3": (tv("inception_v3", 299), TV, "torchvision Inception-v3, 299x299"),
    "googlenet": (tv("googlenet"), TV, "torchvision GoogLeNet"),
    "shufflenet_v2": (tv("shufflenet_v2_x1_0"), TV, "torchvision ShuffleNetV2 x1.0"),
    "squeezenet": (tv("squeezenet1_1"), TV, "torchvision SqueezeNet 1.1"),
    "mnasnet": (tv("mnasnet1_0"), TV, "torchvision MNASNet 1.0"),
    "swin_t": (tv("swin_t"), TV, "torchvision Swin-T"),
    "vit_small": (rmb.vit_small, TV, "torchvision ViT-S/16"),
    "deeplabv3_mobilenet_v3": (tv("deeplabv3_mobilenet_v3_large", 520, "out",
                                  "models.segmentation"), TV,
                               "torchvision DeepLabV3 MobileNetV3-Large, 520x520"),
    "ghostnet": (timm_model("ghostnet_100"), ["timm"], "timm GhostNet 1.0"),
    "mobilevit_s": (timm_model("mobilevit_s"), ["timm"], "timm MobileViT-S"),
    "deit_tiny": (timm_model("deit_tiny_patch16_224"), ["timm"], "timm DeiT-Tiny"),
    "efficientformer_l1": (timm_model("efficientformer_l1"), ["timm"], "timm EfficientFormer-L1"),
    "distilbert": (hf("distilbert"), ["transformers"], "transformers DistilBERT, 128 tokens"),
    "t5_encoder": (hf("t5_encoder"), ["transformers"], "transformers T5 encoder (6 x 512), 128 tokens"),
    "whisper_encoder": (hf("whisper_encoder"), ["transformers"],
                        "transformers Whisper encoder (4 x 384), 30 s of features"),
    "wav2vec2": (hf("wav2vec2"), ["transformers"], "transformers Wav2Vec2 (6 layers), 1 s of audio"),
    "clip_vision": (hf("clip_vision"), ["transformers"], "transformers CLIP vision B/32"),
}


def ov_model(path, threads):
    import openvino as ov
    core = ov.Core()
    config = {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1,
              "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32"}
    return core.compile_model(path, "CPU", config)


def time_ov(compiled, feeds, repeat, warmup):
    request = compiled.create_infer_request()
    for _ in range(warmup):
        request.infer(feeds)
    walls, cpus = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time_ns(), time.perf_counter_ns()
        request.infer(feeds)
        walls.append((time.perf_counter_ns() - w0) / 1e3)
        cpus.append((time.process_time_ns() - c0) / 1e3)
    return {"wall_us": statistics.median(walls), "cpu_us": statistics.median(cpus),
            "repeat": repeat}


def run_model(name, args):
    result = {"timings": {}, "status": "", "ort_vs_torch": {}, "sy_vs_ort": {}, "scale": {}}
    folder = os.path.join(args.work, name)
    onnx_path = os.path.join(folder, "model.onnx")
    try:
        meta = rmb.cached_meta(folder, name, 17) or rmb.export(name, folder, 17)
    except Exception as e:  # the exporter's own failures: reported, the zoo goes on
        result["status"] = "export failed: %s" % str(e).splitlines()[0][:120]
        return result
    feeds = rmb.load(os.path.join(folder, "inputs"), meta["inputs"])
    ort1 = rmb.ort_session(onnx_path, 1)
    ort_out = dict(zip(meta["outputs"], ort1.run(meta["outputs"], feeds)))
    stem = os.path.join(folder, "sy", "model")
    input_args = []
    for n in meta["inputs"]:
        input_args += ["--input", "%s=%s" % (n, os.path.join(folder, "inputs", n + ".npy"))]
    if not rmb.check_switchyard(args, onnx_path, stem, input_args, ort_out, result,
                                "ONNX Runtime"):
        return result
    sessions = {1: ort1, 2: rmb.ort_session(onnx_path, 2)}
    try:
        ovs = {t: ov_model(onnx_path, t) for t in (1, 2)}
    except RuntimeError as e:  # OpenVINO's converter refuses the file: its column is empty
        ovs = None
        result["ov_failed"] = str(e).strip().splitlines()[-1][:120]
        print("  OpenVINO: %s" % result["ov_failed"], flush=True)
    for r in range(args.rounds):
        for t in (1, 2):
            w0 = time.perf_counter()
            sessions[t].run(None, feeds)
            n = rmb.runs_for(args.seconds, (time.perf_counter() - w0) * 1e6)
            timing = result["timings"].setdefault(str(t), {"ort": [], "ov": [], "sy": []})
            timing["ort"].append(rmb.time_ort(sessions[t], feeds, n, max(2, n // 10)))
            if ovs is not None:
                timing["ov"].append(time_ov(ovs[t], feeds, n, max(2, n // 10)))
            try:
                timing["sy"].append(rmb.time_sy(args, stem, input_args, t, n, max(1, n // 10)))
            except rmb.Failure as e:
                result["status"] = "bench failed: %s" % e
                return result
            print("  round %d, %d thread(s): %s ms" % (r + 1, t, ", ".join(
                "%s %.2f" % (k.upper(), timing[k][-1]["cpu_us" if t == 1 else "wall_us"] / 1e3)
                for k in ("ort", "ov", "sy") if timing[k])), flush=True)
    return result


def table(names, results):
    head = ("| model | ORT 1t CPU ms | OV 1t CPU ms | SY 1t CPU ms | SY/ORT | SY/OV | "
            "ORT 2t wall ms | OV 2t wall ms | SY 2t wall ms | SY/ORT | SY/OV | outputs |")
    lines = [head, "|---|" + "---:|" * 10 + "---|"]
    ratios = {k: [] for k in ("o1", "v1", "o2", "v2")}
    for name in names:
        r = results[name]
        cells = [name]
        for t in (1, 2):
            f = {k: rmb.figure(r["timings"].get(str(t), {}), k, t) for k in ("ort", "ov", "sy")}
            cells += ["%.2f" % f[k] if f[k] else "-" for k in ("ort", "ov", "sy")]
            for k, key in (("ort", "o%d" % t), ("ov", "v%d" % t)):
                if f[k] and f["sy"]:
                    ratios[key].append(f["sy"] / f[k])
                    cells.append("%.2f" % (f["sy"] / f[k]))
                else:
                    cells.append("-")
        status = r["status"] + ("; OpenVINO refused it: " + r["ov_failed"] if r.get("ov_failed")
                                else "")
        cells.append(" ".join(status.split())[:160].replace("|", "/"))
        lines.append("| " + " | ".join(cells) + " |")
    geo = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    lines.append("| geometric mean (%d models) | | | | %.2f | %.2f | | | | %.2f | %.2f | |" % (
        len(ratios["o1"]), geo(ratios["o1"]), geo(ratios["v1"]), geo(ratios["o2"]),
        geo(ratios["v2"])))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--switchyard", default=os.path.join(rmb.ROOT, "build", "release", "bin", "switchyard"))
    add("--work", default="/tmp/sy-zoo")
    add("--only", help="models, a comma list (see --list)")
    add("--list", action="store_true")
    add("--rounds", type=int, default=2)
    add("--seconds", type=float, default=0.6)
    add("--rtol", type=float, default=1e-3)
    add("--atol", type=float, default=1e-4)
    add("--markdown")
    add("--json")
    args = parser.parse_args()
    args.extra, args.threads, args.precision = [], [1, 2], "f32"
    rmb.MODELS.update(ZOO)
    if args.list:
        for name, (_, _, what) in ZOO.items():
            print("%-24s %s" % (name, what))
        return 0
    names = args.only.split(",") if args.only else list(ZOO)
    for mod in ["numpy", "onnxruntime", "openvino", "torch"] + sorted(
            {m for n in names for m in ZOO[n][1]}):
        try:
            __import__(mod)
        except ImportError as e:
            print("skip: %s is missing (%s); setup: see this script's docstring" % (mod, e))
            return 77
    import onnxruntime
    import openvino
    load = os.getloadavg()[0]
    results = {}
    for name in names:
        print("%s: %s" % (name, ZOO[name][2]), flush=True)
        try:
            results[name] = run_model(name, args)
        except Exception as e:  # one model's failure (a runtime's exception) ends only it
            results[name] = {"timings": {}, "status": "failed: %s" % str(e).splitlines()[-1][:120]}
        if not results[name]["status"].startswith("yes"):
            print("  " + results[name]["status"], flush=True)
    text = ("Measured %s on %s (%d cores, load average %.1f at the start of the report); ONNX "
            "Runtime %s, OpenVINO %s; %d round(s), about %g s per measurement.\n\n" % (
                datetime.date.today().isoformat(), rmb.cpu_name(), os.cpu_count(), load,
                onnxruntime.__version__, openvino.__version__.split("-")[0], args.rounds,
                args.seconds)) + table(names, results)
    rmb.write_report(args, text, results)
    return 0 if all(r["status"].startswith("yes") for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
