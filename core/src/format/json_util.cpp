#include "format/json_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>

namespace sy::json {
namespace {

namespace bj = boost::json;

// A SAX handler for boost::json::basic_parser that builds a boost::json::value like
// boost's own parser, with two differences that matter for model files:
// - doubles are converted from their text with std::from_chars (correctly rounded;
//   Boost 1.81's own conversion can be off by one ulp, which would change f64 constants
//   and float attributes in a save/load round trip), and numbers beyond the double range
//   are errors instead of silently becoming infinity;
// - a key repeated within one object is an error (boost keeps the last silently, so a
//   second "inputs" in a node would quietly replace the first).
class Handler {
 public:
  static constexpr std::size_t max_object_size = bj::object::max_size();
  static constexpr std::size_t max_array_size = bj::array::max_size();
  static constexpr std::size_t max_key_size = bj::string::max_size();
  static constexpr std::size_t max_string_size = bj::string::max_size();

  bj::value_stack st;
  // Set with the reason when a handler callback fails; the parser then stops.
  std::string failure;

  bool on_document_begin(bj::error_code&) { return true; }
  bool on_document_end(bj::error_code&) { return true; }

  bool on_object_begin(bj::error_code&) {
    object_starts_.push_back(keys_.size());
    return true;
  }
  bool on_object_end(std::size_t n, bj::error_code& ec) {
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(object_starts_.back());
    object_starts_.pop_back();
    std::sort(first, keys_.end());
    const auto dup = std::adjacent_find(first, keys_.end());
    if (dup != keys_.end()) return Fail("duplicate key \"" + *dup + "\" in an object", ec);
    keys_.erase(first, keys_.end());
    st.push_object(n);
    return true;
  }
  bool on_array_begin(bj::error_code&) { return true; }
  bool on_array_end(std::size_t n, bj::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    st.push_chars(s);
    return true;
  }
  bool on_key(bj::string_view s, std::size_t, bj::error_code&) {
    key_.append(s.data(), s.size());
    keys_.push_back(std::move(key_));
    key_.clear();
    st.push_key(s);
    return true;
  }
  bool on_string_part(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(bj::string_view s, std::size_t, bj::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(bj::string_view s, bj::error_code&) {
    number_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(std::int64_t i, bj::string_view, bj::error_code&) {
    number_.clear();
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, bj::string_view, bj::error_code&) {
    number_.clear();
    st.push_uint64(u);
    return true;
  }
  bool on_double(double d, bj::string_view s, bj::error_code& ec) {
    number_.append(s.data(), s.size());
    double exact = 0;
    const char* begin = number_.data();
    const char* end = begin + number_.size();
    const std::from_chars_result r = std::from_chars(begin, end, exact);
    if (r.ec == std::errc() && r.ptr == end) {
      d = exact;
    } else if (std::isinf(d) || (r.ec == std::errc() && r.ptr != end)) {
      // Out of range (boost made it infinity), or text from_chars cannot read whole.
      return Fail("number " + number_ + " is out of the range of a 64-bit float", ec);
    }
    // Otherwise (an underflow to zero or a subnormal) boost's value stands.
    number_.clear();
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, bj::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(bj::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(bj::string_view, bj::error_code&) { return true; }
  bool on_comment(bj::string_view, bj::error_code&) { return true; }

 private:
  bool Fail(std::string why, bj::error_code& ec) {
    failure = std::move(why);
    ec = bj::error::syntax;  // any error stops the parser; `failure` says what it was
    return false;
  }

  std::string number_;                 // the text of the number being read
  std::string key_;                    // the key being read
  std::vector<std::string> keys_;      // keys of the objects being read, innermost last
  std::vector<size_t> object_starts_;  // where each open object's keys start in keys_
};

}  // namespace

Expected<boost::json::value> Parse(std::string_view text, int max_depth) {
  bj::parse_options options;
  options.max_depth = static_cast<std::size_t>(max_depth);
  try {
    bj::basic_parser<Handler> parser(options);
    parser.handler().st.reset();
    bj::error_code ec;
    const std::size_t consumed = parser.write_some(false, text.data(), text.size(), ec);
    if (ec || !parser.done()) {
      // Report where the parser stopped: line and column (1-based) of the first bad byte.
      const std::size_t at = ec ? consumed : text.size();
      std::size_t line = 1, column = 1;
      for (std::size_t i = 0; i < at && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++line;
          column = 1;
        } else {
          ++column;
        }
      }
      std::string what = ec ? ec.message() : "incomplete JSON";
      if (!parser.handler().failure.empty()) what = parser.handler().failure;
      if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) what = "empty document";
      return InvalidModel("not valid JSON at line " + std::to_string(line) + ", column " +
                          std::to_string(column) + ": " + what);
    }
    // The parser stops after one complete value; anything but whitespace after it is junk.
    for (std::size_t i = consumed; i < text.size(); ++i) {
      const char c = text[i];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return InvalidModel("not valid JSON: unexpected data after the document at byte " +
                            std::to_string(i));
      }
    }
    return parser.handler().st.release();
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("out of memory while parsing JSON of " + std::to_string(text.size()) +
                             " bytes");
  } catch (const std::exception& e) {
    // Boost.JSON throws only for allocation failures and sizes over its limits.
    return ResourceExhausted(std::string("JSON too large to parse: ") + e.what());
  }
}

std::string_view KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object:
      return "an object";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::null:
      return "null";
  }
  return "?";
}

std::string Describe(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::int64:
      return std::to_string(v.get_int64());
    case boost::json::kind::uint64:
      return std::to_string(v.get_uint64());
    case boost::json::kind::double_: {
      char buffer[32];
      const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof buffer, v.get_double());
      return std::string(buffer, r.ptr);
    }
    case boost::json::kind::string: {
      const boost::json::string& s = v.get_string();
      if (s.size() <= 64) return boost::json::serialize(v);
      return boost::json::serialize(boost::json::value(s.subview(0, 61))) + "...";
    }
    case boost::json::kind::bool_:
      return v.get_bool() ? "true" : "false";
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::array:
    case boost::json::kind::object:
      return std::string(KindName(v));
  }
  return "?";
}

std::optional<int64_t> AsInt64(const boost::json::value& v) {
  if (const auto* i = v.if_int64()) return *i;
  if (const auto* u = v.if_uint64()) {
    if (*u <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(*u);
    return std::nullopt;
  }
  if (const auto* d = v.if_double()) {
    // 2^63 is exactly representable; anything at or beyond it is out of range.
    if (std::isfinite(*d) && *d == std::trunc(*d) && *d >= -9223372036854775808.0 &&
        *d < 9223372036854775808.0) {
      return static_cast<int64_t>(*d);
    }
  }
  return std::nullopt;
}

std::optional<double> AsDouble(const boost::json::value& v) {
  if (const auto* i = v.if_int64()) return static_cast<double>(*i);
  if (const auto* u = v.if_uint64()) return static_cast<double>(*u);
  if (const auto* d = v.if_double()) return *d;
  return std::nullopt;
}

}  // namespace sy::json
