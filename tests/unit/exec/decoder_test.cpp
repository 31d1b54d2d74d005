// Decoder (switchyard/decoder.h) on the toy decoder of tools/make_toy_decoder.py, whose
// tokens come from an independent NumPy reference (no cache, a causal mask, float64)
// stored next to the model: greedy_1_2_3.txt, and top_k4_t0.8_seed7_1_2_3.txt from the
// reference's own re-implementation of the generator and the sampler.
#include "switchyard/decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "exec/cpu_host_suite.h"
#include "switchyard/model_io.h"
#include "test_util.h"

namespace sy {
namespace {

std::vector<int64_t> ReadTokens(const std::string& file) {
  std::ifstream in(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/" + file);
  std::vector<int64_t> tokens;
  std::string item;
  while (std::getline(in, item, ',')) tokens.push_back(std::stoll(item));
  return tokens;
}

class DecoderTest : public test::CpuHostSuite<> {
 protected:
  void SetUp() override {
    Expected<Graph> graph =
        LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    PlanOptions options;
    options.devices = {&cpu()};
    Expected<std::unique_ptr<Session>> session = Session::Create(*graph, *host_, options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    session_ = std::move(*session);
  }

  static const Device& cpu() { return **host_->FindDevice("cpu"); }

  std::unique_ptr<Decoder> Make(const SamplerOptions& options = {}) {
    Expected<std::unique_ptr<Decoder>> decoder = Decoder::Create(*session_, cpu(), options);
    EXPECT_TRUE(decoder.ok()) << decoder.status().ToString();
    return decoder.ok() ? std::move(*decoder) : nullptr;
  }

  std::unique_ptr<Session> session_;
};

const std::vector<int64_t> kPrompt = {1, 2, 3};

TEST_F(DecoderTest, GreedyTokensEqualNumPys) {
  std::unique_ptr<Decoder> decoder = Make();
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(decoder->vocab(), 16);
  EXPECT_EQ(decoder->capacity(), 32);
  Expected<std::vector<int64_t>> tokens = decoder->Generate(kPrompt, 12);
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  EXPECT_EQ(*tokens, ReadTokens("greedy_1_2_3.txt"));
  EXPECT_EQ(decoder->length(), 3 + 11);  // the last token is picked, not run
}

TEST_F(DecoderTest, PrefillThenStepsEqualGenerate) {
  std::unique_ptr<Decoder> decoder = Make();
  ASSERT_NE(decoder, nullptr);
  const std::vector<int64_t> expected = ReadTokens("greedy_1_2_3.txt");
  Expected<int64_t> token = decoder->Prefill(kPrompt);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  std::vector<int64_t> tokens = {*token};
  while (tokens.size() < expected.size()) {
    token = decoder->Step(tokens.back());
    ASSERT_TRUE(token.ok()) << token.status().ToString();
    tokens.push_back(*token);
  }
  EXPECT_EQ(tokens, expected);
}

TEST_F(DecoderTest, SeededTopKEqualsTheReferenceAndResetRepeatsIt) {
  SamplerOptions options;
  options.method = "top-k";
  options.top_k = 4;
  options.temperature = 0.8;
  options.seed = 7;
  std::unique_ptr<Decoder> decoder = Make(options);
  ASSERT_NE(decoder, nullptr);
  const std::vector<int64_t> expected = ReadTokens("top_k4_t0.8_seed7_1_2_3.txt");
  Expected<std::vector<int64_t>> first = decoder->Generate(kPrompt, 12);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, expected);
  SY_ASSERT_OK(decoder->Reset());
  EXPECT_EQ(decoder->length(), 0);
  Expected<std::vector<int64_t>> again = decoder->Generate(kPrompt, 12);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, expected);
}

TEST_F(DecoderTest, ErrorsChangeNothing) {
  std::unique_ptr<Decoder> decoder = Make();
  ASSERT_NE(decoder, nullptr);
  Expected<int64_t> bad = decoder->Prefill(std::vector<int64_t>{1, 16});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "prompt token 16 is outside the vocabulary (0 to 15)");
  EXPECT_FALSE(decoder->Prefill(std::vector<int64_t>{}).ok());
  EXPECT_EQ(decoder->length(), 0);
  // 30 prompt tokens + 8 new need 37 positions of 32.
  Expected<std::vector<int64_t>> too_long = decoder->Generate(std::vector<int64_t>(30, 1), 8);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().message(),
            "the prompt's 30 tokens and 8 new ones need 37 positions, but the model's state "
            "holds 32");
  EXPECT_FALSE(decoder->Generate(kPrompt, 0).ok());
  EXPECT_EQ(decoder->length(), 0);
  // Fill the state, then a step past it fails and leaves the state as it was.
  ASSERT_TRUE(decoder->Prefill(std::vector<int64_t>(32, 1)).ok());
  Expected<int64_t> past = decoder->Step(1);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(decoder->length(), 32);
  Expected<std::vector<int64_t>> more = decoder->Generate(kPrompt, 1);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("has 0 of them free"), std::string::npos)
      << more.status().message();
  // After Reset the decoder is as new.
  SY_ASSERT_OK(decoder->Reset());
  Expected<std::vector<int64_t>> tokens = decoder->Generate(kPrompt, 12);
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  EXPECT_EQ(*tokens, ReadTokens("greedy_1_2_3.txt"));
}

TEST_F(DecoderTest, SamplerOptionsAreChecked) {
  SamplerOptions zero_temperature;
  zero_temperature.method = "temperature";
  zero_temperature.temperature = 0;
  Status status = CheckSamplerOptions(zero_temperature);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("temperature"), std::string::npos) << status.message();
  SamplerOptions unknown;
  unknown.method = "beam";
  EXPECT_FALSE(CheckSamplerOptions(unknown).ok());
  SamplerOptions cooled;  // greedy does not read a temperature
  cooled.temperature = 0.7;
  EXPECT_NE(CheckSamplerOptions(cooled).message().find("method greedy does not read it"),
            std::string::npos);
  SamplerOptions stray;  // top_k set while the method is greedy
  stray.top_k = 5;
  EXPECT_FALSE(Decoder::Create(*session_, cpu(), stray).ok());
  SY_EXPECT_OK(CheckSamplerOptions(SamplerOptions{}));
}

// The model's end tokens (state.end_tokens, its EOS ids): Generate stops after picking
// one, unless told not to; an end token outside the vocabulary is refused.
TEST_F(DecoderTest, GenerateStopsAtAnEndToken) {
  const std::vector<int64_t> greedy = ReadTokens("greedy_1_2_3.txt");
  ASSERT_GE(greedy.size(), 4u);
  for (const auto& [ends, stop] :
       {std::pair<std::vector<int64_t>, bool>{{greedy[2]}, true}, {{greedy[2]}, false}}) {
    Expected<Graph> graph =
        LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
    ASSERT_TRUE(graph.ok());
    graph->state.end_tokens = ends;
    PlanOptions options;
    options.devices = {&cpu()};
    Expected<std::unique_ptr<Session>> session = Session::Create(*graph, *host_, options);
    SY_ASSERT_OK(session);
    Expected<std::unique_ptr<Decoder>> decoder = Decoder::Create(**session, cpu());
    SY_ASSERT_OK(decoder);
    EXPECT_TRUE((*decoder)->IsEndToken(greedy[2]));
    EXPECT_FALSE((*decoder)->IsEndToken(greedy[0]) && greedy[0] != greedy[2]);
    Expected<std::vector<int64_t>> tokens = (*decoder)->Generate(kPrompt, 12, stop);
    SY_ASSERT_OK(tokens);
    // The first end token picked is the last one returned.
    const size_t first_end =
        static_cast<size_t>(std::find(greedy.begin(), greedy.end(), greedy[2]) - greedy.begin());
    EXPECT_EQ(*tokens,
              stop ? std::vector<int64_t>(greedy.begin(), greedy.begin() + first_end + 1) : greedy);
  }
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
  ASSERT_TRUE(graph.ok());
  graph->state.end_tokens = {16};
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, cpu());
  SY_ASSERT_OK(session);
  SY_EXPECT_ERROR(Decoder::Create(**session, cpu()).status(),
                  "end token 16 (state.end_tokens) is outside its vocabulary of 16");
}

// GenerateBatch on a model of one sequence: one prompt is Generate; more are refused.
TEST_F(DecoderTest, GenerateBatchOnAModelOfOneSequence) {
  std::unique_ptr<Decoder> decoder = Make();
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(decoder->batch(), 1);
  const std::vector<std::vector<int64_t>> one = {kPrompt};
  Expected<std::vector<std::vector<int64_t>>> rows = decoder->GenerateBatch(one, 12);
  SY_ASSERT_OK(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0], ReadTokens("greedy_1_2_3.txt"));
  SY_ASSERT_OK(decoder->Reset());
  const std::vector<std::vector<int64_t>> two = {kPrompt, {4, 5}};
  SY_EXPECT_ERROR(decoder->GenerateBatch(two, 4).status(),
                  "2 prompts, but the model decodes 1 sequences at once");
  const std::vector<std::vector<int64_t>> empty = {{}};
  SY_EXPECT_ERROR(decoder->GenerateBatch(empty, 4).status(), "prompt 0 is empty");
}

// The toy decoder with a batch of 2 (every [1, ...] value made [2, ...]): two prompts in
// one batch give what each gives alone on the model of one sequence; prompts of other
// lengths are refused, since this model takes no attention_mask to hide padding.
TEST_F(DecoderTest, ABatchOfTwoGivesEachSequencesTokens) {
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
  ASSERT_TRUE(graph.ok());
  for (Value& v : graph->values) {
    const bool batched =
        !v.type.shape.empty() && v.type.shape.size() >= 2 &&
        ((v.is_symbolic() && v.symbolic_shape[0].is_const() && v.symbolic_shape[0].value() == 1) ||
         (!v.is_symbolic() && v.type.shape[0] == 1 && v.type.shape.size() == 3));
    if (!batched) continue;
    v.type.shape[0] = 2;
    if (v.is_symbolic()) v.symbolic_shape[0] = DimExpr(2);
  }
  SY_ASSERT_OK(ValidateGraphTypes(*graph));
  PlanOptions options;
  options.devices = {&cpu()};
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, *host_, options);
  SY_ASSERT_OK(session);
  Expected<std::unique_ptr<Decoder>> batched = Decoder::Create(**session, cpu());
  SY_ASSERT_OK(batched);
  EXPECT_EQ((*batched)->batch(), 2);
  const std::vector<std::vector<int64_t>> prompts = {kPrompt, {4, 5, 6}};
  Expected<std::vector<std::vector<int64_t>>> rows = (*batched)->GenerateBatch(prompts, 12);
  SY_ASSERT_OK(rows);
  std::unique_ptr<Decoder> single = Make();
  ASSERT_NE(single, nullptr);
  for (size_t r = 0; r < prompts.size(); ++r) {
    SY_ASSERT_OK(single->Reset());
    Expected<std::vector<int64_t>> alone = single->Generate(prompts[r], 12);
    SY_ASSERT_OK(alone);
    EXPECT_EQ((*rows)[r], *alone) << "row " << r;
  }
  EXPECT_EQ((*rows)[0], ReadTokens("greedy_1_2_3.txt"));
  // One prompt on the batch: its first row.
  SY_ASSERT_OK((*batched)->Reset());
  Expected<std::vector<int64_t>> first = (*batched)->Generate(kPrompt, 12);
  SY_ASSERT_OK(first);
  EXPECT_EQ(*first, ReadTokens("greedy_1_2_3.txt"));
  SY_ASSERT_OK((*batched)->Reset());
  const std::vector<std::vector<int64_t>> uneven = {kPrompt, {4}};
  SY_EXPECT_ERROR((*batched)->GenerateBatch(uneven, 4).status(),
                  "prompts of different lengths need a model that takes attention_mask");
  SY_EXPECT_ERROR((*batched)->Prefill(kPrompt).status(), "decodes 2 sequences at once");
}

// The token ids are the state's advance input, whatever its name.
TEST_F(DecoderTest, TheTokenInputIsTheStatesAdvanceInput) {
  Expected<Graph> graph = LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
  ASSERT_TRUE(graph.ok());
  graph->values[graph->state.advance_input].name = "tokens";
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, cpu());
  SY_ASSERT_OK(session);
  Expected<std::unique_ptr<Decoder>> decoder = Decoder::Create(**session, cpu());
  SY_ASSERT_OK(decoder);
  Expected<std::vector<int64_t>> tokens = (*decoder)->Generate(kPrompt, 12);
  SY_ASSERT_OK(tokens);
  EXPECT_EQ(*tokens, ReadTokens("greedy_1_2_3.txt"));
}

TEST_F(DecoderTest, AModelWithoutStateIsRefused) {
  Expected<Graph> mlp = LoadModel(std::string(SY_SOURCE_DIR) + "/examples/mlp");
  ASSERT_TRUE(mlp.ok()) << mlp.status().ToString();
  Expected<std::unique_ptr<Session>> session = Session::Create(*mlp, cpu());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  Expected<std::unique_ptr<Decoder>> decoder = Decoder::Create(**session, cpu());
  ASSERT_FALSE(decoder.ok());
  EXPECT_NE(decoder.status().message().find("keeps no decoding state"), std::string::npos);
}

}  // namespace
}  // namespace sy
