#include "test_util.h"

#include <fstream>
#include <random>
#include <sstream>

namespace sy::test {

TempDir::TempDir() {
  std::random_device rd;
  const auto base = std::filesystem::temp_directory_path();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = base / ("sy_test_" + std::to_string(rd()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  ADD_FAILURE() << "could not create a temporary directory";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Expected<std::vector<TensorType>> Infer(std::string_view op, std::vector<TensorType> inputs,
                                        Attrs attrs, int num_outputs) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr) {
    ADD_FAILURE() << "op " << op << " is not registered";
    return Internal("op not registered: " + std::string(op));
  }
  return InferOutputTypes(*schema, inputs, attrs, num_outputs);
}

::testing::AssertionResult Outputs(const Expected<std::vector<TensorType>>& result,
                                   const std::vector<TensorType>& want) {
  auto describe = [](const std::vector<TensorType>& types) {
    std::string text = "{";
    for (size_t i = 0; i < types.size(); ++i) text += (i ? ", " : "") + types[i].ToString();
    return text + "}";
  };
  if (!result.ok()) return ::testing::AssertionFailure() << result.status().ToString();
  if (*result != want) {
    return ::testing::AssertionFailure()
           << "got " << describe(*result) << ", want " << describe(want);
  }
  return ::testing::AssertionSuccess();
}

Attrs MakeAttrs(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

}  // namespace sy::test
