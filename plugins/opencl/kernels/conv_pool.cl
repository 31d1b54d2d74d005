// conv (direct: one work-item per output element) and max_pool / avg_pool over 1 to 3
// spatial dims. meta holds, per spatial dim d (S of them), 7 longs: in, out, kernel,
// stride, pad_begin, pad_end, dilation. Semantics of
// plugins/cpu/src/ref/conv_pool_ref.cpp: taps in the padding contribute nothing; a pool
// window without an in-bounds tap gives -inf (max) or NaN (avg, count_include_pad 0).

#pragma OPENCL FP_CONTRACT OFF

typedef CT_A ct;

#define SY_IN(d) meta[7 * (d)]
#define SY_OUT(d) meta[7 * (d) + 1]
#define SY_K(d) meta[7 * (d) + 2]
#define SY_STRIDE(d) meta[7 * (d) + 3]
#define SY_PAD(d) meta[7 * (d) + 4]
#define SY_PAD_END(d) meta[7 * (d) + 5]
#define SY_DIL(d) meta[7 * (d) + 6]

// The spatial position (pos[d], d < S) of flat output position o.
inline void sy_out_position(__global const long* meta, int S, long o, long* pos) {
  long rest = o;
  for (int d = S - 1; d >= 0; --d) {
    pos[d] = rest % SY_OUT(d);
    rest /= SY_OUT(d);
  }
}

// Output element i of y [N, M, out...] as the conv kernels see it: its flat spatial
// position o, output channel m, sample nb, group g, and the input channels a group reads.
typedef struct {
  long o, m, nb, g, cpg;
} sy_conv_at;

inline sy_conv_at sy_conv_index(size_t i, long C, long M, long group, long out_count) {
  sy_conv_at at;
  at.o = (long)(i % (ulong)out_count);
  const long nm = (long)(i / (ulong)out_count);
  at.m = nm % M;
  at.nb = nm / M;
  at.cpg = C / group;
  at.g = at.m / (M / group);
  return at;
}

// The offset in x's spatial block of tap t (flat over the kernel dims) of output position
// pos, or -1 where the tap lands in the padding (it then adds nothing).
inline long sy_tap_offset(__global const long* meta, int S, const long* pos, long t) {
  long tr = t, offset = 0, scale = 1;
  for (int d = S - 1; d >= 0; --d) {
    const long k = tr % SY_K(d);
    tr /= SY_K(d);
    const long p = pos[d] * SY_STRIDE(d) - SY_PAD(d) + k * SY_DIL(d);
    if (p < 0 || p >= SY_IN(d)) return -1;
    offset += p * scale;
    scale *= SY_IN(d);
  }
  return offset;
}

#ifdef CONV
// x [N, C, in...], w [M, C / group, k...], bias [M] (slot C, with HAS_BIAS) -> y [N, M, out...]
__kernel void sy_conv(__global const uchar* xb, ulong xo, __global const uchar* wb, ulong wo,
                      __global const uchar* bb, ulong bo, __global uchar* yb, ulong yo, ulong n,
                      long C, long M, long group, int S, long in_count, long out_count,
                      long tap_count, __global const long* meta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* w = SY_CPTR(ST_A, wb, wo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const sy_conv_at at = sy_conv_index(i, C, M, group, out_count);
  const long m = at.m, nb = at.nb, cpg = at.cpg, g = at.g;
  long pos[3] = {0, 0, 0};
  sy_out_position(meta, S, at.o, pos);
#ifdef HAS_BIAS
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  ct acc = LOAD_C(bias, m);
#else
  ct acc = 0;
#endif
  for (long c = 0; c < cpg; ++c) {
    const long x_base = (nb * C + g * cpg + c) * in_count;
    const long w_base = (m * cpg + c) * tap_count;
    for (long t = 0; t < tap_count; ++t) {
      const long offset = sy_tap_offset(meta, S, pos, t);
      if (offset < 0) continue;
      acc += LOAD_A(x, x_base + offset) * LOAD_A(w, w_base + t);
    }
  }
  STORE_Y(y, (long)i, acc);
}
#endif  // CONV

#ifdef QLINEAR_CONV
// qlinear_conv (docs/ops.md; plugins/cpu/src/ref/conv_pool_ref.cpp QLinearConv), one
// work-item per y[n, m, o]: x (slot A) and x_zero_point, w (slot B) and w_zero_point (one,
// or one per output channel: wz_count), y and y_zero_point (slot Y), bias (i32, slot C,
// with HAS_BIAS); the scales f32 (x_scale and y_scale one each, w_scale ws_count); Y_LO
// and Y_HI the output type's range, as floats.
// acc = bias[m] + sum over the taps inside x of (x - x_zero_point)(w - w_zero_point[m]),
// exact in 64 bits, then plugins/common/qlinear_requantize.h's RequantizeToCode step by
// step: the f32 product of f32(acc) and the channel's multiplier, rounded half to even,
// plus y_zero_point, saturated in float before any conversion.
//
// The multiplier f32(f32(x_scale * w_scale) / y_scale) is computed here, in integers,
// rounded as IEEE f32 arithmetic rounds (ties to even, subnormals kept): a device's float
// division need not be correctly rounded, nor its float arithmetic keep subnormals, and
// the multiplier must equal the host's (QLinearMultiplier) bit for bit. The host checks
// the scales (QLinearScaleProblem, after the run); on scales it refuses the multiplier
// here is 0, so that no NaN reaches a conversion.

// The bits of the positive f32 nearest to (m + s) * 2^e, ties to even, s in [0, 1) and
// nonzero when `sticky`; infinity on overflow. Callers that pass sticky give m at least 26
// significant bits, so that s lies below the rounding position (it only breaks a tie).
inline uint sy_q_round(ulong m, int e, int sticky) {
  if (m == 0) return 0u;
  const int n = 64 - (int)clz(m);
  const int shift = max(n - 24, -149 - e);  // the result's last bit is 2^(e + shift)
  ulong q;
  if (shift <= 0) {
    q = m << (-shift);
  } else if (shift > 64) {
    return 0u;  // (m + s) * 2^e < 2^-150: below half the smallest subnormal
  } else {
    const ulong r = shift == 64 ? m : m & ((((ulong)1) << shift) - 1);
    const ulong halfway = ((ulong)1) << (shift - 1);
    q = shift == 64 ? 0 : m >> shift;
    if (r > halfway || (r == halfway && (sticky || (q & 1)))) ++q;
  }
  // q < 2^23 only at the subnormal exponent (e + shift = -149); q = 2^24 after rounding
  // carries into the exponent through the addition.
  const long bits = ((long)(e + shift + 149) << 23) + (long)q;
  return bits >= 0x7f800000L ? 0x7f800000u : (uint)bits;
}

// A positive finite f32's significand and exponent: bits u is m * 2^e.
inline ulong sy_q_significand(uint u) {
  return (u >> 23) != 0 ? (ulong)((u & 0x7fffffu) | 0x800000u) : (ulong)u;
}
inline int sy_q_exponent(uint u) { return (int)max(u >> 23, 1u) - 150; }

// f32(a * b) for positive finite a and b, as bits.
inline uint sy_q_mul(uint a, uint b) {
  return sy_q_round(sy_q_significand(a) * sy_q_significand(b), sy_q_exponent(a) + sy_q_exponent(b),
                    0);
}

// f32(a / b) for finite a >= 0 (infinity gives infinity) and positive finite b, as bits.
inline uint sy_q_div(uint a, uint b) {
  if (a == 0u || a >= 0x7f800000u) return a;
  ulong ma = sy_q_significand(a), mb = sy_q_significand(b);
  int ea = sy_q_exponent(a), eb = sy_q_exponent(b);
  const int na = 64 - (int)clz(ma), nb = 64 - (int)clz(mb);
  ma <<= 24 - na;  // both in [2^23, 2^24)
  ea -= 24 - na;
  mb <<= 24 - nb;
  eb -= 24 - nb;
  const ulong num = ma << 40;  // the quotient has 40 or 41 bits
  return sy_q_round(num / mb, ea - eb - 40, (num % mb) != 0);
}

// The channel's multiplier, or 0 when a scale is not positive and finite or the
// multiplier overflows (the host reports those).
inline float sy_q_multiplier(uint x_scale, uint w_scale, uint y_scale) {
  const uint largest = 0x7f7fffffu;  // positive finite: bits 1 to largest
  if (x_scale - 1u >= largest || w_scale - 1u >= largest || y_scale - 1u >= largest) return 0.0f;
  const uint m = sy_q_div(sy_q_mul(x_scale, w_scale), y_scale);
  return m >= 0x7f800000u ? 0.0f : as_float(m);
}

__kernel void sy_qlinear_conv(__global const uchar* xb, ulong xo, __global const uchar* xsb,
                              ulong xso, __global const uchar* xzb, ulong xzo,
                              __global const uchar* wb, ulong wo, __global const uchar* wsb,
                              ulong wso, __global const uchar* wzb, ulong wzo,
                              __global const uchar* ysb, ulong yso, __global const uchar* yzb,
                              ulong yzo, __global const uchar* bb, ulong bo, __global uchar* yb,
                              ulong yo, ulong n, long C, long M, long group, int S, long in_count,
                              long out_count, long tap_count, __global const long* meta,
                              long ws_count, long wz_count) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* w = SY_CPTR(ST_B, wb, wo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const sy_conv_at at = sy_conv_index(i, C, M, group, out_count);
  const long m = at.m, nb = at.nb, cpg = at.cpg, g = at.g;
  long pos[3] = {0, 0, 0};
  sy_out_position(meta, S, at.o, pos);
  const long x_zero = LOAD_A(SY_CPTR(ST_A, xzb, xzo), 0);
  const long w_zero = LOAD_B(SY_CPTR(ST_B, wzb, wzo), wz_count > 1 ? m : 0);
  const long y_zero = LOAD_Y(SY_CPTR(ST_Y, yzb, yzo), 0);
#ifdef HAS_BIAS
  long acc = LOAD_C(SY_CPTR(ST_C, bb, bo), m);
#else
  long acc = 0;
#endif
  for (long c = 0; c < cpg; ++c) {
    const long x_base = (nb * C + g * cpg + c) * in_count;
    const long w_base = (m * cpg + c) * tap_count;
    for (long t = 0; t < tap_count; ++t) {
      const long offset = sy_tap_offset(meta, S, pos, t);
      if (offset < 0) continue;
      acc += (LOAD_A(x, x_base + offset) - x_zero) * (LOAD_B(w, w_base + t) - w_zero);
    }
  }
  const float multiplier =
      sy_q_multiplier(SY_CPTR(uint, xsb, xso)[0], SY_CPTR(uint, wsb, wso)[ws_count > 1 ? m : 0],
                      SY_CPTR(uint, ysb, yso)[0]);
  const float product = convert_float_rte(acc) * multiplier;
  const float code = rint(product) + (float)y_zero;  // exact within the output's range
  const long value = code <= Y_LO ? (long)Y_LO : code >= Y_HI ? (long)Y_HI : (long)code;
  STORE_Y(y, (long)i, value);
}
#endif  // QLINEAR_CONV

#ifdef DEFORM_CONV
// deform_conv (2-D), one work-item per y[n, o, i, j]: x [N, C, H, W], w [O, C / group, kH,
// kW], offset [N, G * 2 * kH * kW, oH, oW] (slot A, x's dtype), bias [O] (slot C, with
// HAS_BIAS), mask [N, G * kH * kW, oH, oW] (slot A, with HAS_MASK). Each tap samples x
// bilinearly at (i * sh - ph + u * dh + offset_h, j * sw - pw + v * dw + offset_w), zeros
// outside the input. Semantics of plugins/cpu/src/ref/conv_pool_ref.cpp's DeformConv.
inline ct sy_dc_at(__global const ST_A* x, long base, long r, long q, long H, long W) {
  return (r < 0 || r >= H || q < 0 || q >= W) ? (ct)0 : (ct)LOAD_A(x, base + r * W + q);
}

__kernel void sy_deform_conv(__global const uchar* xb, ulong xo, __global const uchar* wb,
                             ulong wo, __global const uchar* fb, ulong fo,
                             __global const uchar* bb, ulong bo, __global const uchar* mb,
                             ulong mo, __global uchar* yb, ulong yo, ulong n, long C, long H,
                             long W, long O, long kH, long kW, long oH, long oW, long group,
                             long offset_group, long sh, long sw, long ph, long pw, long dh,
                             long dw) {
  const size_t idx = get_global_id(0);
  if (idx >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* w = SY_CPTR(ST_A, wb, wo);
  __global const ST_A* off = SY_CPTR(ST_A, fb, fo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long j = (long)(idx % (ulong)oW);
  const long i = (long)((idx / (ulong)oW) % (ulong)oH);
  const long o = (long)((idx / (ulong)(oW * oH)) % (ulong)O);
  const long b = (long)(idx / (ulong)(oW * oH * O));
  const long cpg = C / group;
  const long g = o / (O / group);
  const long cpo = C / offset_group;
  const long taps = kH * kW;
  const long plane = oH * oW;
  const long at = i * oW + j;
#ifdef HAS_BIAS
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  ct sum = LOAD_C(bias, o);
#else
  ct sum = 0;
#endif
#ifdef HAS_MASK
  __global const ST_A* mask = SY_CPTR(ST_A, mb, mo);
#endif
  for (long ci = 0; ci < cpg; ++ci) {
    const long c = g * cpg + ci;
    const long og = c / cpo;
    const long base = (b * C + c) * H * W;
    for (long u = 0; u < kH; ++u) {
      for (long v = 0; v < kW; ++v) {
        const long tap = u * kW + v;
        const long o_at = ((b * offset_group + og) * taps + tap) * 2 * plane + at;
        const ct hh = (ct)(i * sh - ph + u * dh) + (ct)LOAD_A(off, o_at);
        const ct ww = (ct)(j * sw - pw + v * dw) + (ct)LOAD_A(off, o_at + plane);
#ifdef HAS_MASK
        const ct m = LOAD_A(mask, ((b * offset_group + og) * taps + tap) * plane + at);
#else
        const ct m = 1;
#endif
        ct sample = 0;
        if (isfinite(hh) && isfinite(ww)) {
          if (hh > -1 && ww > -1 && hh < (ct)H && ww < (ct)W) {
            const ct h0 = floor(hh), w0 = floor(ww);
            const ct lh = hh - h0, lw = ww - w0;
            const long r = (long)h0, q = (long)w0;
            sample = (1 - lh) * ((1 - lw) * sy_dc_at(x, base, r, q, H, W) +
                                 lw * sy_dc_at(x, base, r, q + 1, H, W)) +
                     lh * ((1 - lw) * sy_dc_at(x, base, r + 1, q, H, W) +
                           lw * sy_dc_at(x, base, r + 1, q + 1, H, W));
          }
        } else {
          sample = NAN;
        }
        sum += LOAD_A(w, ((o * cpg + ci) * kH + u) * kW + v) * m * sample;
      }
    }
  }
  STORE_Y(y, (long)idx, sum);
}
#endif  // DEFORM_CONV

#ifdef ROI_ALIGN
// roi_align, one work-item per y[r, c, ph, pw]: x [N, C, H, W] and rois [R, 4] (slot A),
// batch_indices [R] (IT). Semantics of plugins/cpu/src/ref/conv_pool_ref.cpp's RoiAlign
// (ONNX's reference): the bin's grid of bilinear samples, averaged or the largest weighted
// corner (max). A batch index outside [0, N) sets err[slot_index]; a roi that is not
// finite or needs more than 2^20 samples per bin sets err[slot_roi]; the output is then 0.
__kernel void sy_roi_align(__global const uchar* xb, ulong xo, __global const uchar* rb, ulong ro,
                           __global const uchar* ib, ulong io, __global uchar* yb, ulong yo,
                           ulong n, long N, long C, long H, long W, long oH, long oW,
                           long sampling, ct scale, int half_pixel, int max_mode,
                           __global int* err, uint slot_index, uint slot_roi) {
  const size_t idx = get_global_id(0);
  if (idx >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* rois = SY_CPTR(ST_A, rb, ro);
  __global const IT* index = (__global const IT*)(ib + io);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long pw = (long)(idx % (ulong)oW);
  const long ph = (long)((idx / (ulong)oW) % (ulong)oH);
  const long c = (long)((idx / (ulong)(oW * oH)) % (ulong)C);
  const long r = (long)(idx / (ulong)(oW * oH * C));
  const long b = (long)index[r];
  if (b < 0 || b >= N) {
    err[slot_index] = 1;
    STORE_Y(y, (long)idx, (ct)0);
    return;
  }
  const ct shift = half_pixel ? (ct)0.5 : (ct)0;
  const ct x1 = (ct)LOAD_A(rois, r * 4) * scale - shift;
  const ct y1 = (ct)LOAD_A(rois, r * 4 + 1) * scale - shift;
  const ct x2 = (ct)LOAD_A(rois, r * 4 + 2) * scale - shift;
  const ct y2 = (ct)LOAD_A(rois, r * 4 + 3) * scale - shift;
  ct roi_w = x2 - x1, roi_h = y2 - y1;
  if (!half_pixel) {
    roi_w = fmax(roi_w, (ct)1);
    roi_h = fmax(roi_h, (ct)1);
  }
  const ct bin_h = roi_h / (ct)oH, bin_w = roi_w / (ct)oW;
  const ct grid_hd = sampling > 0 ? (ct)sampling : ceil(bin_h);
  const ct grid_wd = sampling > 0 ? (ct)sampling : ceil(bin_w);
  if (!isfinite(x1) || !isfinite(y1) || !isfinite(x2) || !isfinite(y2) ||
      grid_hd * grid_wd > (ct)1048576) {
    err[slot_roi] = 1;
    STORE_Y(y, (long)idx, (ct)0);
    return;
  }
  const long grid_h = grid_hd > 0 ? (long)grid_hd : 0;
  const long grid_w = grid_wd > 0 ? (long)grid_wd : 0;
  const ct count = (ct)max(grid_h * grid_w, 1L);
  const long base = (b * C + c) * H * W;
  ct value = 0;
  int first = 1;
  for (long iy = 0; iy < grid_h; ++iy) {
    const ct yy = y1 + (ct)ph * bin_h + ((ct)iy + (ct)0.5) * bin_h / (ct)grid_h;
    for (long ix = 0; ix < grid_w; ++ix) {
      const ct xx = x1 + (ct)pw * bin_w + ((ct)ix + (ct)0.5) * bin_w / (ct)grid_w;
      ct v0 = 0, v1 = 0, v2 = 0, v3 = 0;
      if (!(yy < -1 || yy > (ct)H || xx < -1 || xx > (ct)W)) {
        ct sy = fmax(yy, (ct)0), sx = fmax(xx, (ct)0);
        long y_low = (long)sy, x_low = (long)sx, y_high = y_low + 1, x_high = x_low + 1;
        if (y_low >= H - 1) {
          y_high = y_low = H - 1;
          sy = (ct)y_low;
        }
        if (x_low >= W - 1) {
          x_high = x_low = W - 1;
          sx = (ct)x_low;
        }
        const ct ly = sy - (ct)y_low, lx = sx - (ct)x_low, hy = 1 - ly, hx = 1 - lx;
        v0 = hy * hx * (ct)LOAD_A(x, base + y_low * W + x_low);
        v1 = hy * lx * (ct)LOAD_A(x, base + y_low * W + x_high);
        v2 = ly * hx * (ct)LOAD_A(x, base + y_high * W + x_low);
        v3 = ly * lx * (ct)LOAD_A(x, base + y_high * W + x_high);
      }
      if (max_mode) {
        const ct m = fmax(fmax(v0, v1), fmax(v2, v3));
        value = first ? m : fmax(value, m);
        first = 0;
      } else {
        value += v0 + v1 + v2 + v3;
      }
    }
  }
  if (!max_mode) value /= count;
  STORE_Y(y, (long)idx, value);
}
#endif  // ROI_ALIGN

#ifdef IM2COL
// The column matrix of one batch item and group for the GEMM path of conv:
// col [C/group * taps, out_count], row (c, t), column o; taps in the padding give 0.
// x_base is the element index of the group's first input channel of this batch item.
__kernel void sy_im2col(__global const uchar* xb, ulong xo, __global uchar* colb, ulong n,
                        long x_base, int S, long in_count, long out_count, long tap_count,
                        __global const long* meta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_A* col = (__global ST_A*)colb;
  const long o = (long)(i % (ulong)out_count);
  const long r = (long)(i / (ulong)out_count);
  const long c = r / tap_count;
  long tr = r % tap_count, rest = o, offset = 0, scale = 1;
  int inside = 1;
  for (int d = S - 1; d >= 0; --d) {
    const long k = tr % SY_K(d);
    tr /= SY_K(d);
    const long q = rest % SY_OUT(d);
    rest /= SY_OUT(d);
    const long p = q * SY_STRIDE(d) - SY_PAD(d) + k * SY_DIL(d);
    inside = inside && p >= 0 && p < SY_IN(d);
    offset += p * scale;
    scale *= SY_IN(d);
  }
  col[i] = inside ? x[x_base + c * in_count + offset] : (ST_A)0;
}
#endif  // IM2COL

#ifdef CONV_BIAS
// y [N, M, out_count] = bias[m], before the GEMMs of conv add the products (beta 1).
__kernel void sy_conv_bias(__global const uchar* bb, ulong bo, __global uchar* yb, ulong yo,
                           ulong n, long M, long out_count) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  STORE_Y(y, (long)i, (CT_Y)LOAD_C(bias, (long)(i / (ulong)out_count) % M));
}
#endif  // CONV_BIAS

#ifdef POOL
// x [N, C, in...] -> y [N, C, out...]; MAX_POOL or the average (COUNT_INCLUDE_PAD: divide
// by the taps inside the padded input).
__kernel void sy_pool(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo, ulong n,
                      int S, long in_count, long out_count, long tap_count,
                      __global const long* meta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long o = (long)(i % (ulong)out_count);
  const long x_base = (long)(i / (ulong)out_count) * in_count;
  long pos[3] = {0, 0, 0};
  sy_out_position(meta, S, o, pos);
  ct best = -INFINITY, sum = 0;
  long in_bounds = 0, in_padded = 0;
  for (long t = 0; t < tap_count; ++t) {
    long tr = t, offset = 0, scale = 1;
    int inside = 1, inside_padded = 1;
    for (int d = S - 1; d >= 0; --d) {
      const long k = tr % SY_K(d);
      tr /= SY_K(d);
      const long p = pos[d] * SY_STRIDE(d) - SY_PAD(d) + k * SY_DIL(d);
      inside = inside && p >= 0 && p < SY_IN(d);
      inside_padded = inside_padded && p >= -SY_PAD(d) && p < SY_IN(d) + SY_PAD_END(d);
      offset += p * scale;
      scale *= SY_IN(d);
    }
    if (inside_padded) ++in_padded;
    if (!inside) continue;
    ++in_bounds;
    const ct v = LOAD_A(x, x_base + offset);
    if (!isnan(best) && (isnan(v) || v > best)) best = v;  // NaN sticks
    sum += v;
  }
#ifdef MAX_POOL
  STORE_Y(y, (long)i, best);
#else
#ifdef COUNT_INCLUDE_PAD
  const long divisor = in_padded;
#else
  const long divisor = in_bounds;
#endif
  STORE_Y(y, (long)i, divisor == 0 ? (ct)NAN : sum / (ct)divisor);
#endif
}
#endif  // POOL

#ifdef CONV_TRANSPOSE
// conv_transpose as a gather: one work-item per y[n, m, o]; x [N, C, in...], w (slot B)
// [C, M / group, k...], bias (slot C) [M]. meta per spatial dim: in, out, kernel, stride,
// pad_begin, dilation. y[n, m, o] = bias[m] + sum over the group's channels c and taps t
// with o = i * stride + t * dilation - pad_begin of x[n, c, i] * w[c, m', t].
__kernel void sy_conv_transpose(__global const uchar* xb, ulong xo, __global const uchar* wb,
                                ulong wo, __global const uchar* bb, ulong bo,
                                __global uchar* yb, ulong yo, ulong n_out, int spatial,
                                __global const long* meta, long channels, long out_channels,
                                long cpg, long opg, long in_count, long out_count,
                                long tap_count, int has_bias) {
  const size_t idx = get_global_id(0);
  if (idx >= n_out) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* w = SY_CPTR(ST_B, wb, wo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long o = (long)idx % out_count;
  const long m = ((long)idx / out_count) % out_channels;
  const long nb = (long)idx / (out_count * out_channels);
  const long g = m / opg, mg = m % opg;
  long pos[3];
  long r = o;
  for (int d = spatial - 1; d >= 0; --d) {
    const long dim = meta[6 * d + 1];
    pos[d] = r % dim;
    r /= dim;
  }
  CT_A acc = 0;
#ifdef HAS_BIAS
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  acc = LOAD_C(bias, m);
#endif
  for (long cc = 0; cc < cpg; ++cc) {
    const long c = g * cpg + cc;
    const long x_base = (nb * channels + c) * in_count;
    const long w_base = (c * opg + mg) * tap_count;
    for (long t = 0; t < tap_count; ++t) {
      long rt = t, off = 0, inside = 1;
      long tap[3];
      for (int d = spatial - 1; d >= 0; --d) {
        const long k = meta[6 * d + 2];
        tap[d] = rt % k;
        rt /= k;
      }
      for (int d = 0; d < spatial; ++d) {
        const long num = pos[d] + meta[6 * d + 4] - tap[d] * meta[6 * d + 5];
        const long stride = meta[6 * d + 3];
        if (num < 0 || num % stride != 0) {
          inside = 0;
          break;
        }
        const long i = num / stride;
        if (i >= meta[6 * d]) {
          inside = 0;
          break;
        }
        off = off * meta[6 * d] + i;
      }
      if (!inside) continue;
      acc += LOAD_A(x, x_base + off) * LOAD_B(w, w_base + t);
    }
  }
  STORE_Y(y, idx, acc);
}
#endif  // CONV_TRANSPOSE
