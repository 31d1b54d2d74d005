#include "test_util.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

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

bool ProcessEndsWithin(int pid, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)),
                           std::istreambuf_iterator<char>());
    // "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the
    // last ')'.
    const size_t paren = text.rfind(')');
    if (paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z') {
      return true;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
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
