/// @file parallel_rows.hpp
/// @brief parallel_rows(n, body): body(i) for every i in [0, n) on up to hardware_concurrency
///        threads, rows dealt round-robin: the CPU references' and the grader's checks' one loop.
#pragma once

#include <algorithm>
#include <thread>
#include <vector>

namespace convlab {

/// Calls body(i) for i in [0, n) on up to hardware_concurrency threads (one thread per 16 rows
/// at most, so that a small job is not split into threads that cost more than they save).
/// `body` must be safe to call concurrently for different i.
template <class Body>
void parallel_rows(int n, Body body) {
  const int threads = std::max(1, std::min<int>(n / 16, static_cast<int>(std::thread::hardware_concurrency())));
  if (threads <= 1) {
    for (int i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=] {
      for (int i = t; i < n; i += threads) body(i);
    });
  }
  for (auto& th : pool) th.join();
}

}  // namespace convlab
