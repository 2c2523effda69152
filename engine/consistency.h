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

#ifndef DYNAROCK_ENGINE_CONSISTENCY_H_
#define DYNAROCK_ENGINE_CONSISTENCY_H_

#include <rocksdb/write_batch.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
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
  std::mutex apply_mu_;      // one batch applied at a time, in order
  std::thread thread_;
};

// Options::stale_read_seconds: the image of each recently written item before
// its write, for eventually consistent GetItems to return instead of the
// latest (DBImpl::GetItem).
class StaleReads {
 public:
  StaleReads(double seconds, double probability, uint64_t seed)
      : seconds_(seconds), probability_(probability), rng_(seed ^ 0x5eed) {}
  bool enabled() const { return seconds_ > 0; }
  void Remember(std::vector<std::pair<std::string, std::optional<std::string>>>* previous,
                double now);
  // True when this read is to be stale: *image is the item before its latest
  // write (nullopt: none).
  bool Stale(const std::string& key, double now, std::optional<std::string>* image);
  void Clear();

 private:
  struct Entry {
    std::optional<std::string> image;
    double until = 0;
  };
  const double seconds_, probability_;
  std::mutex mu_;
  std::map<std::string, Entry> recent_;  // GUARDED_BY(mu_)
  std::mt19937_64 rng_;                  // GUARDED_BY(mu_)
  size_t since_sweep_ = 0;               // GUARDED_BY(mu_)
};

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_CONSISTENCY_H_
