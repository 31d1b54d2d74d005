// ReadDecoderFolderConfig (switchyard/decoder_config.h): what generation_config.json and
// genai_config.json say, written here by hand in the forms Hugging Face and
// onnxruntime-genai write them, and what is refused.
#include "switchyard/decoder_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace sy::onnx_import {
namespace {

namespace fs = std::filesystem;

fs::path Folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sy_decoder_config_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void Write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

TEST(DecoderFolderConfig, NoFilesIsNothing) {
  Expected<DecoderFolderConfig> config = ReadDecoderFolderConfig(Folder("none"));
  SY_ASSERT_OK(config);
  EXPECT_TRUE(config->end_tokens.empty());
  EXPECT_EQ(config->head_size, 0);
  EXPECT_TRUE(config->files.empty());
}

TEST(DecoderFolderConfig, ReadsBothFiles) {
  const fs::path dir = Folder("both");
  Write(dir / "generation_config.json",
        R"({"bos_token_id": 1, "eos_token_id": [2, 32000], "do_sample": false})");
  Write(dir / "genai_config.json",
        R"({"model": {"eos_token_id": 2, "decoder": {"head_size": 64, "num_hidden_layers": 2}},
            "search": {"max_length": 512}})");
  Expected<DecoderFolderConfig> config = ReadDecoderFolderConfig(dir);
  SY_ASSERT_OK(config);
  EXPECT_EQ(config->end_tokens, (std::vector<int64_t>{2, 32000}));  // once each
  EXPECT_EQ(config->head_size, 64);
  EXPECT_EQ(config->files,
            (std::vector<std::string>{"generation_config.json", "genai_config.json"}));
  // One id, and a null one (GPT-2 configs carry eos_token_id: null at times).
  Write(dir / "generation_config.json", R"({"eos_token_id": 50256})");
  fs::remove(dir / "genai_config.json");
  SY_ASSERT_OK(config = ReadDecoderFolderConfig(dir));
  EXPECT_EQ(config->end_tokens, (std::vector<int64_t>{50256}));
  Write(dir / "generation_config.json", R"({"eos_token_id": null})");
  SY_ASSERT_OK(config = ReadDecoderFolderConfig(dir));
  EXPECT_TRUE(config->end_tokens.empty());
}

TEST(DecoderFolderConfig, MalformedFilesAreErrorsNamingTheField) {
  const fs::path dir = Folder("bad");
  Write(dir / "generation_config.json", "{not json");
  SY_EXPECT_ERROR(ReadDecoderFolderConfig(dir).status(), "generation_config.json: not JSON");
  Write(dir / "generation_config.json", R"({"eos_token_id": "2"})");
  SY_EXPECT_ERROR(ReadDecoderFolderConfig(dir).status(),
                  "generation_config.json: eos_token_id is \"2\" (expected a token id >= 0 or "
                  "a list of them)");
  Write(dir / "generation_config.json", R"({"eos_token_id": [2, -5]})");
  SY_EXPECT_ERROR(ReadDecoderFolderConfig(dir).status(), "eos_token_id is [2,-5]");
  fs::remove(dir / "generation_config.json");
  Write(dir / "genai_config.json", R"({"model": {"decoder": {"head_size": 0}}})");
  SY_EXPECT_ERROR(ReadDecoderFolderConfig(dir).status(),
                  "genai_config.json: model.decoder.head_size is 0 (expected a size of 1 to "
                  "65536)");
  // A configuration past 1 MiB is not read.
  Write(dir / "genai_config.json", "{\"pad\": \"" + std::string(size_t{1} << 20, 'x') + "\"}");
  SY_EXPECT_ERROR(ReadDecoderFolderConfig(dir).status(),
                  "bytes (expected a configuration of at most 1 MiB)");
}

// A decoder folder's tokenizer.json goes beside the imported model as STEM.tokenizer.json.
TEST(DecoderFolderConfig, CopiesTheTokenizer) {
  const fs::path dir = Folder("tokenizer");
  Expected<fs::path> none = CopyTokenizer(dir, dir / "out");
  SY_ASSERT_OK(none);
  EXPECT_TRUE(none->empty());
  Write(dir / "tokenizer.json", R"({"version": "1.0", "model": {"type": "WordLevel"}})");
  Expected<fs::path> copied = CopyTokenizer(dir, dir / "out");
  SY_ASSERT_OK(copied);
  EXPECT_EQ(*copied, dir / "out.tokenizer.json");
  std::ifstream in(*copied);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, R"({"version": "1.0", "model": {"type": "WordLevel"}})");
  fs::remove(dir / "tokenizer.json");
  fs::create_directory(dir / "tokenizer.json");
  SY_EXPECT_ERROR(CopyTokenizer(dir, dir / "out").status(), "not a regular file");
}

// End tokens must lie in the vocabulary (logits' last dim): a small config's default EOS
// (GPT-2's 50256 with a vocabulary of 128) is an error naming where it came from.
TEST(DecoderFolderConfig, EndTokensOutsideTheVocabularyAreRefused) {
  Graph graph;
  Value logits;
  logits.name = "logits";
  logits.type = {DType::kF32, {1, 1, 128}};
  graph.values.push_back(logits);
  graph.outputs.push_back(0);
  SY_EXPECT_OK(SetEndTokens(graph, {0, 2, 127}, "genai_config.json"));
  SY_EXPECT_ERROR(SetEndTokens(graph, {2, 50256}, "generation_config.json"),
                  "end token 50256 (from generation_config.json) is outside the model's "
                  "vocabulary of 128");
}

}  // namespace
}  // namespace sy::onnx_import
