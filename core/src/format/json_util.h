// Internal: small helpers over Boost.JSON used by the graph and safetensors readers.
// Boost.JSON is used in non-throwing mode only: parse with an error_code, inspect with
// if_*() accessors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "switchyard/status.h"

namespace sy::json {

// Parses `text` as one JSON document with a nesting limit. The error says where
// (line and column) and what the parser expected.
Expected<boost::json::value> Parse(std::string_view text, int max_depth);

// "object", "array", "string", "number", "boolean", "null".
std::string_view KindName(const boost::json::value& v);

// A short rendering of a JSON value for error messages: numbers as written (1.5, 1e+300,
// not boost's 1.5E0), strings quoted (long ones cut), true, false, null, and arrays and
// objects by kind only ("an array"), so that a message never quotes a huge document.
std::string Describe(const boost::json::value& v);

// The value as an exact int64: JSON integers, and doubles with integral values in range.
std::optional<int64_t> AsInt64(const boost::json::value& v);
// Any JSON number as a double.
std::optional<double> AsDouble(const boost::json::value& v);

}  // namespace sy::json
