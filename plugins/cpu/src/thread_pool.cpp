#include "thread_pool.h"

#include <sched.h>
#if defined(_OPENMP)
#include <dlfcn.h>
#endif

#include <algorithm>
#include <system_error>

namespace sy::cpu {

int DefaultThreadCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

ThreadPool::ThreadPool(int num_threads) {
  const int workers = std::clamp(num_threads, 1, kMaxThreads) - 1;
#if defined(_OPENMP)
  // OpenMP's team threads stay parked inside libgomp after a loop, so libgomp must stay
  // mapped if the host unloads this plugin (as the oneDNN kernels also arrange).
  dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  threads_ = workers + 1;
  return;
#endif
  workers_.reserve(static_cast<size_t>(workers));  // so that emplace_back never reallocates
  for (int i = 0; i < workers; ++i) {
    try {
      workers_.emplace_back([this] { WorkerLoop(); });
    } catch (const std::system_error&) {
      break;  // out of threads: run with the workers started so far
    }
  }
  threads_ = static_cast<int>(workers_.size()) + 1;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Run(int64_t n, int64_t min_grain, Invoke invoke, void* fn) {
  bool expected = false;
  if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
    invoke(fn, 0, n);  // another caller owns the workers: this one works alone
    return;
  }
  // A few chunks per thread, so that a thread slowed by other load (the machines are
  // shared) holds up the loop by one small chunk rather than by 1/num_threads of it.
  int64_t num_chunks = std::min<int64_t>(n / min_grain, int64_t{4} * num_threads());
  const int64_t chunk = (n + num_chunks - 1) / num_chunks;  // >= min_grain
  num_chunks = (n + chunk - 1) / chunk;
#if defined(_OPENMP)
  // The team claims chunks as the workers do below; the region's end is the barrier, and
  // its writes happen-before the return.
  next_chunk_.store(0, std::memory_order_relaxed);
#pragma omp parallel num_threads(threads_)
  RunChunks(invoke, fn, n, chunk, num_chunks);
  busy_.store(false, std::memory_order_release);
  return;
#endif
  {
    std::lock_guard<std::mutex> lock(mu_);
    invoke_ = invoke;
    fn_ = fn;
    n_ = n;
    chunk_ = chunk;
    num_chunks_ = num_chunks;
    next_chunk_.store(0, std::memory_order_relaxed);
    ++generation_;
    open_ = true;
  }
  work_cv_.notify_all();
  RunChunks(invoke, fn, n, chunk, num_chunks);
  // Every chunk is claimed. Close the job so that late workers stay out of it, and wait
  // for those inside to finish theirs; their writes happen-before this via mu_.
  {
    std::unique_lock<std::mutex> lock(mu_);
    open_ = false;
    done_cv_.wait(lock, [this] { return active_ == 0; });
  }
  busy_.store(false, std::memory_order_release);
}

void ThreadPool::RunChunks(Invoke invoke, void* fn, int64_t n, int64_t chunk, int64_t num_chunks) {
  for (;;) {
    const int64_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
    if (c >= num_chunks) return;
    const int64_t begin = c * chunk;
    invoke(fn, begin, std::min(begin + chunk, n));
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;  // the last job this worker joined
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stop_ || (open_ && generation_ != seen); });
    if (stop_) return;
    seen = generation_;
    ++active_;
    const Invoke invoke = invoke_;
    void* const fn = fn_;
    const int64_t n = n_, chunk = chunk_, num_chunks = num_chunks_;
    lock.unlock();
    RunChunks(invoke, fn, n, chunk, num_chunks);
    lock.lock();
    if (--active_ == 0) done_cv_.notify_one();
  }
}

}  // namespace sy::cpu
