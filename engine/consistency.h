// File: engine/consistency.h
//
// The consistency simulation of a test double (dynarock/db.h Options):
// IndexLag and StaleReads.
//
// Options::gsi_lag_*: global secondary index entries applied a while after
// their write. Batches are queued in write order, each due at its commit
// time plus a lag drawn from the seeded generator, and never before the one
// ahead of it; a thread applies each when due. Pending batches are applied
// at once by Drain (at close) or dropped by Clear (a reset or snapshot
// restore, which replaces what they were computed from).
//
// Options::stale_read_seconds: eventually consistent reads of a table that
// may show recently written items as they were. Every write remembers, for
// each item it writes, the item's image before it (nullopt: there was none),
// kept while the item is written within the window; the image of the first
// of the window's writes stays, so a stale read may go back that far. An
// eventually consistent GetItem or BatchGetItem key asks Stale() for its key;
// an eventually consistent Query or Scan of the table asks PickRange() once
// for the keys its range covers and merges those images into its iteration
// (engine/query_scan.cc). Each remembered key a read meets is stale with the
// probability, drawn from the generator seeded by Options::consistency_seed,
// so a sequence of requests reads the same way under the same seed.
// ConsistentRead=true, transactions, conditions and index reads never ask.

#ifndef DYNAROCK_ENGINE_CONSISTENCY_H_
#define DYNAROCK_ENGINE_CONSISTENCY_H_

#include <rocksdb/write_batch.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <mutex>
#include <random>
#include <thread>

#include "dynarock/status.h"

namespace dynarock {

class IndexLag {
 public:
  // `write` commits a batch; `now` is the database's clock (seconds).
  IndexLag(double min_seconds, double max_seconds, uint64_t seed,
           std::function<Status(rocksdb::WriteBatch*)> write, std::function<double()> now);
  ~IndexLag();  // Drain()s

  void Enqueue(rocksdb::WriteBatch batch);
  // Applies everything pending now, in order.
  void Drain();
  // Drops everything pending.
  void Clear();
  size_t pending() const;

 private:
  void Run();
  // Applies the first batch if it is due. Takes apply_mu_ before mu_, as
  // Clear() and Drain() do: the lag thread once took them the other way round
  // and could deadlock with a Clear() (found by TSan, scripts/sanitize.sh).
  void ApplyDue();
  struct Entry {
    double due = 0;
    rocksdb::WriteBatch batch;
  };
  const double min_, max_;
  std::function<Status(rocksdb::WriteBatch*)> write_;
  std::function<double()> now_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> queue_;  // GUARDED_BY(mu_), by due time
  std::mt19937_64 rng_;      // GUARDED_BY(mu_)
  double last_due_ = 0;      // GUARDED_BY(mu_)
  bool stopping_ = false;    // GUARDED_BY(mu_)
  std::mutex apply_mu_;      // one batch applied at a time, in order; before mu_
  std::thread thread_;
};

// Options::stale_read_seconds: the image of each recently written item before
// its write, for eventually consistent reads of the table to return instead
// of the latest (DBImpl::GetItem, BatchGetItem, RunRead). Keys are items'
// storage keys (engine/key_codec.h), so the map's order is the items column
// family's: a table's keys are one contiguous range of it. Thread-safe.
class StaleReads {
 public:
  StaleReads(double seconds, double probability, uint64_t seed)
      : seconds_(seconds), probability_(probability), rng_(seed ^ 0x5eed) {}
  // False: the simulation is off, and nothing else need be called.
  bool enabled() const { return seconds_ > 0; }
  // After a commit at `now`: each written key with its image before the
  // write (nullopt: the write created it). Consumes *previous's strings.
  void Remember(std::vector<std::pair<std::string, std::optional<std::string>>>* previous,
                double now);
  // True when this read is to be stale: *image is the item before its latest
  // write (nullopt: none).
  bool Stale(const std::string& key, double now, std::optional<std::string>* image);

  // One item a stale range read shows instead of the stored one: `image`, or
  // nothing (nullopt: the item was created within the window, so the read
  // does not see it, even when it exists now).
  struct StaleImage {
    std::string key;
    std::optional<std::string> image;
  };
  // For one eventually consistent read of the keys in [lower, upper): the
  // keys written within the window that this read sees stale, each drawn as
  // Stale() draws one key, in ascending key order (the draws too). Keys not
  // returned read as they are stored now. The work is proportional to the
  // remembered keys in the range, not to the range's items; pass the range
  // the read can reach (after its ExclusiveStartKey) to draw no more.
  std::vector<StaleImage> PickRange(std::string_view lower, std::string_view upper, double now);
  void Clear();

 private:
  // One draw of the probability. PRE: mu_ held.
  bool Draw();
  struct Entry {
    std::optional<std::string> image;
    double until = 0;
  };
  const double seconds_, probability_;
  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> recent_;  // GUARDED_BY(mu_)
  std::mt19937_64 rng_;                               // GUARDED_BY(mu_)
  size_t since_sweep_ = 0;                            // GUARDED_BY(mu_)
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CONSISTENCY_H_
