#include "fast/onednn/onednn_common.h"

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "thread_pool.h"

namespace sy::cpu::onednn {
namespace {

const char* IsaName(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "baseline";
  }
}

// oneDNN and the OpenMP runtime are not unload-safe: OpenMP's worker threads stay parked
// inside libgomp, and oneDNN keeps its JIT code and primitive cache in globals. Marking
// both RTLD_NODELETE keeps them mapped when the host unloads this plugin, so the threads
// never run unmapped code and a later load finds them initialised.
void PinRuntimeLibraries() {
  for (const char* name : {"libdnnl.so.2", "libgomp.so.1"}) {
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

}  // namespace

const dnnl::engine& Engine() {
  static const dnnl::engine engine = [] {
    PinRuntimeLibraries();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

ScopedThreads::ScopedThreads(int num_threads) : previous_(omp_get_max_threads()) {
  omp_set_num_threads(num_threads < 1 ? 1 : num_threads);
}

ScopedThreads::~ScopedThreads() { omp_set_num_threads(previous_); }

bool HasVnni() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx2_vnni || isa == dnnl::cpu_isa::avx512_core_vnni ||
         isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

std::string Description() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + ", isa " + IsaName(dnnl::get_effective_cpu_isa());
}

dnnl::memory::dims Dims(const Shape& shape) {
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::format_tag ChannelsLast(size_t rank) {
  return rank == 3   ? dnnl::memory::format_tag::nwc
         : rank == 4 ? dnnl::memory::format_tag::nhwc
                     : dnnl::memory::format_tag::ndhwc;
}

dnnl::memory::desc Plain(const dnnl::memory::dims& dims, dnnl::memory::data_type type) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return dnnl::memory::desc(dims, type, strides);
}

dnnl::memory::desc PlainF32(const dnnl::memory::dims& dims) {
  return Plain(dims, dnnl::memory::data_type::f32);
}

ConvGeometry ConvGeometryOf(const Shape& x, const Shape& w, const Shape& y, const Attrs& attrs) {
  ConvGeometry g;
  const size_t spatial = x.size() - 2;
  g.group = attrs.GetInt("group", 1);
  g.x = Dims(x);
  g.y = Dims(y);
  g.w = Dims(w);
  if (g.group > 1) {
    g.w[0] /= g.group;
    g.w.insert(g.w.begin(), g.group);
  }
  g.strides = IntsOr(attrs, "strides", spatial, 1);
  for (int64_t d : IntsOr(attrs, "dilations", spatial, 1)) g.dilations.push_back(d - 1);
  const std::vector<int64_t> pads = IntsOr(attrs, "pads", 2 * spatial, 0);
  g.pad_l.assign(pads.begin(), pads.begin() + static_cast<int64_t>(spatial));
  g.pad_r.assign(pads.begin() + static_cast<int64_t>(spatial), pads.end());
  return g;
}

int64_t ConvWork(const Shape& w, const Shape& y) {
  const double per_output = static_cast<double>(ElementCount(w)) /
                            static_cast<double>(std::max<int64_t>(w.empty() ? 1 : w[0], 1));
  const double work = per_output * static_cast<double>(ElementCount(y));
  return work >= 9e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(work);
}

bool AppendActivation(const Attrs& attrs, dnnl::post_ops& ops, bool* non_finite_differs) {
  const std::string& act = attrs.GetString("activation");
  *non_finite_differs = false;
  if (act == "none") return true;
  using dnnl::algorithm;
  algorithm alg = algorithm::eltwise_relu;
  float alpha = 0.0f, beta = 0.0f;
  if (act == "relu") {
    *non_finite_differs = true;  // max(x, 0): NaN -> 0
  } else if (act == "leaky_relu") {
    alpha = static_cast<float>(attrs.GetFloat("activation_alpha"));
    // eltwise_relu with alpha 0 is plain relu (NaN -> 0); a leaky slope keeps NaN.
    *non_finite_differs = alpha == 0.0f;
  } else if (act == "clip") {
    constexpr float kInf = std::numeric_limits<float>::infinity();
    const double lo = attrs.Has("clip_min") ? attrs.GetFloat("clip_min") : -kInf;
    const double hi = attrs.Has("clip_max") ? attrs.GetFloat("clip_max") : kInf;
    if (lo > hi) return false;
    alg = algorithm::eltwise_clip;
    alpha = static_cast<float>(lo);
    beta = static_cast<float>(hi);
    *non_finite_differs = true;  // min(max(x, lo), hi): NaN -> lo
  } else if (act == "gelu") {
    alg = algorithm::eltwise_gelu_erf;
    *non_finite_differs = true;
  } else if (act == "gelu_tanh") {
    alg = algorithm::eltwise_gelu_tanh;
    *non_finite_differs = true;
  } else if (act == "silu") {
    alg = algorithm::eltwise_swish;  // x * sigmoid(alpha x)
    alpha = 1.0f;
    *non_finite_differs = true;
  } else if (act == "sigmoid") {
    alg = algorithm::eltwise_logistic;
  } else if (act == "tanh") {
    alg = algorithm::eltwise_tanh;
  } else {
    return false;  // validation admits no other value; a newer catalogue may
  }
  ops.append_eltwise(1.0f, alg, alpha, beta);
  return true;
}

SY_CPU_ISA_CLONES bool AllFinite(const std::byte* data, int64_t count) {
  // An exponent of all ones is NaN or infinity. Branch-free OR over the bits so that the
  // loop vectorises; the guard costs one read of the operands (well under the product's).
  constexpr uint32_t kExp = 0x7f800000u;
  uint32_t bad = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data + i * 4, 4);
    bad |= static_cast<uint32_t>((bits & kExp) == kExp);
  }
  return bad == 0;
}

void PermuteChannels(const std::byte* src, std::byte* dst, const Shape& shape,
                     bool to_channels_last) {
  const int64_t n = shape[0], c = shape[1];
  const int64_t s = n * c == 0 ? 0 : ElementCount(shape) / (n * c);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < s; ++p) {
        const int64_t row_major = (b * c + ch) * s + p, channels_last = (b * s + p) * c + ch;
        const int64_t from = to_channels_last ? row_major : channels_last;
        const int64_t to = to_channels_last ? channels_last : row_major;
        std::memcpy(dst + to * 4, src + from * 4, 4);
      }
    }
  }
}

Status RunOnRowMajorCopies(KernelFn fallback, const KernelContext& ctx,
                           std::span<const bool> inputs_channels_last, bool output_channels_last) {
  bool any = output_channels_last;
  for (const bool channels_last : inputs_channels_last) any |= channels_last;
  if (!any) return fallback(ctx);
  try {
    std::vector<ConstTensorView> inputs(ctx.inputs.begin(), ctx.inputs.end());
    std::vector<TensorView> outputs(ctx.outputs.begin(), ctx.outputs.end());
    std::vector<std::vector<float>> copies(inputs.size());
    for (size_t i = 0; i < inputs.size() && i < inputs_channels_last.size(); ++i) {
      if (!inputs_channels_last[i]) continue;
      copies[i].resize(static_cast<size_t>(inputs[i].count()));
      PermuteChannels(inputs[i].data, reinterpret_cast<std::byte*>(copies[i].data()),
                      inputs[i].shape(), /*to_channels_last=*/false);
      inputs[i].data = reinterpret_cast<const std::byte*>(copies[i].data());
    }
    std::vector<float> y;
    if (output_channels_last) {
      y.resize(static_cast<size_t>(outputs[0].count()));
      outputs[0].data = reinterpret_cast<std::byte*>(y.data());
    }
    const Status status = fallback({ctx.op, inputs, outputs, ctx.attrs, ctx.pool});
    if (status.ok() && output_channels_last) {
      PermuteChannels(outputs[0].data, ctx.outputs[0].data, outputs[0].shape(),
                      /*to_channels_last=*/true);
    }
    return status;
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(std::string(ctx.op) +
                             ": out of memory for the row-major copies of its operands");
  }
}

namespace {

// The largest |v| of n floats as the bit pattern of its absolute value (with the sign
// cleared a float's pattern orders as its magnitude does; NaN and infinities above every
// finite value). An integer maximum vectorises where a float one (NaN rules) does not.
SY_CPU_ISA_CLONES uint32_t MaxAbsBits(const std::byte* data, int64_t n) {
  uint32_t best = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data + i * 4, 4);
    bits &= 0x7fffffffu;
    best = bits > best ? bits : best;
  }
  return best;
}

}  // namespace

double MaxAbs(ThreadPool* pool, const std::byte* data, int64_t count) {
  std::atomic<uint32_t> max_bits{0};
  ParallelFor(pool, count, fast::kCheapGrain * 4, [data, &max_bits](int64_t begin, int64_t end) {
    const uint32_t m = MaxAbsBits(data + begin * 4, end - begin);
    uint32_t seen = max_bits.load(std::memory_order_relaxed);
    while (m > seen && !max_bits.compare_exchange_weak(seen, m, std::memory_order_relaxed)) {
    }
  });
  const uint32_t m = max_bits.load(std::memory_order_relaxed);
  if (m >= 0x7f800000u) return std::numeric_limits<double>::infinity();
  return static_cast<double>(std::bit_cast<float>(m));
}

double WeightBound(const std::byte* weights, const Shape& shape) {
  const int64_t m = shape[0];
  const int64_t per = m == 0 ? 0 : ElementCount(shape) / m;
  double worst = 0.0;
  for (int64_t o = 0; o < m; ++o) {
    double sum = 0.0;
    for (int64_t i = 0; i < per; ++i) {
      float v;
      std::memcpy(&v, weights + (o * per + i) * 4, 4);
      sum += std::fabs(static_cast<double>(v));
    }
    if (!std::isfinite(sum)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, sum);
  }
  return worst;
}

ActivationBound ActivationBound::FromAttrs(const Attrs& attrs) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::string act = attrs.Has("activation") ? attrs.GetString("activation") : "none";
  ActivationBound b;
  if (act == "none" || act == "relu" || act == "gelu" || act == "gelu_tanh" || act == "silu") {
    // |f(x)| <= |x| for each
  } else if (act == "leaky_relu") {
    b.scale = std::max(1.0, std::fabs(attrs.GetFloat("activation_alpha")));
  } else if (act == "clip") {
    const double lo = attrs.Has("clip_min") ? attrs.GetFloat("clip_min") : -kInf;
    const double hi = attrs.Has("clip_max") ? attrs.GetFloat("clip_max") : kInf;
    b.cap = std::max(std::fabs(lo), std::fabs(hi));
  } else if (act == "sigmoid" || act == "tanh") {
    b.constant = true;
    b.cap = 1.0;
  } else {
    b.constant = true;  // unknown: nothing bounds it
  }
  return b;
}

bool IsJit(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) != 0;
}

bool Selected() {
  // An invalid value never gets here: the context refuses to initialise with one.
  static const bool selected = [] {
    const Expected<GemmLibrary> choice = GemmChoice();
    return choice.ok() && *choice != GemmLibrary::kOpenBlas;
  }();
  return selected;
}

}  // namespace sy::cpu::onednn
