// File: engine/api/capacity_limits.h
//
// Capacity enforcement for the test double (`dynarock serve --enforce-capacity`,
// Handler::SetCapacityLimits): requests are throttled the way DynamoDB throttles
// them when they outrun the throughput a table was given.
//
//   - A PROVISIONED table and each of its global secondary indexes have a read
//     and a write token bucket filled at their ReadCapacityUnits and
//     WriteCapacityUnits per second. Unused capacity is kept for up to
//     `burst_seconds` (DynamoDB's burst capacity: 300 s), counted from the
//     table's creation: a new table holds one second of capacity, and burst
//     is earned by not using it, as on DynamoDB.
//   - An ON_DEMAND table (or GSI) with OnDemandThroughput has buckets at its
//     MaxReadRequestUnits/MaxWriteRequestUnits, with one second of burst. One
//     without is not limited.
//   - With `partition_limits`, every partition key value of a table (and of a
//     GSI, for Query) also has buckets at 3,000 read and 1,000 write units per
//     second (DynamoDB's per-partition limits), one second of burst: a hot key
//     is throttled even when the table has capacity to spare.
//
// A request is admitted when every bucket it draws from holds a whole unit
// (the least a request costs); what it consumed (the ConsumedCapacity the engine
// computes, by table and index) is then taken from them, so one large request
// may leave a bucket in debt that later requests wait out, as on DynamoDB. A
// write draws from the table's write bucket and every provisioned GSI's: a GSI
// short of write capacity throttles the table's writes (DynamoDB's
// back-pressure). Reads of a GSI draw from the GSI; reads of an LSI from the
// table.
//
// What a throttled request gets:
//   - ProvisionedThroughputExceededException (provisioned tables, hot keys of
//     provisioned tables) or ThrottlingException (on-demand maximum, hot keys
//     of on-demand tables), with ThrottlingReasons naming the table or index
//     ARN and why ("TableWriteProvisionedThroughputExceeded",
//     "IndexWriteProvisionedThroughputExceeded",
//     "TableReadMaxOnDemandThroughputExceeded",
//     "TableWriteKeyRangeThroughputExceeded", ...);
//   - BatchWriteItem/BatchGetItem: the throttled requests come back in
//     UnprocessedItems/UnprocessedKeys; only when all of them are throttled,
//     the exception;
//   - TransactWriteItems/TransactGetItems: TransactionCanceledException whose
//     CancellationReasons say ProvisionedThroughputExceeded (or
//     ThrottlingError) for the throttled items and None for the rest.
//
// Time is `clock` (the database clock of `serve`, which the control API moves):
// advancing it refills the buckets. Buckets of a table are keyed by its
// TableId, so a table deleted and created again starts afresh; one
// CapacityLimits may serve several databases (namespaces). Thread-safe.

#ifndef DYNAROCK_API_CAPACITY_LIMITS_H_
#define DYNAROCK_API_CAPACITY_LIMITS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/status.h"

namespace dynarock::api {

struct CapacityLimitOptions {
  bool enforce = true;  // off: requests pass, nothing is counted
  double burst_seconds = 300;
  bool partition_limits = false;
  double partition_read_units = 3000;
  double partition_write_units = 1000;
  // Seconds since the epoch; the system clock when empty.
  std::function<double()> clock;
};

// What a request consumed of a table itself (its LSIs included, its GSIs
// not): the table's entry with INDEXES, else all of it.
Capacity TableOwnCapacity(const ConsumedCapacity& c);

class CapacityLimits {
 public:
  explicit CapacityLimits(CapacityLimitOptions options);
  ~CapacityLimits();
  CapacityLimits(const CapacityLimits&) = delete;
  CapacityLimits& operator=(const CapacityLimits&) = delete;

  // Whether limits are enforced, and per partition key too; changed while
  // serving (the control API), buckets kept.
  bool enforced() const { return enforce_.load(std::memory_order_relaxed); }
  bool partition_limits() const { return partition_limits_.load(std::memory_order_relaxed); }
  void Enforce(bool on, bool partition_limits);
  // The same from JSON {"enforce":B,"partitionLimits":B} (an absent member
  // keeps its value): a ValidationException, changing nothing, for anything
  // else. The control API's PUT /_dynarock/capacity and dynarock_set_capacity.
  Status EnforceJson(std::string_view body);

  // What one part of a request draws on: reading or writing `table` (a name
  // or an ARN) through `index` (empty: the table itself; an LSI counts as the
  // table), for the partition key `partition` (KeyText; empty: not known)
  // and the sort key `sort` (KeyText; empty: none, or not one item's).
  struct Draw {
    std::string table;
    std::string index;
    bool write = false;
    std::string partition;
    std::string sort;
  };
  // OK when every bucket `d` draws from holds a unit; else the throttling
  // error (with its ThrottlingReasons) for the first that does not. A table
  // that does not exist is not limited (the operation reports it).
  Status Admit(DB* db, const Draw& d);

  // Takes what a request consumed from the buckets its draws (as admitted)
  // drew on: `consumed` as the engine reports it with ReturnConsumedCapacity
  // INDEXES (one entry per table, named as the draws name it); `write` says
  // which units a bare CapacityUnits is (transactions give Read/Write
  // CapacityUnits themselves). A table's units are spread evenly over the
  // partition keys its draws name; an index's go to the partition of a draw
  // through that index.
  void Charge(DB* db, const std::vector<ConsumedCapacity>& consumed, bool write,
              const std::vector<Draw>& draws);

  // Forgets every bucket (a reset of the database).
  void Clear();

  // {"enforce":B,"partitionLimits":B,"burstSeconds":N,"buckets":[{"table",
  // "index","kind":"read"|"write","partitionKey","units","rate","burst"}]}
  // (partition buckets only when not full), for the control API.
  std::string StateJson();

 // What one table may consume (capacity_limits.cc).
  struct Limits;

 private:
  struct Bucket {
    double tokens = 0;
    double at = 0;     // when `tokens` was last brought up to date
    double rate = 0;   // units per second
    double burst = 0;  // the most it holds
  };
  std::shared_ptr<const Limits> LimitsOf(DB* db, const std::string& table);
  double Now() const;
  // The bucket `key` at `rate` units per second holding up to `burst`,
  // brought up to `now`; a new one holds what its table (made at `born`)
  // left unused, at least one second's.
  Bucket& BucketAt(const std::string& key, double rate, double burst, double born, double now);
  // Drops partition buckets that are full again (as good as new).
  void Sweep(double now);

  const CapacityLimitOptions options_;
  std::atomic<bool> enforce_;
  std::atomic<bool> partition_limits_;
  std::mutex mu_;
  // Each database's tables' limits, kept while its CatalogVersion stays.
  struct Catalog {
    uint64_t version = 0;
    std::map<std::string, std::shared_ptr<const Limits>, std::less<>> tables;
  };
  std::map<DB*, Catalog> catalogs_;                     // GUARDED_BY(mu_)
  std::map<std::string, Bucket, std::less<>> buckets_;  // GUARDED_BY(mu_)
  size_t since_sweep_ = 0;                              // GUARDED_BY(mu_)
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_CAPACITY_LIMITS_H_
