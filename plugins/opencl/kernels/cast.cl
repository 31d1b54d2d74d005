// cast: x in slot A, y in slot Y; CAST_EXPR(v) (chosen by the host, src/ops_elementwise.cpp)
// turns LOAD_A's value into what STORE_Y stores. Semantics of the reference kernel:
// float -> integer truncates toward zero and saturates, NaN -> 0 (convert_*_sat_rtz);
// anything -> bool is v != 0 (NaN -> true); integers wrap; every cast to a float dtype
// rounds once (f64 and the integers go to f16 / bf16 through a float rounded to odd).
__kernel void sy_cast(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                      ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const CT_A v = LOAD_A(x, i);
  STORE_Y(y, i, CAST_EXPR(v));
}
