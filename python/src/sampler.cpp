// switchyard._native.Sampler: the token picker of switchyard.generate. One `sample` node
// (docs/ops.md, "Sampling") over logits f32 [1, V] and a uniform number f64 [1], in a
// session on the CPU, as `switchyard generate` builds it (tools/switchyard/
// generate_command.cpp): the same op, so the same seed picks the same tokens. When the
// decode API of core (switchyard/decoder.h) lands, generate binds it and this goes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <memory>

#include "arrays.h"
#include "errors.h"
#include "host.h"
#include "switchyard/model_io.h"
#include "switchyard/session.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

class Sampler {
 public:
  Sampler(nb::object host, int64_t vocab, std::string method, double temperature, int64_t top_k,
          double top_p, double min_p)
      : host_(std::move(host)), vocab_(vocab) {
    if (vocab < 1) Throw(InvalidArgument("the vocabulary size must be positive"));
    for (char& c : method) c = c == '-' ? '_' : c;  // top-k -> top_k
    Graph g;
    g.values = {{"logits", {DType::kF32, {1, vocab}}, {}},
                {"uniform", {DType::kF64, {1}}, {}},
                {"token", {DType::kI64, {1}}, {}}};
    g.inputs = {0, 1};
    g.outputs = {2};
    Node node;
    node.op = "sample";
    node.inputs = {0, 1};
    node.outputs = {2};
    node.attrs.Set("method", method);
    if (method != "greedy") node.attrs.Set("temperature", temperature);
    if (method == "top_k") node.attrs.Set("top_k", top_k);
    if (method == "top_p") node.attrs.Set("top_p", top_p);
    if (method == "min_p") node.attrs.Set("min_p", min_p);
    g.nodes.push_back(std::move(node));
    if (Status valid = ValidateGraphTypes(g); !valid.ok()) {
      Throw(InvalidArgument("the sampler's options: " + valid.message()));
    }
    const Device* cpu = ValueOrThrow(nb::cast<Host&>(host_).get().FindDevice("cpu"));
    session_ = ValueOrThrow(Session::Create(g, *cpu));
    row_ = ValueOrThrow(Tensor::Allocate(DType::kF32, {1, vocab}));
    uniform_ = ValueOrThrow(Tensor::Allocate(DType::kF64, {1}));
  }
  ~Sampler() { session_.reset(); }  // before host_

  // The token for the last row of `logits` (any float dtype, last dim the vocabulary).
  int64_t Pick(nb::handle logits, double uniform) {
    const Tensor t = TensorFromPython(logits, "logits", std::nullopt).tensor;
    if (t.shape().empty() || t.shape().back() != vocab_) {
      Throw(InvalidArgument("logits are " + t.type().ToString() + "; their last dim must be " +
                            "the vocabulary, " + std::to_string(vocab_)));
    }
    const int64_t last = t.element_count() - vocab_;
    for (int64_t i = 0; i < vocab_; ++i) {
      row_.mutable_values<float>()[i] = static_cast<float>(ElementAsDouble(t, last + i));
    }
    uniform_.mutable_values<double>()[0] = uniform;
    auto picked = ValueOrThrow(session_->Run({{"logits", row_}, {"uniform", uniform_}}));
    return picked.at("token").values<int64_t>()[0];
  }

 private:
  nb::object host_;
  int64_t vocab_;
  std::unique_ptr<Session> session_;
  Tensor row_, uniform_;
};

}  // namespace

void BindSampler(nb::module_& m) {
  nb::class_<Sampler>(m, "Sampler", "The catalogue's sample op on the CPU (generate's picker).")
      .def(nb::init<nb::object, int64_t, std::string, double, int64_t, double, double>(),
           nb::arg("host"), nb::arg("vocab"), nb::arg("method"), nb::arg("temperature"),
           nb::arg("top_k"), nb::arg("top_p"), nb::arg("min_p"))
      .def("pick", &Sampler::Pick, nb::arg("logits"), nb::arg("uniform"));
}

}  // namespace sy::python
