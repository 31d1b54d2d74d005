#!/usr/bin/env python3
"""ONNX corpus: real architectures exported by public tools, with inputs and ONNX Runtime's
outputs, for testing the importer on what exporters actually write.

Each architecture (--list) comes from timm, torchvision or transformers, built from code
with random weights (no download: timm pretrained=False, torchvision weights=None,
transformers configs written out here with small sizes) from a fixed seed, in eval mode,
static shapes, no past key values. Each one is exported twice, at each exporter's default
opset: by the TorchScript exporter (torch.onnx.export(..., dynamo=False)) and by the
dynamo exporter (dynamo=True). ONNX Runtime's transformers optimizer
(onnxruntime.transformers.optimizer.optimize_model, model_type='bert') also rewrites the
BERT exports into com.microsoft fused ops. For each model NAME (ARCH.EXPORTER):

    OUT/NAME/model.onnx           (model.onnx.data beside it when the exporter writes one)
    OUT/NAME/inputs/INPUT.npy     random inputs from a fixed seed (ids within the vocab)
    OUT/NAME/ort/OUTPUT.npy       ONNX Runtime's CPU outputs (one thread)
    OUT/manifest.json             per model: source, exporter, opset per domain, op types
                                  (domain:op counts), inputs, outputs, the largest
                                  |PyTorch - ONNX Runtime| per output, or the failure

A failed export or run is recorded in the manifest with its error text and the others go
on. A run with --only updates those models' entries of an existing manifest.

Setup (PyPI; the torch wheel pulls the CUDA libraries, a few GB) and a run:

    python3 -m venv /work/venv-corpus
    /work/venv-corpus/bin/pip install torch torchvision timm transformers onnx onnxscript \\
        onnxruntime numpy
    /work/venv-corpus/bin/python tools/onnx_corpus.py /work/corpus

usage: onnx_corpus.py OUT [--only REGEX] [--list]

Exit status: 0 when the manifest is written (failed exports are in it); 2 on bad
arguments; 77 when a Python package is missing.
"""
import argparse
import contextlib
import datetime
import importlib
import io
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import traceback
import warnings
import zlib

# One thread everywhere, and never the network (set before torch and transformers load).
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

RECIPE = __doc__[__doc__.index("    python3 -m venv"):__doc__.index("\n\nusage:")]
PACKAGES = ["numpy", "torch", "torchvision", "timm", "transformers", "onnx", "onnxscript",
            "onnxruntime"]
EXPORTERS = ["torchscript", "dynamo"]
DEFAULT_DOMAIN = "ai.onnx"
ERROR_CHARS = (12000, 4000)  # keep this much of a long error's text: its start, its end

# ----------------------------------------------------------------------------------
# The architectures. Each builder takes a seed and returns (module in eval mode,
# {input name: array}, [output names]); the module takes the inputs positionally.
# ----------------------------------------------------------------------------------


def calibrate(net, shape):
    """Sets every BatchNorm's running statistics from one random batch, as training would:
    with the initial ones (mean 0, variance 1) the activations of a random deep CNN shrink
    or grow layer after layer, which makes comparing outputs meaningless."""
    import torch
    bns = [m for m in net.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average: exactly this batch's statistics
    if bns:
        with torch.no_grad():
            net.train()(torch.randn(4, *shape[1:]))
    return net.eval()


def image_inputs(seed, shape, name="image"):
    import numpy as np
    rng = np.random.default_rng(seed)
    return {name: rng.standard_normal(shape).astype(np.float32)}


def timm_model(arch, size=64, new_head=False, **kwargs):
    """new_head: replace a zero-initialized classifier (all logits 0) with a fresh Linear."""
    def build(seed):
        import timm
        import torch
        torch.manual_seed(seed)
        net = timm.create_model(arch, pretrained=False, **kwargs)
        if new_head:
            net.reset_classifier(net.num_classes)
        shape = (1, 3, size, size)
        return calibrate(net, shape), image_inputs(seed, shape), ["logits"]
    return build


def torchvision_model(arch, size=64, **kwargs):
    def build(seed):
        import torch
        import torchvision
        torch.manual_seed(seed)
        net = getattr(torchvision.models, arch)(weights=None, **kwargs)
        shape = (1, 3, size, size)
        return calibrate(net, shape), image_inputs(seed, shape), ["logits"]
    return build


def select(inner, inputs, outputs):
    """A module that passes its positional inputs to a transformers model as keywords and
    returns the named fields of the model's output."""
    import torch

    class Select(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            out = self.inner(**dict(zip(inputs, args)))
            return tuple(out[k] for k in outputs)
    return Select().eval()


def token_inputs(seed, vocab, seq=16, mask=True, types=False, low=0):
    """input_ids in [low, vocab); attention_mask with the last 3 positions masked;
    token_type_ids 0 for the first half and 1 for the second."""
    import numpy as np
    rng = np.random.default_rng(seed)
    feeds = {"input_ids": rng.integers(low, vocab, (1, seq), dtype=np.int64)}
    if mask:
        feeds["attention_mask"] = np.ones((1, seq), np.int64)
        feeds["attention_mask"][:, seq - 3:] = 0
    if types:
        feeds["token_type_ids"] = (np.arange(seq) >= seq // 2).astype(np.int64)[None]
    return feeds


# Shared small transformer sizes: width 64, 4 heads, 2 layers, vocabulary 1000.
VOCAB, WIDTH, HEADS, LAYERS, FFN, POSITIONS = 1000, 64, 4, 2, 128, 64


def bert(seed):
    import torch
    from transformers import BertConfig, BertModel
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=VOCAB, hidden_size=WIDTH, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, intermediate_size=FFN,
                        max_position_embeddings=POSITIONS, type_vocab_size=2)
    feeds = token_inputs(seed, VOCAB, types=True)
    outputs = ["last_hidden_state", "pooler_output"]
    return select(BertModel(config), list(feeds), outputs), feeds, outputs


def distilbert(seed):
    import torch
    from transformers import DistilBertConfig, DistilBertModel
    torch.manual_seed(seed)
    config = DistilBertConfig(vocab_size=VOCAB, dim=WIDTH, n_layers=LAYERS, n_heads=HEADS,
                              hidden_dim=FFN, max_position_embeddings=POSITIONS)
    feeds = token_inputs(seed, VOCAB)
    return select(DistilBertModel(config), list(feeds), ["last_hidden_state"]), feeds, [
        "last_hidden_state"]


def roberta(seed):
    import torch
    from transformers import RobertaConfig, RobertaModel
    torch.manual_seed(seed)
    config = RobertaConfig(vocab_size=VOCAB, hidden_size=WIDTH, num_hidden_layers=LAYERS,
                           num_attention_heads=HEADS, intermediate_size=FFN,
                           max_position_embeddings=POSITIONS + 2, type_vocab_size=1,
                           pad_token_id=1)
    feeds = token_inputs(seed, VOCAB, low=3)  # no padding token: positions count ids
    outputs = ["last_hidden_state", "pooler_output"]
    return select(RobertaModel(config), list(feeds), outputs), feeds, outputs


# GPT-2 and Llama take an attention_mask: without one, transformers 5's mask code calls
# torch.diff (packed-sequence detection), which the TorchScript exporter cannot export.


def gpt2(seed):
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=VOCAB, n_embd=WIDTH, n_layer=LAYERS, n_head=HEADS,
                        n_positions=POSITIONS, use_cache=False)
    feeds = token_inputs(seed, VOCAB)
    return select(GPT2LMHeadModel(config), list(feeds), ["logits"]), feeds, ["logits"]


def llama(seed):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=WIDTH, intermediate_size=FFN,
                         num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                         num_key_value_heads=2, max_position_embeddings=POSITIONS,
                         use_cache=False)
    feeds = token_inputs(seed, VOCAB)
    return select(LlamaForCausalLM(config), list(feeds), ["logits"]), feeds, ["logits"]


def t5_encoder(seed):
    import torch
    from transformers import T5Config, T5EncoderModel
    torch.manual_seed(seed)
    config = T5Config(vocab_size=VOCAB, d_model=WIDTH, d_kv=WIDTH // HEADS, d_ff=FFN,
                      num_layers=LAYERS, num_heads=HEADS, use_cache=False)
    feeds = token_inputs(seed, VOCAB)
    return select(T5EncoderModel(config), list(feeds), ["last_hidden_state"]), feeds, [
        "last_hidden_state"]


def hf_vit(seed):
    import torch
    from transformers import ViTConfig, ViTModel
    torch.manual_seed(seed)
    config = ViTConfig(image_size=32, patch_size=8, hidden_size=WIDTH,
                       num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                       intermediate_size=FFN)
    feeds = image_inputs(seed, (1, 3, 32, 32), "pixel_values")
    outputs = ["last_hidden_state", "pooler_output"]
    return select(ViTModel(config), list(feeds), outputs), feeds, outputs


def whisper_encoder(seed):
    import torch
    from transformers import WhisperConfig, WhisperModel
    torch.manual_seed(seed)
    config = WhisperConfig(vocab_size=VOCAB, d_model=WIDTH, encoder_layers=LAYERS,
                           encoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
                           decoder_layers=1, decoder_attention_heads=HEADS,
                           decoder_ffn_dim=FFN, num_mel_bins=16, max_source_positions=16,
                           max_target_positions=16, pad_token_id=0, bos_token_id=1,
                           eos_token_id=2, decoder_start_token_id=1, use_cache=False)
    feeds = image_inputs(seed, (1, 16, 32), "input_features")  # frames: 2 x positions
    encoder = WhisperModel(config).get_encoder()
    return select(encoder, list(feeds), ["last_hidden_state"]), feeds, ["last_hidden_state"]


def wav2vec2(seed):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    torch.manual_seed(seed)
    config = Wav2Vec2Config(hidden_size=WIDTH, num_hidden_layers=LAYERS,
                            num_attention_heads=HEADS, intermediate_size=FFN,
                            conv_dim=(32, 32, 32), conv_stride=(5, 2, 2),
                            conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4, vocab_size=32)
    feeds = image_inputs(seed, (1, 1600), "input_values")  # 0.1 s at 16 kHz
    return select(Wav2Vec2Model(config), list(feeds), ["last_hidden_state"]), feeds, [
        "last_hidden_state"]


# name: (source, builder, description)
ARCHS = {
    "timm_resnet18": ("timm", timm_model("resnet18"), "ResNet-18, 64x64"),
    "timm_mobilenetv3_small_100": ("timm", timm_model("mobilenetv3_small_100"),
                                   "MobileNetV3-Small (hard-swish, SE), 64x64"),
    "timm_efficientnet_b0": ("timm", timm_model("efficientnet_b0"),
                             "EfficientNet-B0 (SiLU, SE), 64x64"),
    "timm_convnext_atto": ("timm", timm_model("convnext_atto"),
                           "ConvNeXt-Atto (depthwise 7x7, LayerNorm2d, GELU), 64x64"),
    "timm_vit_tiny": ("timm", timm_model("vit_tiny_patch16_224", img_size=64),
                      "ViT-Ti/16 at img_size 64"),
    "timm_deit_tiny_distilled": ("timm", timm_model("deit_tiny_distilled_patch16_224",
                                                    img_size=64),
                                 "DeiT-Ti/16 distilled (two heads averaged), 64x64"),
    "timm_regnetx_002": ("timm", timm_model("regnetx_002"), "RegNetX-200MF, 64x64"),
    "timm_ghostnet_100": ("timm", timm_model("ghostnet_100"), "GhostNet 1.0, 64x64"),
    "timm_mixer_s16": ("timm", timm_model("mixer_s16_224", img_size=64, new_head=True),
                       "MLP-Mixer S/16 at img_size 64"),
    "timm_levit_128s": ("timm", timm_model("levit_128s", size=112, img_size=112),
                        "LeViT-128S (attention biases, hard-swish) at 112x112"),
    "timm_poolformer_s12": ("timm", timm_model("poolformer_s12"),
                            "PoolFormer-S12 (MetaFormer, AvgPool mixer), 64x64"),
    "timm_mobilevit_xxs": ("timm", timm_model("mobilevit_xxs", img_size=64),
                           "MobileViT-XXS (unfold to patches, attention), 64x64"),
    "tv_resnet18": ("torchvision", torchvision_model("resnet18"), "ResNet-18, 64x64"),
    "tv_mobilenet_v2": ("torchvision", torchvision_model("mobilenet_v2"),
                        "MobileNetV2 (ReLU6), 64x64"),
    "tv_mobilenet_v3_small": ("torchvision", torchvision_model("mobilenet_v3_small"),
                              "MobileNetV3-Small, 64x64"),
    "tv_squeezenet1_0": ("torchvision", torchvision_model("squeezenet1_0"),
                         "SqueezeNet 1.0 (ceil-mode MaxPool), 64x64"),
    "tv_shufflenet_v2_x0_5": ("torchvision", torchvision_model("shufflenet_v2_x0_5"),
                              "ShuffleNetV2 0.5x (channel shuffle), 64x64"),
    "tv_densenet121": ("torchvision", torchvision_model("densenet121"),
                       "DenseNet-121 (Concat chains), 64x64"),
    "tv_mnasnet0_5": ("torchvision", torchvision_model("mnasnet0_5"), "MNASNet 0.5, 64x64"),
    "tv_efficientnet_b0": ("torchvision", torchvision_model("efficientnet_b0"),
                           "EfficientNet-B0, 64x64"),
    "tv_regnet_y_400mf": ("torchvision", torchvision_model("regnet_y_400mf"),
                          "RegNetY-400MF (grouped conv, SE), 64x64"),
    "tv_googlenet": ("torchvision", torchvision_model("googlenet", aux_logits=False,
                                                      init_weights=True),
                     "GoogLeNet (inception blocks, no aux heads), 64x64"),
    "tv_swin_t": ("torchvision", torchvision_model("swin_t"),
                  "Swin-T (shifted windows, relative position bias), 64x64"),
    "hf_bert": ("transformers", bert, "BertModel, width 64, 2 layers, 4 heads, seq 16"),
    "hf_distilbert": ("transformers", distilbert, "DistilBertModel, width 64, 2 layers, "
                      "seq 16"),
    "hf_roberta": ("transformers", roberta, "RobertaModel, width 64, 2 layers, seq 16"),
    "hf_gpt2": ("transformers", gpt2, "GPT2LMHeadModel, width 64, 2 layers, seq 16, "
                "no cache"),
    "hf_llama": ("transformers", llama, "LlamaForCausalLM, width 64, 2 layers, 4 heads / "
                 "2 KV heads (GQA), RoPE, RMSNorm, SwiGLU, seq 16, no cache"),
    "hf_t5_encoder": ("transformers", t5_encoder, "T5EncoderModel, width 64, 2 layers, "
                      "relative position buckets, seq 16"),
    "hf_vit": ("transformers", hf_vit, "ViTModel, 32x32 image, patch 8, width 64"),
    "hf_whisper_encoder": ("transformers", whisper_encoder, "Whisper encoder, 16 mel bins "
                           "x 32 frames, width 64, 2 layers"),
    "hf_wav2vec2": ("transformers", wav2vec2, "Wav2Vec2Model, 1600 samples, 3 conv layers, "
                    "width 64, 2 layers"),
}

# ONNX Runtime transformers optimizer runs: name: (architecture, exporter of the base
# export it rewrites, optimize_model keywords; "fusion_options" sets FusionOptions fields).
# With transformers 5 exports its Attention and EmbedLayerNormalization fusions find no
# match at the default opt_level 1 (only SkipLayerNormalization); opt_level 2 adds ONNX
# Runtime's own fusions (BiasGelu, and EmbedLayerNormalization for RoBERTa).
BERT_OPTIONS = dict(model_type="bert", num_heads=HEADS, hidden_size=WIDTH)
OPTIMIZED = {
    "hf_bert.ort-optimizer": ("hf_bert", "torchscript", BERT_OPTIONS),
    "hf_bert.ort-optimizer-dynamo": ("hf_bert", "dynamo", BERT_OPTIONS),
    "hf_bert.ort-optimizer-O2-fastgelu": ("hf_bert", "torchscript", dict(
        BERT_OPTIONS, opt_level=2, fusion_options={"enable_gelu_approximation": True})),
    "hf_roberta.ort-optimizer-O2": ("hf_roberta", "torchscript",
                                    dict(BERT_OPTIONS, opt_level=2)),
}


def corpus():
    """{model name: (architecture, exporter)} in build order."""
    names = {}
    for arch in ARCHS:
        for exporter in EXPORTERS:
            names["%s.%s" % (arch, exporter)] = (arch, exporter)
        for name, (base, _, _) in OPTIMIZED.items():
            if base == arch:
                names[name] = (arch, "ort-optimizer")
    return names


# ----------------------------------------------------------------------------------
# Export, inspect, run.
# ----------------------------------------------------------------------------------


def error_text(e):
    text = re.sub(r"\x1b\[[0-9;]*m", "", "%s: %s" % (type(e).__name__, e))  # no colours
    head, tail = ERROR_CHARS
    if len(text) <= head + tail:
        return text
    left_out = len(text) - head - tail
    return "%s\n[... %d characters ...]\n%s" % (text[:head], left_out, text[-tail:])


@contextlib.contextmanager
def captured():
    """Collects what the exporters print and warn; yields the buffer."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield buf


class ExportError(Exception):
    """An exporter's error, its text with the end of what the exporter printed."""


def export(module, feeds, outputs, exporter, path):
    import torch
    args = tuple(torch.from_numpy(a) for a in feeds.values())
    with captured() as log:
        try:
            torch.onnx.export(module, args, path, dynamo=exporter == "dynamo",
                              input_names=list(feeds), output_names=outputs)
        except Exception as e:
            tail = re.sub(r"\x1b\[[0-9;]*m", "", log.getvalue()[-4000:])
            raise ExportError(error_text(e) + ("\n--- exporter log (end) ---\n" + tail
                                               if tail.strip() else "")) from e


def optimize(base_path, path, kwargs):
    from onnxruntime.transformers import optimizer
    from onnxruntime.transformers.fusion_options import FusionOptions
    kwargs = dict(kwargs)
    fields = kwargs.pop("fusion_options", None)
    if fields:
        options = kwargs["optimization_options"] = FusionOptions(kwargs["model_type"])
        for k, v in fields.items():
            setattr(options, k, v)
    with captured():
        model = optimizer.optimize_model(base_path, **kwargs)
        model.save_model_to_file(path)
        return {k: v for k, v in model.get_fused_operator_statistics().items() if v}


def op_counts(graph, counts):
    """Adds `domain:op` counts of GRAPH's nodes and their subgraphs' to COUNTS."""
    import onnx
    for node in graph.node:
        key = "%s:%s" % (node.domain or DEFAULT_DOMAIN, node.op_type)
        counts[key] = counts.get(key, 0) + 1
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                op_counts(attr.g, counts)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    op_counts(g, counts)
    return counts


def value_info(v):
    import onnx
    t = v.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
            for d in t.shape.dim]
    return {"name": v.name, "shape": dims,
            "dtype": onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).name
            if t.elem_type else None}


def describe(path, entry):
    """Records the ONNX file's opsets, op counts, inputs and outputs in ENTRY."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    entry["ir_version"] = model.ir_version
    entry["producer"] = ("%s %s" % (model.producer_name, model.producer_version)).strip()
    entry["opset_import"] = {o.domain or DEFAULT_DOMAIN: o.version for o in model.opset_import}
    entry["ops"] = dict(sorted(op_counts(model.graph, {}).items()))
    if model.functions:
        entry["functions"] = {"%s:%s" % (f.domain, f.name): dict(sorted(
            op_counts(f, {}).items())) for f in model.functions}
    initializers = {i.name for i in model.graph.initializer}
    entry["inputs"] = [value_info(v) for v in model.graph.input if v.name not in initializers]
    entry["outputs"] = [value_info(v) for v in model.graph.output]
    entry["initializers"] = len(initializers)
    try:
        onnx.checker.check_model(path)
        entry["onnx_checker"] = "ok"
    except Exception as e:
        entry["onnx_checker"] = error_text(e)
    return model


def file_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".npy"


def run_ort(folder, entry, feeds, reference):
    """Runs OUT/NAME/model.onnx in ONNX Runtime on FEEDS (matched to the model's inputs by
    name, else by position); saves the inputs and outputs and compares with REFERENCE."""
    import numpy as np
    import onnxruntime as ort
    names = [i["name"] for i in entry["inputs"]]
    given = list(feeds.items())
    ordered = {}
    for k, name in enumerate(names):
        if name in feeds:
            ordered[name] = feeds[name]
        elif k < len(given):
            ordered[name] = given[k][1]
        else:
            raise RuntimeError("no input for the model's input %r" % name)
    os.makedirs(os.path.join(folder, "inputs"))
    for i, (name, array) in zip(entry["inputs"], ordered.items()):
        i["file"] = "inputs/" + file_name(name)
        np.save(os.path.join(folder, i["file"]), array)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(os.path.join(folder, "model.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    start = time.perf_counter()
    results = session.run(None, ordered)
    entry["ort_run_s"] = round(time.perf_counter() - start, 4)
    os.makedirs(os.path.join(folder, "ort"))
    entry["torch_vs_ort"] = {}
    for k, (o, value) in enumerate(zip(entry["outputs"], results)):
        o["file"] = "ort/" + file_name(o["name"])
        o["ort_shape"] = list(value.shape)
        o["ort_dtype"] = value.dtype.name
        np.save(os.path.join(folder, o["file"]), value)
        if k < len(reference):
            ref = reference[k]
            if ref.shape == value.shape:
                diff = float(np.max(np.abs(ref.astype(np.float64) - value))) if ref.size else 0.0
                scale = float(np.max(np.abs(ref))) if ref.size else 0.0
                entry["torch_vs_ort"][o["name"]] = {"max_abs_diff": diff, "max_abs_torch": scale}
            else:
                entry["torch_vs_ort"][o["name"]] = {"error": "shape %s vs PyTorch %s" % (
                    list(value.shape), list(ref.shape))}
    diffs = [d["max_abs_diff"] for d in entry["torch_vs_ort"].values() if "max_abs_diff" in d]
    entry["max_abs_diff"] = max(diffs) if diffs else None


def build_arch(arch):
    """Builds the architecture and runs it in PyTorch: (module, feeds, outputs, results)."""
    import torch
    builder = ARCHS[arch][1]
    seed = zlib.crc32(arch.encode()) & 0x7FFFFFFF
    with captured():
        module, feeds, outputs = builder(seed)
        with torch.no_grad():
            got = module(*(torch.from_numpy(a) for a in feeds.values()))
    got = got if isinstance(got, (tuple, list)) else (got,)
    return module, feeds, outputs, [t.detach().numpy() for t in got]


def make(name, arch, exporter, built, out):
    """Exports (or optimizes) one model into OUT/NAME; returns its manifest entry."""
    folder = os.path.join(out, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    path = os.path.join(folder, "model.onnx")
    source, _, what = ARCHS[arch]
    entry = {"name": name, "architecture": arch, "description": what,
             "source": "ort-optimizer" if exporter == "ort-optimizer" else source,
             "exporter": exporter, "status": "ok"}
    start = time.perf_counter()
    try:
        if isinstance(built, Exception):
            raise ExportError("building or running the PyTorch model failed: "
                              + error_text(built))
        module, feeds, outputs, reference = built
        if exporter == "ort-optimizer":
            base_arch, base_exporter, kwargs = OPTIMIZED[name]
            entry["base"] = "%s.%s" % (base_arch, base_exporter)
            entry["optimizer_options"] = kwargs
            with tempfile.TemporaryDirectory(prefix="sy-corpus-") as tmp:
                base_path = os.path.join(tmp, "model.onnx")
                export(module, feeds, outputs, base_exporter, base_path)
                entry["fused_operator_statistics"] = optimize(base_path, path, kwargs)
        else:
            export(module, feeds, outputs, exporter, path)
    except Exception as e:
        entry["status"] = "export failed"
        entry["error"] = str(e) if isinstance(e, ExportError) else error_text(e)
        entry["export_s"] = round(time.perf_counter() - start, 2)
        return entry
    entry["export_s"] = round(time.perf_counter() - start, 2)
    entry["files"] = sorted(os.listdir(folder))
    entry["bytes"] = sum(os.path.getsize(os.path.join(folder, f)) for f in entry["files"])
    try:
        describe(path, entry)
        run_ort(folder, entry, feeds, reference)
    except Exception as e:
        entry["status"] = "ort failed"
        entry["error"] = error_text(e)
    return entry


def check_packages():
    missing = []
    for mod in PACKAGES:
        try:
            importlib.import_module(mod)
        except ImportError as e:
            missing.append("  %s: %s" % (mod, e))
    if missing:
        print("skip: Python packages missing in %s:\n%s\nThe recipe:\n%s"
              % (sys.executable, "\n".join(missing), RECIPE), flush=True)
        sys.exit(77)


def versions():
    found = {"python": platform.python_version()}
    for mod in PACKAGES:
        try:
            found[mod] = importlib.import_module(mod).__version__
        except Exception:
            found[mod] = None
    return found


def summary(entries):
    width = max(len(e["name"]) for e in entries)
    lines = []
    for e in entries:
        opset = e.get("opset_import", {}).get(DEFAULT_DOMAIN, "-")
        diff = e.get("max_abs_diff")
        lines.append("%-*s  %-10s opset %-2s  %-13s %s" % (
            width, e["name"], e["exporter"][:10], opset, e["status"],
            "max|torch-ort| %.2e" % diff if diff is not None else
            (e.get("error", "").splitlines() or [""])[0][:100]))
    return "\n".join(lines)


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawTextHelpFormatter,
        epilog="setup:\n" + RECIPE)
    parser.add_argument("out", nargs="?", help="output folder (created)")
    parser.add_argument("--only", metavar="REGEX",
                        help="only the models whose name (ARCH.EXPORTER) REGEX matches "
                        "(re.search)")
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    args = parser.parse_args()
    names = corpus()
    if args.only:
        try:
            pattern = re.compile(args.only)
        except re.error as e:
            parser.error("bad --only regex: %s" % e)
        names = {n: v for n, v in names.items() if pattern.search(n)}
        if not names:
            parser.error("--only %r matches no model (see --list)" % args.only)
    if not args.list and not args.out:
        parser.error("the output folder OUT is required")
    args.names = names
    return args


def main():
    args = parse_args()
    if args.list:
        for name, (arch, exporter) in args.names.items():
            source = ARCHS[arch][0] if exporter != "ort-optimizer" else "ort-optimizer"
            print("%-38s %-13s %s" % (name, source, ARCHS[arch][2]))
        return 0
    check_packages()
    import torch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
            "versions": versions(), "cores": os.cpu_count(), "threads": 1}
    print("torch %(torch)s, onnx %(onnx)s, onnxscript %(onnxscript)s, onnxruntime "
          "%(onnxruntime)s, timm %(timm)s, torchvision %(torchvision)s, transformers "
          "%(transformers)s; %(n)d models into %(out)s" % dict(
              meta["versions"], n=len(args.names), out=out), flush=True)

    start = time.perf_counter()
    entries, built = {}, {}
    for name, (arch, exporter) in args.names.items():
        if arch not in built:
            built.clear()  # one architecture's modules in memory at a time
            try:
                built[arch] = build_arch(arch)
            except Exception as e:
                traceback.print_exc()
                built[arch] = e
        t = time.perf_counter()
        entry = entries[name] = make(name, arch, exporter, built[arch], out)
        print("%-38s %-13s %5.1f s  %s" % (
            name, entry["status"], time.perf_counter() - t,
            "max|torch-ort| %.2e" % entry["max_abs_diff"]
            if entry.get("max_abs_diff") is not None
            else (entry.get("error", "").splitlines() or [""])[0][:120]), flush=True)
    meta["wall_s"] = round(time.perf_counter() - start, 1)

    manifest_path = os.path.join(out, "manifest.json")
    previous = []
    if args.only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            previous = json.load(f).get("models", [])
    merged = {e["name"]: e for e in previous}
    merged.update(entries)
    order = list(corpus())
    models = sorted(merged.values(), key=lambda e: (order.index(e["name"])
                                                    if e["name"] in order else len(order)))
    ops = {}
    for e in models:
        for op in e.get("ops", {}):
            ops[op] = ops.get(op, 0) + 1
    manifest = {"meta": meta, "ops_by_models": dict(sorted(ops.items())), "models": models}
    with open(manifest_path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(manifest_path + ".tmp", manifest_path)
    ok = sum(e["status"] == "ok" for e in entries.values())
    print("\n" + summary(list(entries.values())))
    print("%d of %d models exported and ran in ONNX Runtime in %.0f s; manifest %s" % (
        ok, len(entries), meta["wall_s"], manifest_path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
