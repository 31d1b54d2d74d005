#!/usr/bin/env bash
# `switchyard import` end to end on public ONNX models (Debian's libonnx-testdata): a
# model imported, checked and run with the result compared against the ONNX data set's
# expected output; and the errors: missing file, not protobuf, truncated, unmappable ops,
# symbolic dims, an input needed at import time, bad arguments.
# Usage: import_test.sh SWITCHYARD SOURCE_DIR. Exits 77 (skipped) without the test data.
set -u
sy=$1
source "$2/tests/cli/expect.sh"
data=/usr/include/onnx/backend/test/data
if [ ! -d "$data/node" ]; then
  echo "import_test: skipped: no ONNX test data at $data (install libonnx-testdata)"
  exit 77
fi
py=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import numpy' 2>/dev/null; then py=$candidate; break; fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A convolution with strides and padding (one Conv node, inputs x and W).
conv=$data/node/test_conv_with_strides_padding
expect import_conv 0 'imported .*opset 11.*1 catalogue nodes' -- \
  "$sy" import "$conv/model.onnx" -o "$work/conv"
expect check_conv 0 'ok: 3 values, 1 nodes' -- "$sy" check "$work/conv"
expect import_json 0 '"onnx_nodes":1' -- "$sy" import "$conv/model.onnx" -o "$work/conv2" --json

# A real network from PyTorch (pytorch-converted/test_Conv2d): weights become constants.
expect import_pytorch_conv2d 0 'imported .* constants \([0-9]+ bytes\)' -- \
  "$sy" import "$data/pytorch-converted/test_Conv2d/model.onnx" -o "$work/torch_conv2d"

# Run the imported conv and compare with the data set's expected output (the TensorProto
# files hold float32 raw_data, which a few lines of Python turn into .npy).
if [ -n "$py" ]; then
  "$py" - "$conv/test_data_set_0" "$work" <<'PYEOF'
import sys, numpy as np
# TensorProto fields used by this data: dims (1, varint), data_type (2), name (8),
# raw_data (9). A minimal protobuf reader, enough for these files.
def read(path):
    b = open(path, 'rb').read(); i = 0; dims = []; raw = b''; name = ''
    def varint():
        nonlocal i
        v = s = 0
        while True:
            c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
            if c < 0x80: return v
    while i < len(b):
        key = varint(); field, wire = key >> 3, key & 7
        if wire == 0:
            v = varint()
            if field == 1: dims.append(v)
        elif wire == 2:
            n = varint(); chunk = b[i:i + n]; i += n
            if field == 1:  # packed dims
                j = 0
                while j < len(chunk):
                    v = s = 0
                    while True:
                        c = chunk[j]; j += 1; v |= (c & 0x7f) << s; s += 7
                        if c < 0x80: break
                    dims.append(v)
            elif field == 8: name = chunk.decode()
            elif field == 9: raw = chunk
        else:
            raise SystemExit('unexpected wire type %d' % wire)
    return name, np.frombuffer(raw, dtype=np.float32).reshape(dims)
import os
d, work = sys.argv[1], sys.argv[2]
os.makedirs(work + '/expected', exist_ok=True)
for f in ['input_0', 'input_1', 'output_0']:
    name, a = read(d + '/' + f + '.pb')
    np.save(work + ('/expected/' + name if f == 'output_0' else '/' + f) + '.npy', a)
PYEOF
  expect run_conv_matches_onnx 0 'y: .*match' -- \
    "$sy" run "$work/conv" --device cpu-ref --input "x=$work/input_0.npy" \
    --input "W=$work/input_1.npy" --compare "$work/expected"
fi

# Errors.
expect missing_file 1 'no such file' -- "$sy" import "$work/absent.onnx" -o "$work/x"
expect decoder_batch_alone 2 '--decoder-batch needs --decoder-state' -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --decoder-batch 2
expect end_tokens_alone 2 '--end-tokens needs --decoder-state' -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --end-tokens 2
expect end_tokens_malformed 2 '--end-tokens: "x" is not a token id' -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --decoder-state 8 --end-tokens 2,x
# A decoder-state import of a model that is not a decoder: the reason, not a crash.
expect decoder_state_not_a_decoder 1 'no input "input_ids"' -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --decoder-state 8
printf 'not a model\n' >"$work/text.onnx"
expect not_protobuf 1 'not an ONNX model' -- "$sy" import "$work/text.onnx" -o "$work/x"
head -c 100 "$data/pytorch-converted/test_Conv2d/model.onnx" >"$work/truncated.onnx"
expect truncated 1 'not an ONNX model|does not parse' -- "$sy" import "$work/truncated.onnx" -o "$work/x"
expect unmappable 1 "cannot map onto the catalogue: StringNormalizer" -- \
  "$sy" import "$data/node/test_strnormalizer_nostopwords_nochangecase/model.onnx" -o "$work/x"
# A size decided by data (docs/dynamic-shapes.md): NonZero's count is a data symbol.
expect import_nonzero 0 'imported .*2 catalogue nodes' -- \
  "$sy" import "$data/node/test_nonzero_example/model.onnx" -o "$work/nonzero"
expect check_nonzero 0 'run-time sizes: result_count \(e.g. 3\)' -- "$sy" check "$work/nonzero"
expect needs_value 1 "--input-value shape=FILE.npy" -- \
  "$sy" import "$data/node/test_reshape_reordered_all_dims/model.onnx" -o "$work/x"
expect no_output_arg 2 'expected -o STEM' -- "$sy" import "$conv/model.onnx"
expect bad_dim_expr_arg 2 "--dim-expr total: expected NAME=EXPR" -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --dim-expr total
expect dim_expr_of_no_dim 1 "no input dim of the model is named total" -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --dim-expr total=past+seq
expect bad_shape_arg 2 "--input-shape x=1,a: 'a' is not a non-negative integer" -- \
  "$sy" import "$conv/model.onnx" -o "$work/x" --input-shape x=1,a
expect input_shape_override 0 'imported' -- \
  "$sy" import "$conv/model.onnx" -o "$work/conv3" --input-shape x=2,1,7,5
expect input_shape_override_check 0 'x f32 \[2, 1, 7, 5\]' -- "$sy" check "$work/conv3"

echo "import_test: $passes passed, $failures failed"
[ "$failures" = 0 ]
