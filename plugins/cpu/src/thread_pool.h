// The CPU plugin's worker threads: one pool per plugin context, shared by every session
// and executable prepared from it. Kernels split loops with ParallelFor; a pool of one
// thread (or a null pool) runs everything on the calling thread.
//
// Ownership and lifetime: the context owns the pool; executables borrow a pointer to it
// (the host destroys executables before shutting the context down). The destructor
// joins every worker, so no thread outlives the context, and the library can be
// unloaded after shutdown.
//
// Threading: ParallelFor may be called from any number of threads at once. One caller at
// a time gets the workers; a caller that finds them busy (another session, or a nested
// ParallelFor from inside a loop body) runs its loop inline on its own thread. Results
// never depend on which thread ran which chunk, provided the loop body writes disjoint
// outputs per index, as every kernel does.
//
// Whose threads: where the plugin is built with OpenMP (it is whenever it runs oneDNN,
// whose Debian build threads with OpenMP), a loop runs on the calling thread's OpenMP team
// (`#pragma omp parallel`), the same threads oneDNN's primitives run on, and the pool
// starts no threads of its own. Two sets of threads on the same cores fought: after each
// primitive oneDNN's idle team thread spins for a while in libgomp, and a worker of our
// own woken then waited for a core behind it. On one team the spinning thread takes the
// next loop at once (ViT-S at 2 threads: 56 ms against 67; docs/cpu-kernels.md). Without
// OpenMP the pool starts num_threads - 1 std::thread workers that sleep on a condition
// variable between loops. The chunking, and so every result, is the same either way.
//
// Loop bodies must not throw (they are invoked through a noexcept trampoline: an
// exception terminates the process); kernels check their inputs and report errors on the
// calling thread before splitting any work.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace sy::cpu {

class ThreadPool {
 public:
  // `num_threads` >= 1 counts the calling thread (capped at kMaxThreads). Without OpenMP
  // the pool starts num_threads - 1 workers; if the system refuses to start one it keeps
  // the ones it has. num_threads() says how many threads loops really use.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();  // wakes and joins every worker; no loop may be running

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  static constexpr int kMaxThreads = 256;

  // The threads a loop can use, the caller included.
  int num_threads() const { return threads_; }

  // Calls fn(begin, end) over contiguous chunks that cover [0, n) exactly once, on the
  // workers and the calling thread, and returns when every chunk is done. Every chunk but
  // the last has at least `min_grain` indices. When n is under two grains or the pool has
  // one thread, fn(0, n) runs inline with no synchronisation at all; when another caller
  // holds the workers, it runs inline after one failed compare-exchange.
  template <typename Fn>
  void ParallelFor(int64_t n, int64_t min_grain, Fn&& fn) {
    if (n <= 0) return;
    if (min_grain < 1) min_grain = 1;
    if (threads_ == 1 || n / min_grain < 2) {
      fn(int64_t{0}, n);
      return;
    }
    using F = std::remove_reference_t<Fn>;
    Run(
        n, min_grain, [](void* f, int64_t b, int64_t e) noexcept { (*static_cast<F*>(f))(b, e); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Invoke = void (*)(void* fn, int64_t begin, int64_t end) noexcept;

  // The split-and-wait path of ParallelFor (n is at least two grains).
  void Run(int64_t n, int64_t min_grain, Invoke invoke, void* fn);
  // Claims and runs chunks of the current job until none are left.
  void RunChunks(Invoke invoke, void* fn, int64_t n, int64_t chunk, int64_t num_chunks);
  void WorkerLoop();

  int threads_ = 1;                   // the caller plus the workers (or team threads)
  std::vector<std::thread> workers_;  // without OpenMP only

  // Taken (with a compare-exchange, never blocking) by the caller that owns the workers
  // for one ParallelFor; a std::mutex would make a nested try_lock undefined behaviour.
  std::atomic<bool> busy_{false};

  // The current job, written under mu_ while no worker is inside a job (active_ == 0).
  std::mutex mu_;
  std::condition_variable work_cv_;  // workers: a job was opened, or stop_
  std::condition_variable done_cv_;  // caller: active_ dropped to 0
  uint64_t generation_ = 0;          // incremented per job; a worker joins each job once
  bool open_ = false;                // workers may still join the current job
  bool stop_ = false;
  int active_ = 0;  // workers inside the current job
  Invoke invoke_ = nullptr;
  void* fn_ = nullptr;
  int64_t n_ = 0, chunk_ = 0, num_chunks_ = 0;
  std::atomic<int64_t> next_chunk_{0};  // chunks are claimed with fetch_add
};

// ParallelFor on `pool`, or fn(0, n) on the calling thread when `pool` is null.
template <typename Fn>
void ParallelFor(ThreadPool* pool, int64_t n, int64_t min_grain, Fn&& fn) {
  if (pool == nullptr) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, min_grain, std::forward<Fn>(fn));
}

// The number of cores this process may run on (its CPU affinity mask), at least 1.
int DefaultThreadCount();

}  // namespace sy::cpu
