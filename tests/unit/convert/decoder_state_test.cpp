// AddDecoderState (switchyard/decoder_state.h): a graph in the decoder-with-past form of
// exporters becomes one with decoding state. The graph below has the patterns the
// converter handles, as gpt_past and transformers' GPT-2 export them: position ids
// range(past, past + seq); the rows [past, past + seq) of a causal mask, then its columns
// [0, past + seq) (the key length, read through dim() as transformers' export does); and
// a Concat of the past keys with the new ones. Expected values are derived by hand: the
// mask is lower-triangular ones, so its row r is 1 in columns 0..r.
#include <gtest/gtest.h>

#include "switchyard/decoder_state.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

std::string DecoderWithPast(const std::string& extra_node = "") {
  std::string bias = "[";
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) bias += std::string(r || c ? "," : "") + (c <= r ? "1" : "0");
  }
  bias += "]";
  return R"j({"format": "rml-graph", "version": 1,
    "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3},
                {"name": "past", "example": 5}],
    "values": [
      {"name": "input_ids", "dtype": "i64", "shape": ["batch", "seq"]},
      {"name": "past_k", "dtype": "f32", "shape": ["batch", 2, "past", 4]},
      {"name": "new_k", "dtype": "f32", "shape": ["batch", 2, "seq", 4]},
      {"name": "bias", "dtype": "f32", "shape": [16, 16]},
      {"name": "present_k", "dtype": "f32", "shape": ["batch", 2, "seq+past", 4]},
      {"name": "position_ids", "dtype": "i64", "shape": ["seq"]},
      {"name": "rows", "dtype": "f32", "shape": ["seq", 16]},
      {"name": "mask", "dtype": "f32", "shape": ["seq", "past+seq"]})j" +
         std::string(extra_node.empty() ? "" : R"j(,
      {"name": "extra", "dtype": "f32", "shape": ["past", 4]})j") +
         R"j(
    ],
    "inputs": [0, 1, 2], "outputs": [5, 7, 4)j" +
         std::string(extra_node.empty() ? "" : ", 8") + R"j(],
    "constants": [{"value": 3, "data": )j" +
         bias + R"j(}],
    "nodes": [
      {"op": "concat", "inputs": [1, 2], "outputs": [4], "attrs": {"axis": 2}},
      {"op": "range", "inputs": [], "outputs": [5], "attrs": {"delta": 1.0, "dtype": "i64"},
       "attr_exprs": {"start": "past", "limit": "past+seq"}},
      {"op": "slice", "inputs": [3], "outputs": [6], "attrs": {"axes": [0], "steps": [1]},
       "attr_exprs": {"starts": ["past"], "ends": ["past+seq"]}},
      {"op": "slice", "inputs": [6], "outputs": [7], "attrs": {"axes": [1], "starts": [0], "steps": [1]},
       "attr_exprs": {"ends": ["dim(4,2)"]}})j" +
         extra_node + R"j(
    ]})j";
}

TEST(DecoderState, ConvertsAndRunsAtEveryPosition) {
  Expected<Graph> graph = ParseGraphJson(DecoderWithPast(), nullptr);
  SY_ASSERT_OK(graph);
  SY_ASSERT_OK(ValidateGraphTypes(*graph));
  SY_ASSERT_OK(AddDecoderState(*graph, 8));
  ASSERT_EQ(graph->state.values.size(), 1u);
  const Value& past = graph->values[graph->state.values[0].input];
  EXPECT_EQ(past.name, "past_k");
  EXPECT_EQ(past.type.ToString(), "f32 [1, 2, 8, 4]");
  EXPECT_EQ(graph->values[graph->state.values[0].output].type.ToString(), "f32 [1, 2, 8, 4]");
  EXPECT_EQ(graph->values[graph->state.position].name, "cache_position");
  EXPECT_EQ(graph->values[graph->state.advance_input].name, "input_ids");
  EXPECT_EQ(ValueTypeString(graph->values[7]), "f32 [seq, 8]");  // the mask over the capacity
  ASSERT_EQ(graph->symbols.size(), 1u);
  EXPECT_EQ(graph->symbols[0].name, "seq");

  DiscoveryOptions discovery;
  discovery.scan_default_paths = false;
  discovery.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(discovery);
  SY_ASSERT_OK(host);
  PlanOptions options;
  options.devices = {*(*host)->FindDevice("cpu")};
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, **host, options);
  SY_ASSERT_OK(session);
  EXPECT_TRUE((*session)->plan().states[0].in_place);
  const auto run = [&](int64_t seq) {
    std::map<std::string, Tensor> in{{"input_ids", *Tensor::Allocate(DType::kI64, {1, seq})},
                                     {"new_k", *Tensor::Allocate(DType::kF32, {1, 2, seq, 4})}};
    Expected<std::map<std::string, Tensor>> out = (*session)->Run(in);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : std::map<std::string, Tensor>{};
  };
  // A prompt of 3: positions 0, 1, 2; mask rows 0..2 over 8 columns.
  std::map<std::string, Tensor> first = run(3);
  ASSERT_EQ(first.count("position_ids"), 1u);
  std::span<const int64_t> positions = first.at("position_ids").values<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(positions.begin(), positions.end()),
            (std::vector<int64_t>{0, 1, 2}));
  std::span<const float> mask = first.at("mask").values<float>();
  ASSERT_EQ(mask.size(), 24u);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 8; ++c) EXPECT_EQ(mask[r * 8 + c], c <= r ? 1.0f : 0.0f) << r << "," << c;
  }
  // One more token: position 3, mask row 3.
  std::map<std::string, Tensor> next = run(1);
  EXPECT_EQ(next.at("position_ids").values<int64_t>()[0], 3);
  std::span<const float> row = next.at("mask").values<float>();
  for (int c = 0; c < 8; ++c) EXPECT_EQ(row[c], c <= 3 ? 1.0f : 0.0f) << c;
  EXPECT_EQ((*session)->state_length(), 4);
}

// transformers 5 builds its padding mask by flattening attention_mask [batch, past + seq]
// to batch x (past + seq) entries and gathering at batch_index * (past + seq) + key_index,
// with past + seq read as a value. Sizes and values that read past only through the key
// length become the same polynomial at the capacity (KeyExtent); past itself stays a
// position.
TEST(DecoderState, SizesOfTheKeyLengthBecomeTheCapacity) {
  Expected<Graph> graph = ParseGraphJson(R"j({"format": "rml-graph", "version": 1,
    "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3},
                {"name": "past", "example": 5}],
    "values": [
      {"name": "input_ids", "dtype": "i64", "shape": ["batch", "seq"]},
      {"name": "attention_mask", "dtype": "f32", "shape": ["batch", "past+seq"]},
      {"name": "past_k", "dtype": "f32", "shape": ["batch", 2, "past", 4]},
      {"name": "new_k", "dtype": "f32", "shape": ["batch", 2, "seq", 4]},
      {"name": "present_k", "dtype": "f32", "shape": ["batch", 2, "seq+past", 4]},
      {"name": "flat", "dtype": "f32", "shape": ["batch*past+batch*seq", 1]},
      {"name": "stride", "dtype": "i64", "shape": [1]},
      {"name": "last", "dtype": "f32", "shape": ["batch", "past+seq-1"]}
    ],
    "inputs": [0, 1, 2, 3], "outputs": [4, 5, 6, 7],
    "nodes": [
      {"op": "concat", "inputs": [2, 3], "outputs": [4], "attrs": {"axis": 2}},
      {"op": "reshape", "inputs": [1], "outputs": [5],
       "attr_exprs": {"shape": ["dim(1,0)*dim(1,1)", 1]}},
      {"op": "range", "inputs": [], "outputs": [6], "attrs": {"delta": 1.0, "dtype": "i64"},
       "attr_exprs": {"start": "dim(1,1)", "limit": "dim(1,1)+1"}},
      {"op": "slice", "inputs": [1], "outputs": [7], "attrs": {"axes": [1], "starts": [0], "steps": [1]},
       "attr_exprs": {"ends": ["past+seq-1"]}}
    ]})j",
                                         nullptr);
  SY_ASSERT_OK(graph);
  SY_ASSERT_OK(ValidateGraphTypes(*graph));
  SY_ASSERT_OK(AddDecoderState(*graph, 8));
  EXPECT_EQ(ValueTypeString(graph->values[1]), "f32 [1, 8]");  // the mask over the capacity
  EXPECT_EQ(ValueTypeString(graph->values[5]), "f32 [8, 1]");  // batch x capacity
  EXPECT_EQ(ValueTypeString(graph->values[7]), "f32 [1, 7]");  // capacity - 1
  // The stride is the capacity as a value: range(8, 9).
  const Node& stride = graph->nodes[2];
  ASSERT_EQ(stride.op, "range");
  EXPECT_EQ(stride.attr_exprs.at("start").items[0].ToString(), "8");
  EXPECT_EQ(stride.attr_exprs.at("limit").items[0].ToString(), "9");
}

// --decoder-batch: the symbolic batch becomes B in the state and everywhere else.
TEST(DecoderState, ABatchOfSequences) {
  Expected<Graph> graph = ParseGraphJson(DecoderWithPast(), nullptr);
  SY_ASSERT_OK(graph);
  DecoderStateOptions options;
  options.capacity = 8;
  options.batch = 3;
  SY_ASSERT_OK(AddDecoderState(*graph, options));
  EXPECT_EQ(graph->values[graph->state.values[0].input].type.ToString(), "f32 [3, 2, 8, 4]");
  EXPECT_EQ(ValueTypeString(graph->values[0]), "i64 [3, seq]");
  Expected<Graph> other = ParseGraphJson(DecoderWithPast(), nullptr);
  SY_ASSERT_OK(other);
  options.batch = 0;
  SY_EXPECT_ERROR(AddDecoderState(*other, options), "--decoder-batch 0: expected 1 to 4096");
  options.batch = 1;
  options.advance_input = "tokens";
  SY_EXPECT_ERROR(AddDecoderState(*other, options), "the graph has no input \"tokens\"");
}

TEST(DecoderState, RefusesWhatItCannotConvert) {
  Expected<Graph> graph = ParseGraphJson(DecoderWithPast(), nullptr);
  SY_ASSERT_OK(graph);
  SY_EXPECT_ERROR(AddDecoderState(*graph, 0), "expected a capacity of 1 to 2^30 positions");
  // The past length read another way: a reshape to [past, 4].
  Expected<Graph> other = ParseGraphJson(DecoderWithPast(R"j(,
      {"op": "reshape", "inputs": [1], "outputs": [8], "attr_exprs": {"shape": ["past", 4]}})j"),
                                         nullptr);
  SY_ASSERT_OK(other);
  SY_EXPECT_ERROR(AddDecoderState(*other, 8),
                  "node 4 (reshape) reads past in a way that is not "
                  "converted");
  EXPECT_TRUE(other->state.empty());  // a refusal leaves the graph as it was
  EXPECT_EQ(other->nodes.size(), 5u);
  EXPECT_EQ(other->nodes[0].op, "concat");
  // No pair: the concat's output is not a graph output.
  Expected<Graph> none = ParseGraphJson(DecoderWithPast(), nullptr);
  SY_ASSERT_OK(none);
  none->outputs.pop_back();
  SY_EXPECT_ERROR(AddDecoderState(*none, 8), "no past/present pair found");
}

}  // namespace
}  // namespace sy
