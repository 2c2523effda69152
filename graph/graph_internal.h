// File: graph/graph_internal.h
//
// Helpers shared by graph.cc, traversal.cc and bulk_loader.cc. Not a public header.

#ifndef DYNAROCK_GRAPH_GRAPH_INTERNAL_H_
#define DYNAROCK_GRAPH_GRAPH_INTERNAL_H_

#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "graph/client.h"

namespace dynarock::graph::internal {

inline AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }

// Sleeps before retry `attempt` (0-based): exponential with full jitter, 10 ms base,
// 1 s cap.
inline void Backoff(int attempt) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t cap = std::min<int64_t>(1000, int64_t{10} << std::min(attempt, 10));
  std::uniform_int_distribution<int64_t> d(0, cap);
  std::this_thread::sleep_for(std::chrono::milliseconds(d(rng)));
}

// Runs fn(0) .. fn(n - 1) on up to `concurrency` threads (the calling thread
// among them), each index once; returns the error of the lowest index that
// failed. With concurrency 1, or one index, everything runs on the caller's
// thread, in order.
Status ParallelFor(size_t n, int concurrency, const std::function<Status(size_t)>& fn);

// Writes `items` (puts) with BatchWriteItem, 25 per request, retrying
// UnprocessedItems with backoff (bounded).
Status BatchPut(Client* client, const std::string& table, std::vector<Item> items,
                int64_t* requests);

}  // namespace dynarock::graph::internal

#endif  // DYNAROCK_GRAPH_GRAPH_INTERNAL_H_
