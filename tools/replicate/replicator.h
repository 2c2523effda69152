// File: tools/replicate/replicator.h
//
// Replicator: ships a local table's changes, read from its DynamoDB stream, to
// a table on another DynamoDB-compatible endpoint (AWS, DynamoDB Local,
// Alternator, another `dynarock serve`), in stream order.
//
//   client::HttpClientOptions o;
//   o.endpoint = "https://dynamodb.eu-west-1.amazonaws.com";
//   auto remote = client::HttpClient::Create(o);
//   ReplicatorOptions r;
//   r.table = "notes";
//   Replicator replicator(db.get(), remote->get(), r);
//   auto shipped = replicator.RunOnce();   // everything written so far
//
// Checkpoint: the sequence number of the last record applied, kept in the
// local database (DB::SaveCheckpoint) after every applied batch. A restart,
// even after kill -9, resumes after it; records applied but not yet
// checkpointed are applied again, which is harmless: a record is applied as a
// PutItem of its new image or a DeleteItem of its key, so applying it twice
// leaves what applying it once does, and records of one item keep their order.
//
// Conflicts: by default the local side wins (every change overwrites the
// remote item). With `version_attribute` set, a change is applied only when
// the remote item is absent or its version is not newer than the change's
// (a conditional write); a refused one is counted in `conflicts` and skipped.
//
// The local table needs a stream. With NEW_IMAGE or NEW_AND_OLD_IMAGES the
// images are shipped; with KEYS_ONLY or OLD_IMAGE each changed item is read
// back from the local table (its state now, which a later record of the same
// item then ships again). The remote table is created with the local key
// schema (on demand) when it does not exist. A consumer that falls behind the
// stream's retention loses changes: that is counted in `gaps` and reported to
// on_error, and shipping goes on.

#ifndef DYNAROCK_TOOLS_REPLICATE_REPLICATOR_H_
#define DYNAROCK_TOOLS_REPLICATE_REPLICATOR_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "client/client.h"
#include "dynarock/db.h"

namespace dynarock {

struct ReplicatorProgress {
  int64_t shipped = 0;    // records applied to the remote table
  int64_t conflicts = 0;  // changes refused because the remote item was newer
  int64_t retries = 0;    // batches sent again after a throttling or network error
  int64_t gaps = 0;       // times changes were trimmed before they could be shipped
  std::string position;   // the checkpoint: last sequence number applied
};

struct ReplicatorOptions {
  std::string table;         // the local table
  std::string remote_table;  // empty: the same name
  // Where the checkpoint is kept; empty: "replicate/<table>/<remote>".
  std::string checkpoint_name;
  // Conditional mode: the number attribute that orders versions of an item.
  std::string version_attribute;
  bool create_remote_table = true;
  // Retries of one batch after the client's own retries gave up (network down,
  // throttling), with exponential backoff up to max_backoff. 0: until stopped.
  int max_batch_attempts = 0;
  std::chrono::milliseconds max_backoff{5000};
  std::function<void(const ReplicatorProgress&)> on_progress;
  // Run(): keep trying when the table does not exist yet or has no stream, and
  // after any error, instead of returning (a server that replicates for as
  // long as it runs). Each error is reported to on_error, once until it changes.
  bool keep_going = false;
  std::function<void(const Status&)> on_error;
};

class Replicator {
 public:
  // `local` and `remote` must outlive the Replicator.
  Replicator(DB* local, client::Client* remote, ReplicatorOptions options);

  // Ships every record written so far, then returns how many it shipped.
  StatusOr<int64_t> RunOnce();
  // Ships records as they are written until `stop` becomes true.
  Status Run(const std::atomic<bool>& stop);

  const ReplicatorProgress& progress() const { return progress_; }

 private:
  Status Prepare();
  // One pass over the table's streams from the checkpoint; *shipped counts.
  Status Pass(const std::atomic<bool>* stop, int64_t* shipped);
  Status Apply(const std::vector<StreamRecord>& records, const std::atomic<bool>* stop);
  Status ApplyBatch(const std::vector<const StreamRecord*>& batch, const std::atomic<bool>* stop);
  Status ApplyConditional(const StreamRecord& r, const std::atomic<bool>* stop);
  Status Checkpoint(const std::string& sequence_number);
  StatusOr<std::optional<Item>> ReadBack(const StreamRecord& r);
  // Runs `call` until it succeeds, fails for good, or `stop`.
  Status WithRetries(const std::function<Status()>& call, const std::atomic<bool>* stop);

  DB* local_;
  client::Client* remote_;
  ReplicatorOptions options_;
  ReplicatorProgress progress_;
  bool prepared_ = false;
};

}  // namespace dynarock

#endif  // DYNAROCK_TOOLS_REPLICATE_REPLICATOR_H_
