// Weight-only quantization of an rml-graph model (`switchyard quantize`, Python's
// switchyard.quantize; docs/quantize.md): each matmul (or gemm without trans_a) whose b is
// an f32, f16 or bf16 constant [K, N] (a gemm's [N, K] with trans_b) read by that node
// alone becomes a quant_matmul over b's transpose in blocks of `block_size` along K,
// rounded to nearest (docs/ops.md, quant_matmul), its scales in b's dtype. A gemm's alpha
// is folded into the weights before quantizing, its c (times beta, folded into c when c
// is a constant of its own) becomes an `add` after the quant_matmul. The graph is changed
// in place; what was not quantized is reported with the reason.
#pragma once

#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

struct QuantizeOptions {
  int64_t bits = 4;         // 4 or 8
  int64_t block_size = 32;  // a power of two from 16 to 256
  // Symmetric: scale = max |w| / (2^(bits-1) - 1) per block, no zero points (the default
  // zero point 2^(bits-1)). Asymmetric: the block's range (widened to hold 0) over
  // 2^bits - 1 codes, with a zero point per block.
  bool symmetric = false;
};

struct QuantizedLayer {
  size_t node = 0;                             // index into Graph::nodes (after the rewrite)
  int64_t k = 0, n = 0;                        // the weight's shape [K, N]
  double relative_rms = 0;                     // ||w - dequantized w|| / ||w||
  double max_abs_error = 0;                    // max |w - dequantized w|
  uint64_t bytes_before = 0, bytes_after = 0;  // b's bytes, and codes + scales + zero points
};

struct SkippedLayer {
  size_t node = 0;
  std::string reason;
};

struct QuantizeReport {
  std::vector<QuantizedLayer> quantized;
  std::vector<SkippedLayer> skipped;  // matmuls left as they were
};

// Rewrites `graph`'s eligible matmuls. Fails only on bad options; the caller validates
// the result (pass 2) before saving it.
Expected<QuantizeReport> QuantizeMatmulWeights(Graph& graph, const QuantizeOptions& options);

}  // namespace sy
