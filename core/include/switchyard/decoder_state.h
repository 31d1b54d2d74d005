// Decoder-with-past graphs turned into graphs with decoding state (docs/decoding.md,
// "Importing decoders with past").
#pragma once

#include <cstdint>
#include <string>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

// Rewrites a graph in the decoder-with-past form of exporters (each layer's key and value
// cache a graph input [batch, heads, past, head_dim] that a Concat along the past axis
// extends into a graph output, `past` a symbol) so that the session keeps the caches:
// - each such Concat becomes a cache_write into its past input, now a state value of
//   `capacity` positions, at a new input `cache_position` (i64 []) the session fills;
// - every dim equal to past + seq (the key length) becomes the capacity;
// - what reads `past` itself is computed from cache_position: a range starting at past
//   (position ids) becomes range(0, n) + cache_position, a slice of rows [past, past + n)
//   (the rows of a causal mask) a gather of those rows; a slice of columns [0, past + n)
//   takes the whole capacity, whose columns past the query's position the mask hides;
// - a symbolic batch becomes `batch`; the advance input (what each run adds) is
//   `advance_input`.
// Errors name the node that reads `past` in a way not converted, or what is missing; on
// an error `graph` is left as it was.
struct DecoderStateOptions {
  int64_t capacity = 0;  // positions each sequence's state holds: 1 to 2^30
  int64_t batch = 1;     // sequences decoded at once (a symbolic batch's size): 1 to 4096
  // The exporters' names (optimum's and transformers' convention): the token ids each
  // run adds ([batch, seq]), and the position input the conversion adds.
  std::string advance_input = "input_ids";
  std::string position_input = "cache_position";
};
Status AddDecoderState(Graph& graph, const DecoderStateOptions& options);
// The same with every option but the capacity at its default.
Status AddDecoderState(Graph& graph, int64_t capacity);

}  // namespace sy
