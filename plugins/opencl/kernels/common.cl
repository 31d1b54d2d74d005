// Shared by every program: the host puts a generated prelude before this file (the
// element types of each tensor slot, see src/cl_types.cpp) and the op family's file
// after it.
//
// Each tensor slot X (A, B, C, Y, ...) has
//   ST_X            its storage type (half and bf16 are stored as half / ushort)
//   CT_X            its compute type: float for f32 f16 bf16, double for f64, long for the
//                   integers and bool
//   LOAD_X(p, i)    element i of p as CT_X (bool loads as 0/1)
//   STORE_X(p,i,v)  stores v (CT_X) with one rounding (floats) or wrapping (integers)
//   RT_X            an unsigned type of the element's size, for bit-exact movement
// Buffers arrive as (uchar pointer, byte offset): views of an arena at any offset.

#define SY_PTR(type, base, offset) ((__global type*)((__global uchar*)(base) + (offset)))
#define SY_CPTR(type, base, offset) \
  ((__global const type*)((__global const uchar*)(base) + (offset)))

// bf16 <-> float. To bf16: round to nearest even; NaN stays a (quiet) NaN.
inline float sy_bf16_to_float(ushort v) { return as_float(((uint)v) << 16); }
inline ushort sy_float_to_bf16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}

// A long as a float rounded to odd: converting it on to f16 or bf16 (at least 2 bits
// shorter) rounds exactly as one direct rounding would.
inline float sy_long_to_float_odd(long v) {
  const int negative = v < 0;
  ulong m = negative ? (ulong)0 - (ulong)v : (ulong)v;
  int shift = 0;
  uint sticky = 0;
  while (m >= ((ulong)1 << 24)) {
    sticky |= (uint)(m & 1u);
    m >>= 1;
    ++shift;
  }
  if (sticky) m |= 1u;
  const float f = ldexp((float)m, shift);
  return negative ? -f : f;
}

#ifdef SY_HAS_FP64
// The same for a double (used for f64 -> f16 / bf16).
inline float sy_double_to_float_odd(double d) {
  float f = (float)d;
  if (isnan(d) || (double)f == d || isinf(f)) return f;
  if (fabs((double)f) > fabs(d)) f = nextafter(f, 0.0f);
  return as_float(as_uint(f) | 1u);
}
#endif
