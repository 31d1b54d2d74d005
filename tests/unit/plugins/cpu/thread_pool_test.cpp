// The CPU plugin's ThreadPool: every index covered exactly once in contiguous chunks of
// at least the grain, small loops inline on the caller, concurrent and nested callers,
// and clean destruction (idle, or right after work).
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace sy::cpu {
namespace {

TEST(ThreadPool, CountsTheCallerAndClampsItsSize) {
  EXPECT_EQ(ThreadPool(1).num_threads(), 1);
  EXPECT_EQ(ThreadPool(3).num_threads(), 3);
  EXPECT_EQ(ThreadPool(0).num_threads(), 1);
  EXPECT_EQ(ThreadPool(-5).num_threads(), 1);
  EXPECT_GE(DefaultThreadCount(), 1);
}

TEST(ThreadPool, CoversEveryIndexOnceInContiguousChunks) {
  for (int threads : {1, 2, 3, 4, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 7, 100, 1000, 16383, 16384, 32768, 100003}) {
      for (int64_t grain : {1, 7, 1000, 16384}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
        std::mutex mu;
        std::vector<std::pair<int64_t, int64_t>> chunks;
        pool.ParallelFor(n, grain, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)]++;
          std::lock_guard<std::mutex> lock(mu);
          chunks.emplace_back(begin, end);
        });
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1)
              << "index " << i << " of n " << n << ", grain " << grain << ", " << threads
              << " threads";
        }
        // Chunks tile [0, n) and only the last may be shorter than the grain.
        std::sort(chunks.begin(), chunks.end());
        int64_t expected_begin = 0, short_chunks = 0;
        for (const auto& [begin, end] : chunks) {
          EXPECT_EQ(begin, expected_begin);
          EXPECT_LT(begin, end);
          if (end - begin < grain) ++short_chunks;
          expected_begin = end;
        }
        EXPECT_EQ(expected_begin, n);
        EXPECT_LE(short_chunks, 1) << "n " << n << ", grain " << grain;
        if (n < 2 * grain) {
          EXPECT_LE(chunks.size(), 1u) << "n " << n << " must run inline";
        }
      }
    }
  }
}

TEST(ThreadPool, SmallLoopRunsInlineOnTheCaller) {
  ThreadPool pool(4);
  std::vector<std::thread::id> ids;
  pool.ParallelFor(100, 16384, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 100);
    ids.push_back(std::this_thread::get_id());
  });
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ids[0], std::this_thread::get_id());
  // A null pool runs on the caller too.
  int calls = 0;
  ParallelFor(nullptr, 1 << 20, 1, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(end - begin, 1 << 20);
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

TEST(ThreadPool, WorkersTakePart) {
  ThreadPool pool(4);
  std::set<std::thread::id> ids;
  // Timing-dependent only in how soon workers wake: a few tries on a loaded machine.
  for (int attempt = 0; attempt < 20 && ids.size() < 2; ++attempt) {
    std::mutex mu;
    pool.ParallelFor(64, 1, [&](int64_t, int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    });
  }
  EXPECT_GE(ids.size(), 2u);
}

TEST(ThreadPool, ConcurrentCallersEachGetTheirWholeLoop) {
  ThreadPool pool(3);
  constexpr int kCallers = 4, kIterations = 200;
  constexpr int64_t kN = 50001;
  std::vector<std::vector<int>> counts(kCallers, std::vector<int>(kN, 0));
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&pool, &counts, c] {
      std::vector<int>& mine = counts[static_cast<size_t>(c)];
      for (int it = 0; it < kIterations; ++it) {
        // Each index is in exactly one chunk, so the plain increments never race.
        pool.ParallelFor(kN, 1000, [&mine](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) ++mine[static_cast<size_t>(i)];
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    for (int64_t i = 0; i < kN; ++i) {
      ASSERT_EQ(counts[static_cast<size_t>(c)][static_cast<size_t>(i)], kIterations)
          << "caller " << c << ", index " << i;
    }
  }
}

TEST(ThreadPool, NestedParallelForRunsInline) {
  ThreadPool pool(4);
  constexpr int64_t kOuter = 64, kInner = 5000;
  std::vector<std::atomic<int>> hits(kOuter * kInner);
  pool.ParallelFor(kOuter, 1, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      pool.ParallelFor(kInner, 100, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(o * kInner + i)]++;
      });
    }
  });
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ThreadPool, DestroysIdleAndJustUsedPools) {
  for (int round = 0; round < 50; ++round) {
    ThreadPool idle(4);  // workers possibly not yet waiting when it is destroyed
    ThreadPool used(4);
    std::atomic<int64_t> sum{0};
    used.ParallelFor(10000, 10, [&](int64_t begin, int64_t end) { sum += end - begin; });
    EXPECT_EQ(sum.load(), 10000);
  }
}

}  // namespace
}  // namespace sy::cpu
