#!/usr/bin/env python3
"""PyTorch models with dynamic dimensions: one ONNX export, one session, many shapes.

Where tools/pytorch_zoo.py exports each model at one static shape, this script exports
each model ONCE with torch.onnx.export(..., dynamic_axes=...) (named symbolic dims such
as "batch", "seq" and "past", opset 17, random weights from a fixed seed, no downloads),
traced at a shape that none of the runs uses, and checks that the single imported model
is right at every shape. For each model:

1. builds the module in eval mode and exports it with its dynamic axes; lists the ONNX
   op types of the export and, apart, the shape computation: the nodes fed (directly or
   not) by a Shape node, which `switchyard import` has to handle symbolically; prints
   the tracer's warnings (each one a place where the trace may have fixed a size);
2. for 3 or more input shapes (for the decoders, one with an EMPTY past: past length 0)
   makes fixed random inputs and PyTorch's outputs for them and writes them as
   WORK/<model>/run<k>/inputs/<input name>.npy and WORK/<model>/run<k>/expected/<output
   name>.npy (float32, int64 as the model takes them);
3. when onnxruntime imports, runs the ONNX file with it at every shape and compares with
   PyTorch (this checks the export itself; skipped silently without onnxruntime);
4. `switchyard import MODEL.onnx -o WORK/<model>/model`, then on every device ONE session
   over all the shapes: `switchyard run WORK/<model>/model --device D --run-dir
   WORK/<model>/run0 --run-dir WORK/<model>/run1 ... --rtol R --atol A`, which fails
   when any output of any run differs from its expected/ file.

The models: bert_encoder (a BERT-style encoder written out as HF BERT writes it, with an
int64 attention mask), hf_bert (transformers.BertModel, random init), cnn_batch (a
classifier CNN, dynamic batch only), gpt_past (a GPT-2-style decoder with a key/value
cache as inputs and outputs) and hf_gpt2_past (transformers.GPT2LMHeadModel with
past_key_values). The hf_ ones need the transformers package and are skipped, with a
note, without it. --list shows them.

usage: pytorch_dynamic.py [--switchyard PATH] [--work DIR] [--device D[,D...]]...
                          [--only NAME[,NAME...]] [--list] [--export-only]
                          [--rtol R] [--atol A] [--keep]

Exit status: 0 when every output of every run of every model matches on every device
(and onnxruntime agrees with PyTorch where it is installed); 1 on a mismatch, a failed
export, import or run; 2 on bad arguments; 77 (the ctest skip code) when PyTorch is not
installed. Finds a Python with torch the same way as pytorch_roundtrip.py, whose helpers
it imports. Uses the TorchScript-based exporter on every PyTorch version (dynamo=False
where torch.onnx.export has that argument); checked with PyTorch 1.13 (Debian's
python3-torch), also where torch's NumPy bridge is broken (a torch built for NumPy 1 under
NumPy 2): arrays then cross between the two by their bytes.
"""
import argparse
import ctypes
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_roundtrip as rt  # noqa: E402  (finds a Python with torch, or exits 77)

np, torch, nn, F = rt.np, rt.torch, rt.nn, rt.F

# ----------------------------------------------------------------------------------
# Arrays in and out of torch
# ----------------------------------------------------------------------------------

TORCH_DTYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.int64): torch.int64,
                np.dtype(np.bool_): torch.bool}
NUMPY_DTYPES = {t: n for n, t in TORCH_DTYPES.items()}


# torch.from_numpy and Tensor.numpy fail ("Numpy is not available") in a torch built for
# NumPy 1 running under NumPy 2, as Debian's torch 1.13 in a venv with a newer NumPy; the
# arrays here are small, so they are then copied through their bytes instead.


def _numpy_bridge_works():
    try:
        torch.from_numpy(np.zeros(1, np.float32))
        torch.zeros(1).numpy()
        return True
    except Exception:  # RuntimeError: Numpy is not available
        return False


NUMPY_BRIDGE = _numpy_bridge_works()


def to_tensor(array):
    array = np.ascontiguousarray(array)
    if NUMPY_BRIDGE:
        return torch.from_numpy(array.copy())
    dtype = TORCH_DTYPES[array.dtype]
    if array.size == 0:
        return torch.empty(array.shape, dtype=dtype)
    return torch.frombuffer(bytearray(array.tobytes()), dtype=dtype).reshape(array.shape)


def to_array(tensor):
    tensor = tensor.detach().cpu().contiguous()
    if NUMPY_BRIDGE:
        return tensor.numpy().copy()
    nbytes = tensor.numel() * tensor.element_size()
    data = ctypes.string_at(tensor.data_ptr(), nbytes) if nbytes else b""
    return np.frombuffer(data, dtype=NUMPY_DTYPES[tensor.dtype]).reshape(
        tuple(tensor.shape)).copy()


def torch_outputs(module, inputs):
    """PyTorch's outputs, as arrays, for {input name: array} (in the module's order)."""
    with torch.no_grad():
        out = module(*[to_tensor(a) for a in inputs.values()])
    return [to_array(t) for t in (out if isinstance(out, (tuple, list)) else (out,))]


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def tokens(rng, vocab, batch, seq):
    return rng.integers(0, vocab, (batch, seq)).astype(np.int64)


def padding_mask(batch, seq):
    """int64 [batch, seq] of ones, row r > 0 with its last min(2r, seq - 1) zeroed (right
    padding, as a tokenizer makes it)."""
    mask = np.ones((batch, seq), np.int64)
    for r in range(1, batch):
        mask[r, seq - min(2 * r, seq - 1):] = 0
    return mask


def vary_defaults(module):
    """Gives every all-ones LayerNorm/BatchNorm weight and every all-zero bias random
    values (from torch's seeded generator), so that the outputs depend on each of them
    and identical initializers do not turn into shared ones behind Identity nodes."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("bias") and not p.any():
                p.copy_(0.1 * torch.randn(p.shape))
            elif name.endswith("weight") and p.dim() == 1 and bool((p == 1).all()):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape))
    return module


# ----------------------------------------------------------------------------------
# The models. Each builder returns a Case and seeds its own weights and inputs, so a
# model does not depend on which others run.
# ----------------------------------------------------------------------------------


class Case:
    """module; input_names and output_names (the ONNX names, in the module's order);
    dynamic_axes for torch.onnx.export; export_inputs {name: array} to trace with (a
    shape no run uses, so a size the trace fixed shows as a failure); runs, a list of
    (label, {name: array}) with the inputs of each run."""

    def __init__(self, module, output_names, dynamic_axes, export_inputs, runs):
        self.module = module
        self.input_names = list(export_inputs)
        self.output_names = output_names
        self.dynamic_axes = dynamic_axes
        self.export_inputs = export_inputs
        self.runs = runs


class BertSelfAttention(nn.Module):
    """As transformers' BertSelfAttention (eager): q/k/v Linear, heads split with view
    on size()[:-1] + (heads, head_dim) and permute, an additive mask, softmax, the
    context permuted back and viewed [batch, seq, hidden]."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)

    def split_heads(self, x):
        x = x.view(x.size()[:-1] + (self.heads, self.head_dim))
        return x.permute(0, 2, 1, 3)

    def forward(self, h, extended_mask):
        q = self.split_heads(self.query(h))
        k = self.split_heads(self.key(h))
        v = self.split_heads(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + extended_mask, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (self.heads * self.head_dim,))


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate):
        super().__init__()
        self.attention = BertSelfAttention(hidden, heads)
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, intermediate)
        self.output = nn.Linear(intermediate, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, h, extended_mask):
        h = self.attention_norm(h + self.attention_out(self.attention(h, extended_mask)))
        return self.output_norm(h + self.output(F.gelu(self.intermediate(h))))


class BertEncoder(nn.Module):
    """Token + learned position (torch.arange(seq), expanded over the batch) + token
    type (all type 0: zeros_like(input_ids)) embeddings, LayerNorm, then post-norm
    layers; the extended attention mask (1 - mask[:, None, None, :]) * -10000 from an
    int64 attention_mask. Returns last_hidden_state."""

    def __init__(self, vocab=100, hidden=32, heads=4, intermediate=64, layers=2,
                 max_positions=64):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_positions, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, intermediate)
                                    for _ in range(layers))

    def forward(self, input_ids, attention_mask):
        seq = input_ids.size(1)
        position_ids = torch.arange(seq, dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        token_type_ids = torch.zeros_like(input_ids)
        h = (self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
             + self.token_type_embeddings(token_type_ids))
        h = self.embedding_norm(h)
        extended_mask = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            h = layer(h, extended_mask)
        return h


def bert_inputs(rng, vocab, batch, seq):
    return {"input_ids": tokens(rng, vocab, batch, seq),
            "attention_mask": padding_mask(batch, seq)}


BERT_AXES = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
             "last_hidden_state": {0: "batch", 1: "seq"}}
BERT_SHAPES = [(1, 5), (2, 16), (3, 9)]


def bert_encoder():
    torch.manual_seed(21)
    rng = np.random.default_rng(21)
    return Case(vary_defaults(BertEncoder()), ["last_hidden_state"], BERT_AXES, bert_inputs(rng, 100, 2, 7),
                [("batch %d, seq %d" % s, bert_inputs(rng, 100, *s)) for s in BERT_SHAPES])


def import_transformers():
    """The transformers package, or None (with its warnings about a missing TensorFlow
    or an old PyTorch silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import transformers
        return transformers
    except Exception:
        return None


class HfBert(nn.Module):
    def __init__(self, transformers):
        super().__init__()
        config = transformers.BertConfig(
            vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=64, max_position_embeddings=64)
        config._attn_implementation = "eager"  # where supported: not SDPA
        self.bert = transformers.BertModel(config, add_pooling_layer=False)

    def forward(self, input_ids, attention_mask):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                         return_dict=True).last_hidden_state


def hf_bert(transformers):
    torch.manual_seed(22)
    rng = np.random.default_rng(22)
    return Case(vary_defaults(HfBert(transformers)), ["last_hidden_state"], BERT_AXES,
                bert_inputs(rng, 100, 2, 7),
                [("batch %d, seq %d" % s, bert_inputs(rng, 100, *s)) for s in BERT_SHAPES])


class CnnBatch(nn.Module):
    """conv 3x3 -> batch norm -> relu -> max pool 2x2 -> conv 3x3 -> relu -> global
    average pool -> torch.flatten(x, 1) -> linear 16 -> 10."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, 10)
        with torch.no_grad():  # running statistics that are not the identity
            self.bn1.running_mean.copy_(0.1 * torch.randn(8))
            self.bn1.running_var.copy_(0.5 + torch.rand(8))

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def cnn_batch():
    torch.manual_seed(23)
    rng = np.random.default_rng(23)
    return Case(vary_defaults(CnnBatch()), ["logits"], {"x": {0: "batch"}, "logits": {0: "batch"}},
                {"x": randn(rng, 3, 3, 32, 32)},
                [("batch %d" % b, {"x": randn(rng, b, 3, 32, 32)}) for b in (1, 2, 5)])


class GptBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.ln_1 = nn.LayerNorm(dim)
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = nn.Linear(dim, 4 * dim)
        self.c_out = nn.Linear(4 * dim, dim)

    def split_heads(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, h, causal, past_key, past_value):
        q, k, v = self.c_attn(self.ln_1(h)).split(self.heads * self.head_dim, dim=2)
        key = torch.cat((past_key, self.split_heads(k)), dim=2)
        value = torch.cat((past_value, self.split_heads(v)), dim=2)
        scores = torch.matmul(self.split_heads(q), key.transpose(-1, -2))
        scores = scores / torch.full([], self.head_dim ** 0.5, dtype=scores.dtype)
        mask_value = torch.full([], torch.finfo(scores.dtype).min, dtype=scores.dtype)
        scores = torch.where(causal, scores, mask_value)
        a = torch.matmul(torch.softmax(scores, dim=-1), value).permute(0, 2, 1, 3).contiguous()
        h = h + self.c_proj(a.view(a.size()[:-2] + (self.heads * self.head_dim,)))
        h = h + self.c_out(F.gelu(self.c_fc(self.ln_2(h)), approximate="tanh"))
        return h, key, value


class GptPast(nn.Module):
    """A GPT-2-style decoder with a key/value cache, written as HF GPT-2 writes it:
    positions torch.arange(past, past + seq) with past = past_key_0.size(2); the causal
    mask sliced [past:past + seq, :past + seq] out of a registered lower-triangular
    buffer; each layer's keys and values concatenated after its past along dim 2 and
    returned as present_key_<i>, present_value_<i>. Inputs: input_ids [batch, seq],
    then past_key_<i>, past_value_<i> [batch, heads, past, head_dim] per layer."""

    def __init__(self, vocab=50, dim=32, heads=4, layers=2, max_positions=64):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(max_positions, dim)
        self.blocks = nn.ModuleList(GptBlock(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.register_buffer("bias", torch.tril(torch.ones(max_positions, max_positions,
                                                           dtype=torch.bool)))

    def forward(self, input_ids, *past):
        seq, past_length = input_ids.size(1), past[0].size(2)
        position_ids = torch.arange(past_length, past_length + seq, dtype=torch.long)
        h = self.wte(input_ids) + self.wpe(position_ids.unsqueeze(0))
        causal = self.bias[past_length:past_length + seq, :past_length + seq]
        presents = []
        for i, block in enumerate(self.blocks):
            h, key, value = block(h, causal, past[2 * i], past[2 * i + 1])
            presents += [key, value]
        return (self.lm_head(self.ln_f(h)),) + tuple(presents)


def decoder_case(module, vocab, layers, heads, head_dim, rng):
    """The Case of a decoder with past (GptPast's inputs and outputs): traced at batch 2,
    seq 3, past 5 (a traced empty past would fix the concatenations); run with an empty
    past (batch 1, seq 4, past 0), then one decoding step on that run's own presents
    (seq 1, past 4), then batch 2, seq 3 on a random past of 7. Checks in PyTorch
    that the decoding step matches running the whole sequence at once."""
    past_names = [n for i in range(layers) for n in ("past_key_%d" % i, "past_value_%d" % i)]
    output_names = ["logits"] + [n.replace("past", "present") for n in past_names]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    axes.update({n: {0: "batch", 2: "past"} for n in past_names})
    axes.update({n: {0: "batch", 2: "past_plus_seq"} for n in output_names[1:]})

    def inputs(ids, past_arrays):
        return dict([("input_ids", ids)] + list(zip(past_names, past_arrays)))

    def random_past(batch, length):
        return [randn(rng, batch, heads, length, head_dim) for _ in past_names]

    vary_defaults(module).eval()
    ids = tokens(rng, vocab, 1, 5)
    first = inputs(ids[:, :4], random_past(1, 0))
    step = inputs(ids[:, 4:], torch_outputs(module, first)[1:])
    whole = torch_outputs(module, inputs(ids, random_past(1, 0)))[0][:, 4:]
    diff = float(np.abs(torch_outputs(module, step)[0] - whole).max())
    if diff > 1e-4:
        raise rt.Failure("PyTorch: a decoding step on the cache differs from the whole "
                         "sequence by %.3g; the model is wrong" % diff)
    print("  PyTorch: the decoding step on the cache matches the whole sequence "
          "(max |diff| %.3g)" % diff)
    return Case(module, output_names, axes,
                inputs(tokens(rng, vocab, 2, 3), random_past(2, 5)),
                [("batch 1, seq 4, past 0 (empty)", first),
                 ("batch 1, seq 1, past 4 (run0's presents)", step),
                 ("batch 2, seq 3, past 7", inputs(tokens(rng, vocab, 2, 3), random_past(2, 7)))])


def gpt_past():
    torch.manual_seed(24)
    return decoder_case(GptPast(), 50, 2, 4, 8, np.random.default_rng(24))


class HfGpt2Past(nn.Module):
    """transformers.GPT2LMHeadModel with the legacy cache (a tuple of (key, value) per
    layer) flattened into past_key_<i>, past_value_<i> inputs and present_ outputs."""

    def __init__(self, transformers, layers):
        super().__init__()
        config = transformers.GPT2Config(vocab_size=100, n_positions=64, n_embd=32,
                                         n_layer=layers, n_head=4)
        config._attn_implementation = "eager"
        self.model = transformers.GPT2LMHeadModel(config)
        self.layers = layers

    def forward(self, input_ids, *past):
        import export_gpt2  # the cache as each transformers version takes and gives it
        cache = export_gpt2.make_cache([(past[2 * i], past[2 * i + 1])
                                        for i in range(self.layers)])
        out = self.model(input_ids=input_ids, past_key_values=cache, use_cache=True,
                         return_dict=True)
        return (out.logits,) + export_gpt2.flatten_cache(out.past_key_values)


def hf_gpt2_past(transformers):
    torch.manual_seed(25)
    return decoder_case(HfGpt2Past(transformers, 2), 100, 2, 4, 8, np.random.default_rng(25))


MODELS = {
    "bert_encoder": (bert_encoder, False, "BERT-style encoder written out (arange "
                     "positions, zeros_like token types, int64 attention mask); dynamic "
                     "batch, seq"),
    "hf_bert": (hf_bert, True, "transformers.BertModel, random init, eager attention; "
                "dynamic batch, seq"),
    "cnn_batch": (cnn_batch, False, "conv-bn-relu-maxpool-conv-relu-avgpool-flatten-linear; "
                  "dynamic batch"),
    "gpt_past": (gpt_past, False, "GPT-2-style decoder with a key/value cache, empty past "
                 "included; dynamic batch, seq, past"),
    "hf_gpt2_past": (hf_gpt2_past, True, "transformers.GPT2LMHeadModel with past_key_values, "
                     "empty past included; dynamic batch, seq, past"),
}

# ----------------------------------------------------------------------------------
# The ONNX file: its shape computation
# ----------------------------------------------------------------------------------


def onnx_graph(path):
    """([(op_type, [input names], [output names])] of the top-level nodes, the names of
    the initializers) of an ONNX file: ModelProto.graph = 7, GraphProto.node = 1 and
    initializer = 5, NodeProto.input = 1, output = 2, op_type = 4, TensorProto.name = 8
    (see rt.onnx_summary)."""
    with open(path, "rb") as f:
        model = f.read()
    nodes, initializers = [], set()
    for number, _, graph in rt._fields(model):
        if number != 7:
            continue
        for n, _, value in rt._fields(graph):
            if n == 5:
                initializers.update(v.decode() for k, _, v in rt._fields(value) if k == 8)
            elif n == 1:
                fields = {1: [], 2: [], 4: []}
                for k, _, v in rt._fields(value):
                    if k in fields:
                        fields[k].append(v.decode())
                nodes.append(((fields[4] or [""])[0], fields[1], fields[2]))
    return nodes, initializers


def shape_computation(path):
    """(ops, consumers): the op types of the nodes that compute on sizes (a Shape node,
    or a node whose inputs are all such values or constants, at least one a size: what
    an importer has to carry out symbolically), and of the nodes that take such a value
    next to other data (a Reshape's shape, an Expand's, a Where's mask...)."""
    nodes, constants = onnx_graph(path)
    sizes, ops, consumers = set(), [], []
    for op, inputs, outputs in nodes:  # ONNX nodes are in topological order
        used = [i for i in inputs if i]  # "" is an omitted optional input
        if op == "Shape" or (any(i in sizes for i in used)
                             and all(i in sizes or i in constants for i in used)):
            sizes.update(outputs)
            ops.append(op)
        elif any(i in sizes for i in used):
            consumers.append(op)
        elif not used:  # Constant
            constants.update(outputs)
    return ops, consumers


# ----------------------------------------------------------------------------------
# One model through export, references, onnxruntime, import and run
# ----------------------------------------------------------------------------------


def describe(inputs):
    return ", ".join("%s %s %s" % (n, a.dtype, list(a.shape)) for n, a in inputs.items())


def export(case, onnx_path, opset):
    """torch.onnx.export with the dynamic axes; prints the export's ops and the tracer's
    warnings (each one a place where the trace may have fixed a size)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # Not under no_grad, as tools/pytorch_zoo.py (no fused fast paths).
        torch.onnx.export(case.module, tuple(to_tensor(a) for a in case.export_inputs.values()),
                          onnx_path, input_names=case.input_names,
                          output_names=case.output_names, dynamic_axes=case.dynamic_axes,
                          opset_version=opset, do_constant_folding=True, **rt.EXPORT_EXTRA)
    opsets, ops = rt.onnx_summary(onnx_path)
    print("  exported %s (opset %s), traced at %s: %d nodes: %s" % (
        onnx_path, ", ".join("%s %d" % kv if kv[0] != "ai.onnx" else str(kv[1])
                             for kv in opsets.items()),
        describe(case.export_inputs), len(ops), rt.op_counts(ops)))
    shape_ops, consumers = shape_computation(onnx_path)
    print("  shape computation (from Shape and constants): %s" % (
        "%d nodes: %s" % (len(shape_ops), rt.op_counts(shape_ops)) if shape_ops else "none"))
    if consumers:
        print("  its values used by: " + rt.op_counts(consumers))
    tracer = sorted(set(str(w.message).split("\n")[0] for w in caught
                        if issubclass(w.category, torch.jit.TracerWarning)))
    for message in tracer:
        print("  tracer warning: " + message)


def write_runs(case, work):
    """Writes run<k>/inputs and run<k>/expected; returns the run folders and PyTorch's
    outputs of each run."""
    run_dirs, expected = [], []
    for k, (label, inputs) in enumerate(case.runs):
        run_dir = os.path.join(work, "run%d" % k)
        outputs = torch_outputs(case.module, inputs)
        if len(outputs) != len(case.output_names):
            raise rt.Failure("the module returns %d outputs, %d names given"
                             % (len(outputs), len(case.output_names)))
        for sub, names, arrays in (("inputs", case.input_names, inputs.values()),
                                   ("expected", case.output_names, outputs)):
            os.makedirs(os.path.join(run_dir, sub))
            for n, a in zip(names, arrays):
                np.save(os.path.join(run_dir, sub, n + ".npy"), a)
        print("  run%d: %s: %s -> %s" % (
            k, label, describe(inputs),
            ", ".join("%s %s" % (n, list(a.shape)) for n, a in zip(case.output_names, outputs))))
        run_dirs.append(run_dir)
        expected.append(outputs)
    return run_dirs, expected


def check_onnxruntime(case, onnx_path, expected, rtol, atol):
    """Runs the export with onnxruntime at every shape; True when it matches PyTorch,
    None when onnxruntime is not installed."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import onnxruntime
    except Exception:
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(onnx_path, options,
                                           providers=["CPUExecutionProvider"])
    print("  onnxruntime %s, one session, against PyTorch (rtol %g, atol %g):"
          % (onnxruntime.__version__, rtol, atol))
    ok = True
    for k, ((_, inputs), want) in enumerate(zip(case.runs, expected)):
        got = session.run(case.output_names, inputs)
        for n, g, w in zip(case.output_names, got, want):
            ok = rt.compare("run%d %s" % (k, n), np.asarray(g), w, rtol, atol) and ok
    return ok


def check_model(name, args, devices, transformers, result):
    """Fills result (status, error, failed_devices); returns True when everything
    matched; raises rt.Failure on a broken step."""
    build, needs_transformers, what = MODELS[name]
    print("%s: %s" % (name, what), flush=True)
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    case = build(transformers) if needs_transformers else build()
    case.module.eval()

    onnx_path = os.path.join(work, name + ".onnx")
    result["status"] = "export failed"
    export(case, onnx_path, args.opset)
    run_dirs, expected = write_runs(case, work)
    result["status"] = "onnxruntime differs"
    ort = check_onnxruntime(case, onnx_path, expected, args.rtol, args.atol)
    if ort is False:
        raise rt.Failure("onnxruntime does not reproduce PyTorch at every shape: "
                         "the export is wrong")
    if args.export_only:
        result["status"] = "exported" + (", onnxruntime matches" if ort else "")
        return True

    stem = os.path.join(work, "model")
    result["status"] = "import failed"
    try:
        printed = rt.run_tool([args.switchyard, "import", onnx_path, "-o", stem],
                              "switchyard import")
    except rt.Failure as e:
        result["error"] = str(e).split(":\n", 1)[-1]
        raise
    for line in printed.strip().splitlines():
        print("      " + line)

    ok = True
    result["status"] = "ran"
    for device in devices:
        command = [args.switchyard, "run", stem, "--device", device]
        for run_dir in run_dirs:
            command += ["--run-dir", run_dir]
        command += ["--rtol", repr(args.rtol), "--atol", repr(args.atol)]
        print("    $ " + " ".join(command), flush=True)
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True)
        for line in proc.stdout.strip().splitlines():
            print("      " + line)
        if proc.returncode == 0:
            print("  Switchyard on %s: all %d runs match (rtol %g, atol %g)"
                  % (device, len(run_dirs), args.rtol, args.atol))
        else:
            print("  FAILED: switchyard run on %s (exit %d)" % (device, proc.returncode))
            result.setdefault("failed_devices", []).append(device)
            ok = False
    result["status"] = "pass" if ok else "mismatch"
    return ok


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Exit 0: all match; 1: a mismatch or failure; 77: PyTorch is not installed.")
    parser.add_argument("--switchyard",
                        default=os.path.join(root, "build", "release", "bin", "switchyard"),
                        help="the switchyard binary (default: build/release/bin/switchyard)")
    parser.add_argument("--work", help="folder for the .onnx files, run folders and imported "
                        "models (default: a temporary folder, removed on success)")
    parser.add_argument("--device", action="append",
                        help="device to run on; repeatable or a comma list, one session each "
                        "(default: cpu,cpu-ref)")
    parser.add_argument("--only", action="append",
                        help="only these models (repeatable or a comma list): "
                        + ", ".join(MODELS))
    parser.add_argument("--list", action="store_true", help="list the models and exit")
    parser.add_argument("--opset", type=int, default=17,
                        help="ONNX opset for torch.onnx.export (default 17)")
    parser.add_argument("--export-only", action="store_true",
                        help="export, write the run folders and check with onnxruntime; "
                        "no switchyard")
    parser.add_argument("--rtol", type=float, default=1e-3, help="default 1e-3")
    parser.add_argument("--atol", type=float, default=1e-4, help="default 1e-4")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    def split(items):
        return [x for item in items or [] for x in item.split(",") if x]

    if args.list:
        for name, (_, _, what) in MODELS.items():
            print("%-13s %s" % (name, what))
        return 0
    names = split(args.only) or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error("unknown model %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    if not (args.rtol >= 0 and args.atol >= 0):
        parser.error("--rtol and --atol must be 0 or more")
    devices = split(args.device) or ["cpu", "cpu-ref"]
    if not args.export_only:
        if not os.path.exists(args.switchyard):
            print("error: no switchyard binary at %s (build it, or pass --switchyard PATH)"
                  % args.switchyard)
            return 1
        try:
            if not rt.has_import_command(args.switchyard):
                print("error: %s has no `import` command" % args.switchyard)
                return 1
        except rt.Failure as e:
            print("error: %s" % e)
            return 1
    transformers = None
    if any(MODELS[n][1] for n in names):
        transformers = import_transformers()
    temporary = args.work is None
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="sy-pytorch-dynamic-"))
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(1)
    print("PyTorch %s (%s), NumPy %s%s, transformers %s; opset %d; devices %s; "
          "work folder %s" % (
              torch.__version__, sys.executable, np.__version__,
              "" if NUMPY_BRIDGE else " (no torch bridge: arrays copied by bytes)",
              transformers.__version__ if transformers else "not installed", args.opset,
              "none (--export-only)" if args.export_only else ", ".join(devices), args.work),
          flush=True)

    results, failed, skipped = {}, [], []
    for name in names:
        result = results[name] = {"status": "error"}
        if MODELS[name][1] and transformers is None:
            print("%s: skipped: the transformers package is not installed" % name)
            result["status"] = "skipped (no transformers)"
            skipped.append(name)
            continue
        try:
            ok = check_model(name, args, devices, transformers, result)
        except rt.Failure as e:
            print("  FAILED: %s" % e)
            ok = False
        except Exception as e:  # a torch export error, a bad file: report, go on
            print("  FAILED: %s: %s" % (type(e).__name__, e))
            result.setdefault("error", "%s: %s" % (type(e).__name__, e))
            ok = False
        if not ok:
            failed.append(name)
        sys.stdout.flush()

    print("\nsummary:")
    for name in names:
        r = results[name]
        print("  %-13s %s%s" % (name, r["status"],
                                "; failed on " + ", ".join(r["failed_devices"])
                                if r.get("failed_devices") else ""))
        if r.get("error"):
            print("    error: " + r["error"].replace("\n", "\n           "))
    ran = len(names) - len(skipped)
    what = "export" if args.export_only else "on " + ", ".join(devices)
    print("%d of %d models match (%s)%s%s" % (
        ran - len(failed), ran, what, "; failed: " + ", ".join(failed) if failed else "",
        "; skipped: %s (no transformers)" % ", ".join(skipped) if skipped else ""))
    if temporary and not failed and not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    elif temporary:
        print("kept %s" % args.work)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
