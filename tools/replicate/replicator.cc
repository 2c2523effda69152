#include "tools/replicate/replicator.h"

#include <algorithm>
#include <random>
#include <set>
#include <thread>

#include "tools/replicate/stream_reader.h"

namespace dynarock {
namespace {

// Errors worth another try: the endpoint is busy, down or unreachable.
bool Retryable(const Status& s) {
  switch (s.type()) {
    case ErrorType::kProvisionedThroughputExceeded:
    case ErrorType::kRequestLimitExceeded:
    case ErrorType::kThrottling:
    case ErrorType::kInternalServerError:
    case ErrorType::kTransactionConflict:
    case ErrorType::kLimitExceeded:
      return true;
    default:
      return false;
  }
}

void SleepFor(std::chrono::milliseconds d, const std::atomic<bool>* stop) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until && !(stop && stop->load())) {
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
        std::chrono::milliseconds(50), std::chrono::duration_cast<std::chrono::milliseconds>(
                                           until - std::chrono::steady_clock::now())));
  }
}

Status Stopped() { return Status(ErrorType::kInternalServerError, "replication stopped"); }

}  // namespace

Replicator::Replicator(DB* local, client::Client* remote, ReplicatorOptions options)
    : local_(local), remote_(remote), options_(std::move(options)) {
  if (options_.remote_table.empty()) options_.remote_table = options_.table;
  if (options_.checkpoint_name.empty()) {
    options_.checkpoint_name =
        "replicate/" + options_.table + "/" + remote_->Describe() + "/" + options_.remote_table;
  }
}

Status Replicator::WithRetries(const std::function<Status()>& call, const std::atomic<bool>* stop) {
  std::mt19937 rng(std::random_device{}());
  for (int attempt = 0;; ++attempt) {
    if (stop && stop->load()) return Stopped();
    Status s = call();
    if (s.ok() || !Retryable(s)) return s;
    if (options_.max_batch_attempts > 0 && attempt + 1 >= options_.max_batch_attempts) return s;
    ++progress_.retries;
    const int64_t cap = std::min<int64_t>(options_.max_backoff.count(), 100LL << std::min(attempt, 10));
    SleepFor(std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(cap / 2, cap)(rng)),
             stop);
  }
}

Status Replicator::Prepare() {
  if (prepared_) return Status();
  DescribeTableRequest describe;
  describe.table_name = options_.table;
  DR_ASSIGN_OR_RETURN(DescribeTableResponse local, local_->DescribeTable(describe));
  const auto& spec = local.table.stream_specification;
  if (!spec || !spec->stream_enabled) {
    return ValidationError("Table " + options_.table +
                           " has no stream enabled to replicate from: enable its stream "
                           "(StreamViewType NEW_IMAGE or NEW_AND_OLD_IMAGES ships the images; "
                           "KEYS_ONLY and OLD_IMAGE read each changed item back)");
  }
  DescribeTableRequest remote_describe;
  remote_describe.table_name = options_.remote_table;
  auto remote = remote_->DescribeTable(remote_describe);
  if (!remote.ok() && remote.status().type() == ErrorType::kResourceNotFound &&
      options_.create_remote_table) {
    CreateTableRequest create;
    create.table_name = options_.remote_table;
    create.key_schema = local.table.key_schema;
    for (const auto& def : local.table.attribute_definitions) {
      for (const auto& k : local.table.key_schema)
        if (k.attribute_name == def.attribute_name) create.attribute_definitions.push_back(def);
    }
    create.billing_mode = "PAY_PER_REQUEST";
    auto created = remote_->CreateTable(create);
    if (!created.ok() && created.status().type() != ErrorType::kResourceInUse) {
      return created.status();
    }
    // Wait until it is usable (AWS takes seconds).
    for (int i = 0; i < 600; ++i) {
      remote = remote_->DescribeTable(remote_describe);
      if (remote.ok() && remote->table.table_status == "ACTIVE") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (!remote.ok()) return remote.status();
  DR_ASSIGN_OR_RETURN(std::optional<std::string> saved,
                      local_->LoadCheckpoint(options_.checkpoint_name));
  if (saved) progress_.position = *saved;
  prepared_ = true;
  return Status();
}

StatusOr<std::optional<Item>> Replicator::ReadBack(const StreamRecord& r) {
  // A stream without new images (KEYS_ONLY, OLD_IMAGE): the item as it is
  // now, which is this change or a later one (whose own record follows).
  GetItemRequest get;
  get.table_name = options_.table;
  get.key = r.keys;
  get.consistent_read = true;
  DR_ASSIGN_OR_RETURN(GetItemResponse got, local_->GetItem(get));
  return std::move(got.item);
}

Status Replicator::Checkpoint(const std::string& sequence_number) {
  DR_RETURN_IF_ERROR(local_->SaveCheckpoint(options_.checkpoint_name, sequence_number));
  progress_.position = sequence_number;
  if (options_.on_progress) options_.on_progress(progress_);
  return Status();
}

Status Replicator::ApplyBatch(const std::vector<const StreamRecord*>& batch,
                              const std::atomic<bool>* stop) {
  BatchWriteItemRequest req;
  auto& writes = req.request_items[options_.remote_table];
  for (const StreamRecord* r : batch) {
    WriteRequest w;
    if (r->event_name == "REMOVE") {
      w.delete_key = r->keys;
    } else if (r->new_image) {
      w.put_item = *r->new_image;
    } else {
      DR_ASSIGN_OR_RETURN(std::optional<Item> now, ReadBack(*r));
      if (now) w.put_item = std::move(*now);
      else w.delete_key = r->keys;  // deleted since: a later record says so too
    }
    writes.push_back(std::move(w));
  }
  while (!writes.empty()) {
    BatchWriteItemResponse resp;
    DR_RETURN_IF_ERROR(WithRetries(
        [&]() -> Status {
          auto r = remote_->BatchWriteItem(req);
          if (!r.ok()) return r.status();
          resp = std::move(*r);
          return Status();
        },
        stop));
    auto left = resp.unprocessed_items.find(options_.remote_table);
    if (left == resp.unprocessed_items.end() || left->second.empty()) break;
    writes = std::move(left->second);
    ++progress_.retries;
    SleepFor(std::chrono::milliseconds(100), stop);
    if (stop && stop->load()) return Stopped();
  }
  return Status();
}

Status Replicator::ApplyConditional(const StreamRecord& r, const std::atomic<bool>* stop) {
  const std::string& v = options_.version_attribute;
  auto versioned = [&](const std::optional<Item>& image) -> const AttributeValue* {
    if (!image) return nullptr;
    auto it = image->find(v);
    return it != image->end() && it->second.is(AttrType::kN) ? &it->second : nullptr;
  };
  Status s;
  if (r.event_name == "REMOVE") {
    DeleteItemRequest del;
    del.table_name = options_.remote_table;
    del.key = r.keys;
    if (const AttributeValue* version = versioned(r.old_image)) {
      del.condition_expression = "attribute_not_exists(#v) OR #v <= :v";
      del.expression_attribute_names["#v"] = v;
      del.expression_attribute_values[":v"] = *version;
      del.has_expression_attribute_names = del.has_expression_attribute_values = true;
    }
    s = WithRetries([&] { return remote_->DeleteItem(del).status(); }, stop);
  } else {
    PutItemRequest put;
    put.table_name = options_.remote_table;
    if (r.new_image) {
      put.item = *r.new_image;
    } else {
      DR_ASSIGN_OR_RETURN(std::optional<Item> now, ReadBack(r));
      if (!now) return Status();  // deleted since: its REMOVE record follows
      put.item = std::move(*now);
    }
    std::optional<Item> image = put.item;
    if (const AttributeValue* version = versioned(image)) {
      put.condition_expression = "attribute_not_exists(#v) OR #v <= :v";
      put.expression_attribute_names["#v"] = v;
      put.expression_attribute_values[":v"] = *version;
      put.has_expression_attribute_names = put.has_expression_attribute_values = true;
    }
    s = WithRetries([&] { return remote_->PutItem(put).status(); }, stop);
  }
  if (s.type() == ErrorType::kConditionalCheckFailed) {
    ++progress_.conflicts;  // the remote item is newer: it stays
    return Status();
  }
  return s;
}

Status Replicator::Apply(const std::vector<StreamRecord>& records, const std::atomic<bool>* stop) {
  if (!options_.version_attribute.empty()) {
    for (const StreamRecord& r : records) {
      DR_RETURN_IF_ERROR(ApplyConditional(r, stop));
      ++progress_.shipped;
      DR_RETURN_IF_ERROR(Checkpoint(r.sequence_number));
    }
    return Status();
  }
  // Batches of up to 25 distinct items: within a batch the order does not
  // matter, and a second change to an item starts the next batch.
  std::vector<const StreamRecord*> batch;
  std::set<std::string> keys;
  auto flush = [&]() -> Status {
    if (batch.empty()) return Status();
    DR_RETURN_IF_ERROR(ApplyBatch(batch, stop));
    progress_.shipped += static_cast<int64_t>(batch.size());
    DR_RETURN_IF_ERROR(Checkpoint(batch.back()->sequence_number));
    batch.clear();
    keys.clear();
    return Status();
  };
  for (const StreamRecord& r : records) {
    std::string key = DebugString(r.keys);
    if (batch.size() == 25 || keys.count(key)) DR_RETURN_IF_ERROR(flush());
    keys.insert(std::move(key));
    batch.push_back(&r);
  }
  return flush();
}

Status Replicator::Pass(const std::atomic<bool>* stop, int64_t* shipped) {
  StreamReader reader(local_, options_.table);
  reader.set_position(progress_.position);
  auto handed = reader.Poll([&](const std::vector<StreamRecord>& page) { return Apply(page, stop); });
  if (reader.gap()) {
    // The checkpoint fell behind the stream's retention: changes were lost
    // before they could be shipped. Said, then shipping goes on.
    ++progress_.gaps;
    if (options_.on_error) {
      options_.on_error(Status(ErrorType::kTrimmedDataAccess,
                               "changes were trimmed from the stream before they were shipped "
                               "(the checkpoint is older than the stream's retention); the "
                               "remote table may miss them"));
    }
  }
  if (!handed.ok()) return handed.status();
  *shipped = *handed;
  return Status();
}

StatusOr<int64_t> Replicator::RunOnce() {
  DR_RETURN_IF_ERROR(Prepare());
  int64_t total = 0;
  for (;;) {
    int64_t shipped = 0;
    DR_RETURN_IF_ERROR(Pass(nullptr, &shipped));
    total += shipped;
    if (shipped == 0) return total;
  }
}

Status Replicator::Run(const std::atomic<bool>& stop) {
  std::string last_error;
  int failures = 0;
  while (!stop) {
    Status s = Prepare();
    if (s.ok()) {
      int64_t shipped = 0;
      s = Pass(&stop, &shipped);
      if (s.ok()) {
        failures = 0;
        last_error.clear();
        if (shipped > 0) continue;
        SleepFor(std::chrono::milliseconds(200), &stop);
        continue;
      }
    }
    if (stop) break;
    if (!Retryable(s) && !options_.keep_going) return s;
    if (options_.on_error && s.ToString() != last_error) options_.on_error(s);
    last_error = s.ToString();
    // Back off: a table that does not exist yet, an endpoint that is down.
    failures = std::min(failures + 1, 6);
    SleepFor(std::min(options_.max_backoff, std::chrono::milliseconds(100LL << failures)), &stop);
  }
  return Status();
}

}  // namespace dynarock
