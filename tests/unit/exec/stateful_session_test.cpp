// Sessions with decoding state (docs/decoding.md). The model appends each run's rows x
// [1, n, 2] to a state k [1, 4, 2] (capacity 4) with cache_write at the position the
// session fills, and returns the sum of k over its rows: since unwritten rows are zero,
// every output is the running sum of all rows passed since the last Reset, which the
// tests compute by hand.
#include <gtest/gtest.h>

#include "exec/cpu_host_suite.h"
#include "exec/state_store.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

// `seq` is "1" (a static graph) or "\"seq\"" (a run-time size).
std::string AppendingGraph(const std::string& seq) {
  const std::string symbols = seq == "1" ? "" : R"("symbols": [{"name": "seq", "example": 2}],)";
  return R"({"format": "rml-graph", "version": 1, )" + symbols + R"(
    "values": [
      {"name": "x", "dtype": "f32", "shape": [1, )" +
         seq + R"(, 2]},
      {"name": "pos", "dtype": "i64", "shape": []},
      {"name": "k", "dtype": "f32", "shape": [1, 4, 2]},
      {"name": "k_next", "dtype": "f32", "shape": [1, 4, 2]},
      {"name": "sum", "dtype": "f32", "shape": [1, 2]}
    ],
    "inputs": [0, 1, 2], "outputs": [4, 3],
    "nodes": [
      {"op": "cache_write", "inputs": [2, 0, 1], "outputs": [3], "attrs": {"axis": 1}},
      {"op": "reduce_sum", "inputs": [3], "outputs": [4], "attrs": {"axes": [1], "keepdims": 0}}
    ],
    "state": {"values": [{"input": 2, "output": 3, "axis": 1}], "position": 1,
              "advance": {"input": 0, "axis": 1}}})";
}

class StatefulSessionTest : public test::CpuHostSuite<> {
 protected:
  static std::unique_ptr<Session> Create(const std::string& json, const char* device = "cpu") {
    Expected<Graph> graph = ParseGraphJson(json, nullptr);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    if (!graph.ok()) return nullptr;
    Status valid = ValidateGraphTypes(*graph);
    EXPECT_TRUE(valid.ok()) << valid.ToString();
    PlanOptions options;
    options.devices = {*host_->FindDevice(device)};
    Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *host_, options);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // x [1, rows.size() / 2, 2] holding `rows`.
  static std::map<std::string, Tensor> X(const std::vector<float>& rows) {
    Tensor x = *Tensor::Allocate(DType::kF32, {1, static_cast<int64_t>(rows.size() / 2), 2});
    std::copy(rows.begin(), rows.end(), x.mutable_values<float>().begin());
    return {{"x", x}};
  }

  static void ExpectSum(Session& s, const std::vector<float>& rows, float a, float b) {
    Expected<std::map<std::string, Tensor>> out = s.Run(X(rows));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->count("k_next"), 0u) << "the state is not a result";
    const Tensor& sum = out->at("sum");
    EXPECT_EQ(sum.values<float>()[0], a);
    EXPECT_EQ(sum.values<float>()[1], b);
  }
};

TEST_F(StatefulSessionTest, AppendsAcrossRunsInPlaceOnTheDevice) {
  std::unique_ptr<Session> s = Create(AppendingGraph("1"));
  ASSERT_TRUE(s && s->has_state());
  EXPECT_EQ(s->input_names(),
            std::vector<std::string>{"x"});  // state and position are the session's
  EXPECT_EQ(s->state_capacity(), 4);
  ASSERT_EQ(s->plan().states.size(), 1u);
  EXPECT_TRUE(s->plan().states[0].in_place);         // cpu writes cache_write in place
  EXPECT_EQ(s->plan().memory[0].state_bytes, 256u);  // 32 bytes, aligned
  const uint64_t allocations = s->stats().buffer_allocations;
  ExpectSum(*s, {1, 2}, 1, 2);
  ExpectSum(*s, {10, 20}, 11, 22);
  ExpectSum(*s, {100, 200}, 111, 222);
  EXPECT_EQ(s->state_length(), 3);
  EXPECT_EQ(s->stats().buffer_allocations, allocations);  // a run allocates nothing
}

TEST_F(StatefulSessionTest, RunningPastTheCapacityIsAnErrorThatChangesNothing) {
  std::unique_ptr<Session> s = Create(AppendingGraph("1"), "cpu-ref");
  ASSERT_TRUE(s);
  for (int i = 1; i <= 4; ++i) ExpectSum(*s, {1, 1}, static_cast<float>(i), static_cast<float>(i));
  SY_EXPECT_ERROR(s->Run(X({1, 1})),
                  "this run adds 1 positions to the 4 the state holds, past its capacity of 4 "
                  "(state 'k' f32 [1, 4, 2], axis 1); Reset() starts a new sequence");
  EXPECT_EQ(s->state_length(), 4);
  SY_ASSERT_OK(s->Reset());
  EXPECT_EQ(s->state_length(), 0);
  ExpectSum(*s, {5, 6}, 5, 6);  // a new sequence: the old rows are gone
}

TEST_F(StatefulSessionTest, StateAndPositionAreNotTheCallersToPass) {
  std::unique_ptr<Session> s = Create(AppendingGraph("1"));
  ASSERT_TRUE(s);
  std::map<std::string, Tensor> inputs = X({1, 2});
  inputs["k"] = *Tensor::Allocate(DType::kF32, {1, 4, 2});
  SY_EXPECT_ERROR(s->Run(inputs), "input \"k\" is decoding state: the session keeps it");
  inputs = X({1, 2});
  inputs["pos"] = *Tensor::Allocate(DType::kI64, {});
  SY_EXPECT_ERROR(s->Run(inputs), "input \"pos\" is the state's position");
  SY_EXPECT_ERROR(s->Run({}), "missing input \"x\" (its size along axis 1 is the number of");
  EXPECT_EQ(s->state_length(), 0);
  ExpectSum(*s, {3, 4}, 3, 4);
}

TEST_F(StatefulSessionTest, SessionsKeepTheirOwnState) {
  std::unique_ptr<Session> a = Create(AppendingGraph("1"));
  std::unique_ptr<Session> b = Create(AppendingGraph("1"));
  ASSERT_TRUE(a && b);
  ExpectSum(*a, {1, 1}, 1, 1);
  ExpectSum(*a, {1, 1}, 2, 2);
  ExpectSum(*b, {7, 8}, 7, 8);
  EXPECT_EQ(a->state_length(), 2);
  EXPECT_EQ(b->state_length(), 1);
}

// A prompt of three rows, then one row a run: two specialisations (seq 3 and seq 1) of one
// dynamic session bind the same state.
TEST_F(StatefulSessionTest, SpecializationsShareOneState) {
  std::unique_ptr<Session> s = Create(AppendingGraph("\"seq\""));
  ASSERT_TRUE(s && s->dynamic());
  ExpectSum(*s, {1, 2, 3, 4, 5, 6}, 9, 12);
  ExpectSum(*s, {10, 10}, 19, 22);
  EXPECT_EQ(s->state_length(), 4);
  SY_EXPECT_ERROR(s->Run(X({1, 1})), "past its capacity of 4");
  SY_ASSERT_OK(s->Reset());
  ExpectSum(*s, {1, 1, 2, 2}, 3, 3);
}

// Device tensors bound to a stateful, dynamic session: the advance input's shape comes from
// the device tensor, and state and position stay the session's.
TEST_F(StatefulSessionTest, BoundDeviceTensorsAdvanceTheState) {
  std::unique_ptr<Session> s = Create(AppendingGraph("\"seq\""));
  ASSERT_TRUE(s);
  const Device& cpu = **host_->FindDevice("cpu");
  IoBinding io;
  io.BindInput("x", *DeviceTensor::FromHost(cpu, X({1, 2, 3, 4}).at("x")));
  io.BindOutput("sum", cpu);
  SY_ASSERT_OK(s->Run(io));
  EXPECT_EQ(s->state_length(), 2);
  Expected<Tensor> sum = io.device_outputs().at("sum").ToHost();
  SY_ASSERT_OK(sum);
  EXPECT_EQ(sum->values<float>()[0], 4);
  EXPECT_EQ(sum->values<float>()[1], 6);
  io.BindInput("x", *DeviceTensor::FromHost(cpu, X({10, 20}).at("x")));
  SY_ASSERT_OK(s->Run(io));
  EXPECT_EQ(s->state_length(), 3);
  sum = io.device_outputs().at("sum").ToHost();
  SY_ASSERT_OK(sum);
  EXPECT_EQ(sum->values<float>()[0], 14);
  EXPECT_EQ(sum->values<float>()[1], 26);
  io.BindInput("k", *DeviceTensor::Allocate(cpu, {DType::kF32, {1, 4, 2}}));
  SY_EXPECT_ERROR(s->Run(io), "input \"k\" is decoding state");
  io.ClearInputs();
  io.BindInput("x", *DeviceTensor::FromHost(cpu, X({1, 1, 1, 1}).at("x")));
  SY_EXPECT_ERROR(s->Run(io), "past its capacity of 4");
  EXPECT_EQ(s->state_length(), 3);
  EXPECT_TRUE(io.device_outputs().empty());
}

// A specialisation's nodes that read a state already kept on a device get that device as
// their hint (StateStore::PinReaders), so that no later plan puts them elsewhere.
TEST_F(StatefulSessionTest, LaterSpecializationsReadTheStateWhereItIsKept) {
  Expected<Graph> graph = ParseGraphJson(AppendingGraph("\"seq\""), nullptr);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  StateStore store(*graph);
  Graph unpinned = *graph;
  store.PinReaders(unpinned);  // nothing is kept anywhere yet
  EXPECT_EQ(unpinned.nodes[0].backend, "");
  const Device& cpu_ref = **host_->FindDevice("cpu-ref");
  ASSERT_TRUE(store.BufferFor(0, cpu_ref).ok());
  Graph pinned = *graph;
  pinned.nodes[1].backend = "cpu";  // a hint of its own stays
  store.PinReaders(pinned);
  EXPECT_EQ(pinned.nodes[0].backend, cpu_ref.Spec());  // cache_write reads k
  EXPECT_EQ(pinned.nodes[1].backend, "cpu");           // reduce_sum reads k_next

  // In a session: the state is kept where the first plan put its reader (cpu-ref, the
  // first device), and a second specialisation's cache_write is placed there by hint.
  PlanOptions options;
  options.devices = {&cpu_ref, *host_->FindDevice("cpu")};
  Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *host_, options);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectSum(**s, {1, 2, 3, 4, 5, 6}, 9, 12);
  ExpectSum(**s, {10, 10}, 19, 22);  // seq 1: a new specialisation
  const Plan& plan = (*s)->plan();
  EXPECT_EQ(plan.devices[plan.nodes[0].device], &cpu_ref);
  EXPECT_EQ(plan.nodes[0].reason, PlacementReason::kHint);
}

// State whose next contents no cache_write produces (k_next = k + x, broadcast): the
// session copies the output back after each run.
TEST_F(StatefulSessionTest, StateNotWrittenInPlaceIsCopiedBack) {
  const std::string json = R"({"format": "rml-graph", "version": 1,
    "values": [
      {"name": "x", "dtype": "f32", "shape": [1, 1, 2]},
      {"name": "k", "dtype": "f32", "shape": [1, 4, 2]},
      {"name": "k_next", "dtype": "f32", "shape": [1, 4, 2]},
      {"name": "sum", "dtype": "f32", "shape": [1, 2]}
    ],
    "inputs": [0, 1], "outputs": [3, 2],
    "nodes": [
      {"op": "add", "inputs": [1, 0], "outputs": [2]},
      {"op": "reduce_sum", "inputs": [2], "outputs": [3], "attrs": {"axes": [1], "keepdims": 0}}
    ],
    "state": {"values": [{"input": 1, "output": 2, "axis": 1}], "advance": {"input": 0, "axis": 1}}})";
  std::unique_ptr<Session> s = Create(json);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->plan().states.size(), 1u);
  EXPECT_FALSE(s->plan().states[0].in_place);
  ExpectSum(*s, {1, 2}, 4, 8);   // k = 4 rows of [1, 2]
  ExpectSum(*s, {1, 1}, 8, 12);  // k = 4 rows of [2, 3]
}

// The toy decoder of tools/make_toy_decoder.py: greedy decoding through the session's
// state reproduces the NumPy reference (which recomputes the whole sequence each step,
// no cache); after Reset the same prompt gives the same tokens; and the prompt run one
// token at a time leaves the same state as the prompt in one run.
TEST_F(StatefulSessionTest, ToyDecoderMatchesNumpyAndResetStartsOver) {
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
  SY_ASSERT_OK(graph);
  PlanOptions options;
  options.devices = {*host_->FindDevice("cpu")};
  Expected<std::unique_ptr<Session>> made = Session::Create(*graph, *host_, options);
  SY_ASSERT_OK(made);
  Session& s = **made;
  const auto ids = [](std::vector<int64_t> v) {
    Tensor t = *Tensor::Allocate(DType::kI64, {1, static_cast<int64_t>(v.size())});
    std::copy(v.begin(), v.end(), t.mutable_values<int64_t>().begin());
    return std::map<std::string, Tensor>{{"input_ids", t}};
  };
  // The argmax of the last row of the logits (the first on ties).
  const auto next = [&](std::vector<int64_t> v) -> int64_t {
    Expected<std::map<std::string, Tensor>> out = s.Run(ids(std::move(v)));
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return -1;
    std::span<const float> row = out->at("logits").values<float>().last(16);
    return std::max_element(row.begin(), row.end()) - row.begin();
  };
  const auto decode = [&](std::vector<int64_t> prompt, bool one_at_a_time) {
    std::vector<int64_t> tokens;
    if (one_at_a_time) {
      for (size_t i = 0; i + 1 < prompt.size(); ++i) next({prompt[i]});
      tokens.push_back(next({prompt.back()}));
    } else {
      tokens.push_back(next(prompt));
    }
    while (tokens.size() < 12) tokens.push_back(next({tokens.back()}));
    return tokens;
  };
  const std::vector<int64_t> expected = {14, 1,  7,  2,  10, 10,
                                         10, 10, 10, 10, 10, 10};  // greedy_1_2_3.txt
  EXPECT_EQ(decode({1, 2, 3}, false), expected);
  EXPECT_EQ(s.state_length(), 14);
  SY_ASSERT_OK(s.Reset());
  EXPECT_EQ(decode({1, 2, 3}, false), expected);
  SY_ASSERT_OK(s.Reset());
  EXPECT_EQ(decode({1, 2, 3}, true), expected);
}

// A graph built in code is checked by Session::Create as the reader checks a file.
TEST_F(StatefulSessionTest, CreateChecksStateOfAGraphBuiltInCode) {
  Expected<Graph> graph = ParseGraphJson(AppendingGraph("1"), nullptr);
  SY_ASSERT_OK(graph);
  graph->state.values[0].axis = 7;
  PlanOptions options;
  options.devices = {*host_->FindDevice("cpu")};
  SY_EXPECT_ERROR(Session::Create(*graph, *host_, options),
                  "state.values[0]: axis 7 is not an axis of f32 [1, 4, 2]");
}

TEST(StatefulSessionFormat, StateIsCheckedAgainstTheGraph) {
  const std::string good = AppendingGraph("1");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string json = good;
    const size_t at = json.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return json.replace(at, from.size(), to);
  };
  SY_EXPECT_ERROR(
      ParseGraphJson(with(R"("input": 2, "output": 3)", R"("input": 3, "output": 3)"), nullptr),
      "state.values[0]: input 3 is not a graph input");
  SY_EXPECT_ERROR(
      ParseGraphJson(with(R"("input": 2, "output": 3)", R"("input": 2, "output": 2)"), nullptr),
      "state.values[0]: output 2 is not a graph output");
  SY_EXPECT_ERROR(
      ParseGraphJson(with(R"("output": 3, "axis": 1)", R"("output": 3, "axis": 3)"), nullptr),
      "state.values[0]: axis 3 is not an axis of f32 [1, 4, 2]");
  SY_EXPECT_ERROR(ParseGraphJson(with(R"("position": 1)", R"("position": 0)"), nullptr),
                  "state.position: value 0 \"x\" is f32 [1, 1, 2] (expected i32 or i64 of "
                  "shape [] or [1])");
  SY_EXPECT_ERROR(ParseGraphJson(with(R"("advance": {"input": 0, "axis": 1})",
                                      R"("advance": {"input": 2, "axis": 1})"),
                                 nullptr),
                  "state.advance: value 2 is not a graph input other than the state and "
                  "position inputs");
  SY_EXPECT_ERROR(ParseGraphJson(with(R"("axis": 1}}})", R"("axis": 1}, "extra": 1}})"), nullptr),
                  "state");
  // Written and read back: the same state.
  Expected<Graph> g = ParseGraphJson(good, nullptr);
  SY_ASSERT_OK(g);
  Expected<std::string> text = SerializeGraphJson(*g);
  SY_ASSERT_OK(text);
  Expected<Graph> again = ParseGraphJson(*text, nullptr);
  SY_ASSERT_OK(again);
  ASSERT_EQ(again->state.values.size(), 1u);
  EXPECT_EQ(again->state.values[0].input, 2);
  EXPECT_EQ(again->state.values[0].output, 3);
  EXPECT_EQ(again->state.values[0].axis, 1);
  EXPECT_EQ(again->state.position, 1);
  EXPECT_EQ(again->state.advance_input, 0);
  EXPECT_EQ(again->state.advance_axis, 1);
  EXPECT_TRUE(again->state.end_tokens.empty());
  // End tokens (a model's EOS ids): read, written back, and checked.
  const std::string ends = with(R"("position": 1)", R"("position": 1, "end_tokens": [2, 7])");
  Expected<Graph> e = ParseGraphJson(ends, nullptr);
  SY_ASSERT_OK(e);
  EXPECT_EQ(e->state.end_tokens, (std::vector<int64_t>{2, 7}));
  Expected<std::string> e_text = SerializeGraphJson(*e);
  SY_ASSERT_OK(e_text);
  Expected<Graph> e_again = ParseGraphJson(*e_text, nullptr);
  SY_ASSERT_OK(e_again);
  EXPECT_EQ(e_again->state.end_tokens, (std::vector<int64_t>{2, 7}));
  SY_EXPECT_ERROR(
      ParseGraphJson(with(R"("position": 1)", R"("position": 1, "end_tokens": [-1])"), nullptr),
      "state.end_tokens[0] is -1, expected a token id (an integer >= 0)");
  SY_EXPECT_ERROR(
      ParseGraphJson(with(R"("position": 1)", R"("position": 1, "end_tokens": 2)"), nullptr),
      "state.end_tokens is a number, expected an array");
}

}  // namespace
}  // namespace sy
