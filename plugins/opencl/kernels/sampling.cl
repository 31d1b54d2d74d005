// The sampling family (src/ops_sampling.cpp): `sample`, the steps of docs/ops.md
// ("Sampling") in double, one work-group per row of logits. Semantics (and the order of
// every sum): plugins/cpu/src/ref/sampling_ref.cpp.
//
// What the text leaves order-free runs across the work-group: the NaN check (the lowest
// index), the largest logit or z (the first index on ties), p, the sort by p of the
// candidates (a bitonic network in the row's scratch; step 4 says which) and marking what
// a method drops (p = -1). The sums whose order the text fixes (S, top_p's prefix, total
// and the walk) run on item 0, one addition at a time.
//
// The host defines ST_A / LOAD_A (the logits) and, when the node has uniform numbers,
// HAS_UNIFORM with ST_U / LOAD_U. The program needs cl_khr_fp64.

#pragma OPENCL FP_CONTRACT OFF

#define SY_GREEDY 0
#define SY_TEMPERATURE 1
#define SY_TOP_K 2
#define SY_TOP_P 3
#define SY_MIN_P 4

// Whether (vb, ib) beats (va, ia) for the largest value, the first index on ties; an
// index < 0 is "none yet".
inline int sy_sample_better(double va, long ia, double vb, long ib) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
  return vb > va || (vb == va && ib < ia);
}

// The order "by p": p descending, then index ascending. Every p is >= 0 (exp, or 1), so
// its bits (the key) order as its value does.
inline int sy_by_p_before(ulong ka, int ia, ulong kb, int ib) {
  return ka > kb || (ka == kb && ia < ib);
}

// Sorts keys[0, n) with idx into the order by p (n a power of two): a bitonic network
// across the work-group, through global memory. Every item of the group calls it.
inline void sy_sort_by_p(__global ulong* keys, __global int* idx, long n, int lid, int wg) {
  for (long k = 2; k <= n; k <<= 1) {
    for (long j = k >> 1; j > 0; j >>= 1) {
      for (long t = lid; t < n / 2; t += wg) {
        const long a = (t / j) * 2 * j + t % j;
        const long b = a + j;
        const ulong ka = keys[a], kb = keys[b];
        const int ia = idx[a], ib = idx[b];
        // Blocks of k alternate direction; the last (k == n) is "by p" throughout.
        const int swap =
            (a & k) == 0 ? sy_by_p_before(kb, ib, ka, ia) : sy_by_p_before(ka, ia, kb, ib);
        if (swap) {
          keys[a] = kb;
          keys[b] = ka;
          idx[a] = ib;
          idx[b] = ia;
        }
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
    }
  }
}

// One work-group per row r (get_group_id), any power-of-two size; lv, li, ln: local
// scratch of one entry per item. p_all: [N, V] doubles; keys_all / idx_all: [N, P] (P the
// power of two >= V), read only by the methods that sort (top_k with k < V, top_p).
// status[2r], status[2r + 1]: 0, 0; or 1 and the index of the row's first NaN; or 2 and
// the bits of the uniform number outside [0, 1) (as a double). method: SY_GREEDY ...
__kernel void sy_sample(__global const uchar* xb, ulong xo, __global const uchar* ub, ulong uo,
                        __global uchar* tb, ulong to, __global long* status,
                        __global double* p_all, __global ulong* keys_all,
                        __global int* idx_all, long V, long P, int method, double temperature,
                        long top_k, double top_p, double min_p, __local double* lv,
                        __local long* li, __local long* ln) {
  const long r = get_group_id(0);
  const int lid = get_local_id(0);
  const int wg = get_local_size(0);
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global long* token = SY_PTR(long, tb, to);
  const ulong base = (ulong)r * (ulong)V;
  const int greedy = method == SY_GREEDY;
  __local int count;  // step 4's candidates

  // 1. The first NaN, and the largest logit (greedy) or z = logit / temperature.
  double best = -INFINITY;
  long at = -1, nan_at = -1;
  for (long i = lid; i < V; i += wg) {
    const double xi = (double)LOAD_A(x, base + i);
    if (isnan(xi)) {
      if (nan_at < 0) nan_at = i;
      continue;
    }
    const double v = greedy ? xi : xi / temperature;
    if (at < 0 || v > best) {
      best = v;
      at = i;
    }
  }
  lv[lid] = best;
  li[lid] = at;
  ln[lid] = nan_at;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = wg / 2; s > 0; s >>= 1) {
    if (lid < s) {
      if (sy_sample_better(lv[lid], li[lid], lv[lid + s], li[lid + s])) {
        lv[lid] = lv[lid + s];
        li[lid] = li[lid + s];
      }
      const long other = ln[lid + s];
      if (other >= 0 && (ln[lid] < 0 || other < ln[lid])) ln[lid] = other;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const double m = lv[0];
  const long arg = li[0];
  nan_at = ln[0];

  // 2. Data errors (a NaN first, then the uniform number), greedy's token.
  double u = 0.0;
#ifdef HAS_UNIFORM
  if (!greedy) u = (double)LOAD_U(SY_CPTR(ST_U, ub, uo), r);
#endif
  const int bad_u = !greedy && !(u >= 0.0 && u < 1.0);
  if (lid == 0) {
    status[2 * r] = nan_at >= 0 ? 1 : bad_u ? 2 : 0;
    status[2 * r + 1] = nan_at >= 0 ? nan_at : bad_u ? as_long(u) : 0;
    token[r] = greedy ? arg : 0;
  }
  if (nan_at >= 0 || bad_u || greedy) return;  // the same for every item of the group

  // 3. p = 1 where z is the maximum, else exp(z - max); min_p marks what it drops (-1).
  __global double* p = p_all + base;
  for (long i = lid; i < V; i += wg) {
    const double z = (double)LOAD_A(x, base + i) / temperature;
    double pi = z == m ? 1.0 : exp(z - m);
    if (method == SY_MIN_P && !(pi >= min_p)) pi = -1.0;
    p[i] = pi;
  }

  // 4. top_k (k < V) and top_p: the tokens by p, then what lies past the cut marked -1.
  // Only the candidates with p >= floor_p are sorted: they are the first ones by p, so the
  // walk over them is the walk over every token as far as they go. A floor that leaves
  // too few (fewer than k, or a prefix short of top_p's threshold) is lowered, to 0 (every
  // token) at the last.
  if (method == SY_TOP_P || (method == SY_TOP_K && top_k < V)) {
    __global ulong* keys = keys_all + (ulong)r * (ulong)P;
    __global int* idx = idx_all + (ulong)r * (ulong)P;
    barrier(CLK_GLOBAL_MEM_FENCE);
    double threshold = 0.0;  // top_p's, on item 0: S in ascending index order
    if (method == SY_TOP_P && lid == 0) {
      double all = 0.0;
      for (long i = 0; i < V; ++i) all += p[i];
      threshold = top_p * all;
    }
    for (int level = 0;; ++level) {
      const double floor_p = level == 0   ? 0x1p-10
                             : level == 1 ? 0x1p-20
                             : level == 2 ? 0x1p-40
                                          : 0.0;
      barrier(CLK_LOCAL_MEM_FENCE);  // the last level's count and cut are read
      if (lid == 0) count = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      for (long i = lid; i < V; i += wg) {
        const double pi = p[i];
        if (pi >= floor_p) {
          const int at = atomic_inc(&count);
          keys[at] = as_ulong(pi);
          idx[at] = (int)i;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
      const long c = count;
      if (method == SY_TOP_K && c < top_k) continue;  // floor 0 has c = V > top_k
      long n = 1;
      while (n < c) n <<= 1;
      for (long i = c + lid; i < n; i += wg) {  // padding (key 0, index >= V) sorts last
        keys[i] = 0;
        idx[i] = (int)(V + i);
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
      sy_sort_by_p(keys, idx, n, lid, wg);
      if (method == SY_TOP_P) {
        // The prefix by p, to the first that reaches the threshold; past the candidates
        // at floor 0, every token (rounding left the prefix short).
        if (lid == 0) {
          double prefix = 0.0;
          long cut = floor_p > 0.0 ? -1 : V;
          for (long j = 0; j < c; ++j) {
            prefix += as_double(keys[j]);
            if (prefix >= threshold) {
              cut = j + 1;
              break;
            }
          }
          ln[0] = cut;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (ln[0] < 0) continue;
      }
      const long cut = method == SY_TOP_P ? ln[0] : top_k;
      for (long i = lid; i < V; i += wg) {
        if (p[i] < floor_p) p[i] = -1.0;
      }
      for (long j = cut + lid; j < c; j += wg) p[idx[j]] = -1.0;
      break;
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE);

  // 5. total of the kept p, then the walk: the first kept token whose running sum
  // exceeds u * total (the last kept one should rounding leave none above it).
  if (lid == 0) {
    double total = 0.0;
    for (long i = 0; i < V; ++i) {
      if (p[i] >= 0.0) total += p[i];
    }
    const double target = u * total;
    double running = 0.0;
    long last = -1;
    for (long i = 0; i < V; ++i) {
      const double pi = p[i];
      if (pi < 0.0) continue;
      running += pi;
      last = i;
      if (running > target) break;
    }
    token[r] = last;
  }
}
