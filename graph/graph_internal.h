// File: graph/graph_internal.h
//
// Helpers shared by graph.cc, graph_writes.cc, graph_upkeep.cc, traversal.cc and
// bulk_loader.cc. Not a public header.

#ifndef DYNAROCK_GRAPH_GRAPH_INTERNAL_H_
#define DYNAROCK_GRAPH_GRAPH_INTERNAL_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/client.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "graph/graph.h"

namespace dynarock::graph::internal {

inline AttributeValue S(std::string s) { return AttributeValue::S(std::move(s)); }

// The layer's own expression placeholders (users' filters must not use #g_/:g_).
inline constexpr char kPk[] = "#g_pk";
inline constexpr char kSk[] = "#g_sk";
inline constexpr char kRk[] = "#g_rk";
inline constexpr char kEs[] = "#g_es";
inline constexpr char kTy[] = "#g_ty";
inline constexpr char kIn[] = "#g_in";
inline constexpr char kPg[] = "#g_pg";

// A batch get spread over concurrent requests (Graph::BatchGetEach) gives each
// at least this many keys.
inline constexpr size_t kBatchSplitMinKeys = 8;

// Removing edges of ranked types: how many times in a row a transaction may find
// a rank changed under it (re-read and retried) before the call gives up.
inline constexpr int kMaxRankRaces = 8;

// A DynamoDB refusal of an item or transaction over its size limit.
inline bool IsSizeError(std::string_view message) {
  return message.find("maximum allowed size") != std::string_view::npos;
}

// Sleeps before retry `attempt` (0-based): exponential with full jitter, 10 ms base,
// 1 s cap.
inline void Backoff(int attempt) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  int64_t cap = std::min<int64_t>(1000, int64_t{10} << std::min(attempt, 10));
  std::uniform_int_distribution<int64_t> d(0, cap);
  std::this_thread::sleep_for(std::chrono::milliseconds(d(rng)));
}

// `filter` (may be absent) AND "valid at `at`": valid_from <= at and (no
// valid_to or valid_to >= at), on the schema's validity attributes (seed 004).
Filter WithValidAt(const Schema& schema, const std::optional<Filter>& filter, int64_t at);

// Runs fn(0) .. fn(n - 1) on up to `concurrency` threads (the calling thread
// among them), each index once; returns the error of the lowest index that
// failed. With concurrency 1, or one index, everything runs on the caller's
// thread, in order.
Status ParallelFor(size_t n, int concurrency, const std::function<Status(size_t)>& fn);

// ---- Edge pages (graph/edge_pages.cc): an edge set too large for its node.
//
// An entry lives in the page whose label (a string of '0'/'1') is a prefix of
// its hash's bits, lowest bit first; the labels of a node are prefix-free and
// cover every hash, so exactly one page holds each entry. A page with
// kEdgePageMaxEntries entries, or one an ADD would push past 400 KB, splits in
// two (label + "0", label + "1") in one transaction.
inline constexpr size_t kEdgePageMaxEntries = 2048;
// A spill or split cuts pages down to at most this many entries and bytes.
inline constexpr size_t kEdgePageSplitEntries = 1024;
inline constexpr size_t kEdgePageSplitBytes = 160 * 1024;
// Labels are at most this long (2^kEdgePageMaxDepth pages).
inline constexpr size_t kEdgePageMaxDepth = 40;
// A spill or split writes at most this many pages (with the node, or the node
// and the page replaced, within a transaction's 100 items).
inline constexpr size_t kEdgePageMaxPartition = 64;

std::shared_ptr<EdgePageCache> NewEdgePageCache();

// FNV-1a, 64 bits: the same on every platform and every client.
uint64_t EdgeEntryHash(std::string_view entry);
// The label of `labels` that holds `entry`; empty when none does.
std::string EdgePageOf(const std::vector<std::string>& labels, std::string_view entry);
// `entries` (all below `label`) cut into pages below `label`, each within
// kEdgePageSplitEntries and kEdgePageSplitBytes (or at kEdgePageMaxDepth),
// with more entries a page when that would make more than `max_pages` pages
// (0: no bound); at least two pages. Label -> entries; a page may be empty.
std::map<std::string, std::vector<std::string>> PartitionEdgeSet(std::vector<std::string> entries,
                                                                 const std::string& label,
                                                                 size_t max_pages);

// Writes `items` (puts) with BatchWriteItem, 25 per request, retrying
// UnprocessedItems with backoff (bounded).
Status BatchPut(client::Client* client, const std::string& table, std::vector<Item> items,
                int64_t* requests);

}  // namespace dynarock::graph::internal

#endif  // DYNAROCK_GRAPH_GRAPH_INTERNAL_H_
