// Look-ups in the generated schema table (onnx_schemas.h).
#include "onnx_schemas.h"

#include <algorithm>
#include <tuple>

namespace sy::onnx_import {

namespace {

std::span<const OnnxFormal> Slice(std::span<const OnnxFormal> all, OnnxRange r) {
  return all.subspan(r.first, r.count);
}

const char* kOnnxTypeNames[] = {
    "undefined",      "float",      "uint8",          "int8",       "uint16",    "int16",
    "int32",          "int64",      "string",         "bool",       "float16",   "double",
    "uint32",         "uint64",     "complex64",      "complex128", "bfloat16",  "float8e4m3fn",
    "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4",      "int4",      "float4e2m1",
    "float8e8m0",     "uint2",      "int2",           "float6e2m3", "float6e3m2"};

}  // namespace

std::span<const OnnxFormal> OnnxSchema::Inputs() const {
  return Slice(generated::kTable.formals, inputs);
}
std::span<const OnnxFormal> OnnxSchema::Outputs() const {
  return Slice(generated::kTable.formals, outputs);
}
std::span<const OnnxAttrSpec> OnnxSchema::Attributes() const {
  return generated::kTable.attributes.subspan(attributes.first, attributes.count);
}
std::span<const OnnxFunctionBody> OnnxSchema::Bodies() const {
  return generated::kTable.bodies.subspan(bodies.first, bodies.count);
}

const OnnxAttrSpec* OnnxSchema::FindAttribute(std::string_view attr) const {
  for (const OnnxAttrSpec& a : Attributes()) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

const OnnxFunctionBody* OnnxSchema::BodyFor(int64_t opset) const {
  const OnnxFunctionBody* best = nullptr;
  for (const OnnxFunctionBody& b : Bodies()) {
    if (b.opset <= opset && (best == nullptr || b.opset > best->opset)) best = &b;
  }
  return best;
}

std::string OnnxSchema::Label() const {
  std::string label = domain.empty() ? std::string() : std::string(domain) + ":";
  return label + std::string(name) + "-" + std::to_string(since_version);
}

std::string_view CanonicalOnnxDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

std::span<const OnnxSchema> OnnxSchemaVersions(std::string_view domain, std::string_view op) {
  const std::span<const OnnxSchema> all = generated::kTable.schemas;
  domain = CanonicalOnnxDomain(domain);
  const auto key = [](const OnnxSchema& s) { return std::tie(s.domain, s.name); };
  const auto lo = std::lower_bound(all.begin(), all.end(), std::tie(domain, op),
                                   [&](const OnnxSchema& s, const auto& k) { return key(s) < k; });
  auto hi = lo;
  while (hi != all.end() && hi->domain == domain && hi->name == op) ++hi;
  return {lo, hi};
}

const OnnxSchema* FindOnnxSchema(std::string_view domain, std::string_view op, int64_t opset) {
  const OnnxSchema* found = nullptr;
  for (const OnnxSchema& s : OnnxSchemaVersions(domain, op)) {
    if (s.since_version <= opset) found = &s;
  }
  return found;
}

int64_t NewestOnnxOpset(std::string_view domain) {
  domain = CanonicalOnnxDomain(domain);
  int64_t newest = 0;
  for (const OnnxSchema& s : generated::kTable.schemas) {
    if (s.domain == domain) newest = std::max(newest, s.since_version);
  }
  return newest;
}

const OnnxSchemaTable& OnnxSchemas() { return generated::kTable; }

std::string OnnxTypesAllowed(uint64_t types) {
  std::string text;
  const auto add = [&](std::string_view name) {
    if (!text.empty()) text += ", ";
    text += name;
  };
  for (size_t k = 1; k < std::size(kOnnxTypeNames); ++k) {
    if (types & (uint64_t{1} << k)) add(kOnnxTypeNames[k]);
  }
  if (types & (uint64_t{1} << kOnnxSequenceBit)) add("sequences");
  if (types & (uint64_t{1} << kOnnxOptionalBit)) add("optionals");
  if (types & (uint64_t{1} << kOnnxMapBit)) add("maps");
  return text;
}

}  // namespace sy::onnx_import
