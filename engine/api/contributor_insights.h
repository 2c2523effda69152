// File: engine/api/contributor_insights.h
//
// Contributor Insights counted from the requests api::Handler serves: while a
// table's or GSI's insights are on (DB::UpdateContributorInsights), each of its
// rules adds up, per key, what DynamoDB's rule of that name adds up:
//
//   PKC  most accessed partition keys: consumed throughput units, 3 per
//        write unit plus 1 per read unit;
//   SKC  the same per whole key (partition and sort key);
//   PKT  most throttled partition keys: throttled requests (or items of a
//        batch);
//   SKT  the same per whole key.
//
// A request's units are those it consumed (ConsumedCapacity with INDEXES):
// a table's spread evenly over the keys it names (one for GetItem, PutItem,
// UpdateItem and DeleteItem, each item of a batch or transaction), a GSI's to
// the partition key a Query of it names. A Query counts for its partition key
// only (it names no one sort key); a Scan names no key and is not counted,
// nor are PartiQL statements (as on DynamoDB). Throttles are those of the
// capacity limits (serve --enforce-capacity). Counts start again when
// insights are turned on anew, and are kept for at most 10,000 keys a rule
// (past that, the smaller half is forgotten: the top keys stay, approximate
// as CloudWatch's are). DescribeContributorInsights shows each rule's top ten
// as the extra member "DynarockTopContributors":
//
//   [{"RuleName": "DynamoDBContributorInsights-PKC-orders-1764230000000",
//     "Contributors": [{"Keys": ["user#1"], "ApproximateAggregateValue": 12}, ...]}]
//
// (Keys: the partition key, then the sort key for SK rules; texts as the
// request log writes them.) Thread-safe.

#ifndef DYNAROCK_API_CONTRIBUTOR_INSIGHTS_H_
#define DYNAROCK_API_CONTRIBUTOR_INSIGHTS_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dynarock/db.h"
#include "engine/api/capacity_limits.h"

namespace dynarock::api {

class ContributorCounter {
 public:
  using Draw = CapacityLimits::Draw;

  // Whether any table or GSI has insights on (read again when the catalog
  // changes).
  bool Active(DB* db);
  // Draws (with partition and sort keys) that were throttled (`throttled[i]`).
  void CountThrottles(DB* db, const std::vector<Draw>& draws, const std::vector<bool>& throttled);
  // What the admitted draws of a request consumed.
  void CountAccesses(DB* db, const std::vector<Draw>& draws,
                     const std::vector<ConsumedCapacity>& consumed, bool write);
  // The "DynarockTopContributors" JSON of `rules` (DescribeContributorInsights'
  // names) of `table`'s `index` ("" the table), `top` keys each.
  std::string TopJson(DB* db, const std::string& table, const std::string& index,
                      const std::vector<std::string>& rules, size_t top = 10);
  void Clear();

 private:
  using Counts = std::unordered_map<std::string, double>;  // key text -> value
  struct Resource {
    int64_t rules_ms = 0;
    bool accessed = true;  // ACCESSED_AND_THROTTLED_KEYS
    bool sort_key = false;
    Counts pkc, skc, pkt, skt;
  };
  using Id = std::pair<std::string, std::string>;  // table, index

  // Brings resources_ up to the catalog (mu_ held).
  void Refresh(DB* db);
  static void Add(Counts* counts, const std::string& key, double value);
  // The index a draw counts for: its GSI's name, or "" for the table (an LSI's
  // draws are the table's).
  static std::string IndexOf(DB* db, const Draw& d);

  std::mutex mu_;
  uint64_t version_ = 0;          // GUARDED_BY(mu_): the catalog's, when refreshed
  bool refreshed_ = false;        // GUARDED_BY(mu_)
  std::map<Id, Resource> resources_;  // GUARDED_BY(mu_): those with insights on
  // What Active() reads without the lock: the catalog version last read, and
  // whether anything was on then.
  std::atomic<uint64_t> seen_version_ = 0;
  std::atomic<bool> any_ = false;
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_CONTRIBUTOR_INSIGHTS_H_
