#include "cli.h"

#include <iostream>

namespace sy::cli {

boost::json::object TypeToJson(std::string_view name, const TensorType& type) {
  boost::json::array shape;
  for (int64_t d : type.shape) shape.emplace_back(d);
  return {{"name", name}, {"dtype", DTypeName(type.dtype)}, {"shape", std::move(shape)}};
}

void PrintError(std::string_view command, std::string_view message) {
  std::cerr << "switchyard " << command << ": " << message << "\n";
}

}  // namespace sy::cli
