// random_uniform and random_normal (src/ops_sampling.cpp), one work-item per element:
// element i of seed s is a function of (s, i) alone, the splitmix64 stream of
// sdk/include/switchyard/random_stream.h (the reference, plugins/cpu/src/ref/sampling_ref.cpp),
// computed in double and stored with STORE_Y. The host defines ST_Y / STORE_Y and NORMAL
// (0 or 1). The program needs cl_khr_fp64.

#pragma OPENCL FP_CONTRACT OFF

inline ulong sy_splitmix_output(ulong z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
  return z ^ (z >> 31);
}

// Number i (from 0) of the stream of `seed`, in [0, 1) with 53 bits.
inline double sy_stream_uniform(ulong seed, ulong i) {
  return (double)(sy_splitmix_output(seed + (i + 1) * 0x9e3779b97f4a7c15UL) >> 11) *
         0x1.0p-53;
}

__kernel void sy_random(__global uchar* yb, ulong yo, ulong n, ulong seed, double a, double b) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
#if NORMAL
  const double u1 = sy_stream_uniform(seed, 2 * i);
  const double u2 = sy_stream_uniform(seed, 2 * i + 1);
  const double v = a + b * sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586476925286766559 * u2);
#else
  const double v = a + (b - a) * sy_stream_uniform(seed, i);
#endif
  STORE_Y(y, i, (CT_Y)v);
}
