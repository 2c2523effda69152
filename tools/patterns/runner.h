// File: tools/patterns/runner.h
//
// The measuring core of `dynarock patterns`. A Suite is a data model: a setup
// that creates tables and generates items in a fresh embedded in-memory DB, and
// named access patterns, each one function that performs one execution of the
// pattern (one or more DynamoDB requests) through a Session. The Session sends
// every request with ReturnConsumedCapacity=INDEXES, times the DB call and adds
// up what the request read and consumed; RunSuite runs each pattern
// `iterations` times (after `warmup` unmeasured runs) and reduces that to one
// PatternResult per pattern:
//
//   per execution (means): requests, items read (evaluated, as billed: a
//     Query/Scan's ScannedCount, each item a GetItem/BatchGetItem/TransactGetItems
//     found), bytes read (DynamoDB item sizes of every item evaluated, what
//     reads are billed on), items returned, bytes returned (sizes of the items
//     returned), RCU and WCU (ConsumedCapacity, plus what DynamoDB bills for a
//     failed condition or a cancelled transaction; on-demand bills the same
//     numbers as read/write request units), errors;
//   latency: p50/p99/mean of one execution's time inside DB calls (building
//     requests and decoding JSON are not counted), plus round_trip_us per
//     request;
//   cost: USD per million executions = RCU * read price + WCU * write price, the
//     prices being USD per million request units.
//
// Everything but the latencies is deterministic for a given seed.

#ifndef DYNAROCK_TOOLS_PATTERNS_RUNNER_H_
#define DYNAROCK_TOOLS_PATTERNS_RUNNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::patterns {

// On-demand prices in USD per million request units. The defaults are AWS's
// us-east-1 prices for the Standard table class (https://aws.amazon.com/dynamodb/pricing/on-demand/,
// after the 50% on-demand reduction of 1 November 2024).
struct Prices {
  double read_per_million = 0.125;   // per million read request units (RRU)
  double write_per_million = 0.625;  // per million write request units (WRU)
};

// A deterministic pseudo-random sequence (splitmix64).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); 0 when n <= 0.
  int64_t Uniform(int64_t n) {
    return n <= 0 ? 0 : static_cast<int64_t>(Next() % static_cast<uint64_t>(n));
  }

 private:
  uint64_t state_;
};

// What one execution did.
struct ExecutionStats {
  int64_t requests = 0;
  int64_t items_read = 0;
  int64_t items_returned = 0;
  int64_t bytes_read = 0;      // DynamoDB-sized bytes evaluated (what reads are billed on)
  int64_t bytes_returned = 0;
  double rcu = 0;
  double wcu = 0;
  int64_t errors = 0;
  double seconds = 0;  // inside DB calls
};

// Measured access to the DB. Each call forces ReturnConsumedCapacity=INDEXES
// (the response carries it), counts one request and adds its numbers to
// stats(). A failed request counts as a request and an error; its status is
// returned.
class Session {
 public:
  explicit Session(DB* db) : db_(db) {}

  StatusOr<GetItemResponse> GetItem(GetItemRequest req);
  StatusOr<PutItemResponse> PutItem(PutItemRequest req);
  StatusOr<UpdateItemResponse> UpdateItem(UpdateItemRequest req);
  StatusOr<DeleteItemResponse> DeleteItem(DeleteItemRequest req);
  StatusOr<QueryResponse> Query(QueryRequest req);
  StatusOr<ScanResponse> Scan(ScanRequest req);
  StatusOr<BatchGetItemResponse> BatchGetItem(BatchGetItemRequest req);
  StatusOr<BatchWriteItemResponse> BatchWriteItem(BatchWriteItemRequest req);
  StatusOr<TransactGetItemsResponse> TransactGetItems(TransactGetItemsRequest req);
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(TransactWriteItemsRequest req);

  DB* db() const { return db_; }
  ExecutionStats& stats() { return stats_; }

 private:
  template <typename Req, typename Resp>
  StatusOr<Resp> Call(Req& req, StatusOr<Resp> (DB::*op)(const Req&), bool read_op);

  DB* db_;
  ExecutionStats stats_;
};

// One execution of a pattern; `iteration` counts from 0 (warm-up runs included),
// `rng` is the pattern's own deterministic sequence.
using PatternFn = std::function<Status(Session& session, int64_t iteration, Rng& rng)>;

struct Pattern {
  std::string name;
  std::string description;
  int64_t iterations = 0;  // 0: RunOptions::iterations
  PatternFn run;
  // When true, an error response aborts the run (the default: patterns are
  // expected to succeed). When false, errors are counted and the run goes on.
  bool abort_on_error = true;
};

struct Suite {
  std::string name;         // e.g. "adjacency"
  std::string title;        // one line
  std::string description;  // what the comparison shows
  std::function<Status(DB* db, Rng& rng)> setup;
  std::vector<Pattern> patterns;
};

struct RunOptions {
  int64_t iterations = 200;
  int64_t warmup = 10;
  uint64_t seed = 1;
  Prices prices;
  // Added to an execution's latency per request it makes: models the network
  // round trip an embedded run does not have (0: none).
  double round_trip_us = 0;
};

struct PatternResult {
  std::string comparison;
  std::string pattern;
  std::string description;
  int64_t executions = 0;
  // Means per execution.
  double requests = 0;
  double items_read = 0;
  double items_returned = 0;
  double bytes_read = 0;
  double bytes_returned = 0;
  double rcu = 0;
  double wcu = 0;
  double errors = 0;
  // Microseconds per execution.
  double p50_us = 0;
  double p99_us = 0;
  double mean_us = 0;
  // USD per million executions.
  double cost_per_million = 0;
};

// Opens a fresh in-memory DB, runs the suite's setup and then each pattern, in
// order (a pattern sees the writes of the ones before it), appending one result
// per pattern to *results.
Status RunSuite(const Suite& suite, const RunOptions& options, std::vector<PatternResult>* results);

// The nearest-rank percentile (0 < p <= 1) of `values` (sorted in place).
double Percentile(std::vector<double>* values, double p);

// Writes `items` with BatchWriteItem, 25 at a time, retrying unprocessed items.
Status BatchPut(DB* db, const std::string& table, std::vector<Item> items);

}  // namespace dynarock::patterns

#endif  // DYNAROCK_TOOLS_PATTERNS_RUNNER_H_
