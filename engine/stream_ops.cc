// DynamoDB Streams over the change log (engine/change_log.h): ListStreams,
// DescribeStream, GetShardIterator and GetRecords; the embedded subscriptions
// (DB::Subscribe); and the checkpoints consumers keep in the catalog.
//
// A shard iterator is "<stream ARN>|1|<hex>", the hex being the stream id, the
// shard, the position (the next sequence number to read), the time it was
// issued, and a signature under a key kept in the catalog: a forged or
// mangled iterator is refused, and a genuine one outlives a restart (for its
// fifteen minutes, as DynamoDB's).

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <limits>
#include <set>
#include <thread>

#include "engine/coding.h"
#include "engine/db_impl.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr double kIteratorLifetimeSeconds = 15 * 60;
constexpr size_t kGetRecordsBytesMax = 1 << 20;
constexpr int64_t kGetRecordsLimitMax = 1000;
constexpr uint64_t kOpen = std::numeric_limits<uint64_t>::max();

struct IteratorState {
  uint32_t stream_id = 0;
  uint32_t shard = 0;
  uint64_t position = 0;  // the next sequence number to read
  uint64_t issued_ms = 0;
};

std::string ToHex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

bool FromHex(std::string_view hex, std::string* out) {
  if (hex.size() % 2) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  out->clear();
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

uint64_t Sign(const std::string& secret, std::string_view arn, std::string_view payload) {
  std::string text = secret;
  text.append(arn);
  text.push_back('|');
  text.append(payload);
  return Fnv1a64(text) ^ (Fnv1a64(text + secret) << 1);
}

std::string EncodeIterator(const std::string& secret, const std::string& arn,
                           const IteratorState& st) {
  std::string payload;
  PutFixed32(&payload, st.stream_id);
  PutFixed32(&payload, st.shard);
  PutFixed64(&payload, st.position);
  PutFixed64(&payload, st.issued_ms);
  PutFixed64(&payload, Sign(secret, arn, payload.substr(0, 24)));
  return arn + "|1|" + ToHex(payload);
}

Status TrimmedData() {
  return Status(ErrorType::kTrimmedDataAccess, "The data you are trying to access has been trimmed");
}

Status InvalidIterator() { return ValidationError("Invalid ShardIterator"); }

StatusOr<IteratorState> DecodeIterator(const std::string& secret, std::string_view text) {
  const size_t bar = text.rfind("|1|");
  if (bar == std::string_view::npos) return InvalidIterator();
  std::string payload;
  if (!FromHex(text.substr(bar + 3), &payload) || payload.size() != 32) return InvalidIterator();
  std::string_view in(payload);
  IteratorState st;
  uint64_t mac = 0;
  GetFixed32(&in, &st.stream_id);
  GetFixed32(&in, &st.shard);
  GetFixed64(&in, &st.position);
  GetFixed64(&in, &st.issued_ms);
  GetFixed64(&in, &mac);
  if (mac != Sign(secret, text.substr(0, bar), std::string_view(payload).substr(0, 24))) {
    return InvalidIterator();
  }
  return st;
}

Status LimitError(std::string_view field, int64_t value, int64_t max) {
  return ValidationError("1 validation error detected: Value '" + std::to_string(value) +
                         "' at '" + std::string(field) +
                         "' failed to satisfy constraint: Member must have value " +
                         (value < 1 ? "greater than or equal to 1"
                                    : "less than or equal to " + std::to_string(max)));
}

// StreamArn: 37..1024 characters.
Status CheckStreamArn(std::string_view arn, std::string_view field) {
  ConstraintErrors errors;
  if (arn.size() < 37) {
    errors.Add("Value '" + std::string(arn) + "' at '" + std::string(field) +
               "' failed to satisfy constraint: Member must have length greater than or equal "
               "to 37");
  } else if (arn.size() > 1024) {
    errors.Add("Value '" + std::string(arn) + "' at '" + std::string(field) +
               "' failed to satisfy constraint: Member must have length less than or equal to "
               "1024");
  }
  DR_RETURN_IF_ERROR(errors.ToStatus());
  // arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>
  const size_t table = arn.find(":table/");
  const size_t stream = arn.find("/stream/");
  if (arn.substr(0, 17) != "arn:aws:dynamodb:" || table == std::string_view::npos ||
      stream == std::string_view::npos || stream < table || stream + 8 == arn.size()) {
    return ValidationError("Invalid StreamArn");
  }
  return Status();
}

void CheckShardId(std::string_view id, std::string_view field, ConstraintErrors* errors) {
  if (id.size() < 28) {
    errors->Add("Value '" + std::string(id) + "' at '" + std::string(field) +
                "' failed to satisfy constraint: Member must have length greater than or equal "
                "to 28");
  } else if (id.size() > 65) {
    errors->Add("Value '" + std::string(id) + "' at '" + std::string(field) +
                "' failed to satisfy constraint: Member must have length less than or equal to "
                "65");
  }
}

// The shards DescribeStream shows: those with a record still kept, or open.
bool ShardVisible(const StreamInfo& s, size_t i) {
  const uint64_t end = s.ShardEnd(i);
  return end == kOpen || end > s.trimmed_through;
}

}  // namespace

StatusOr<StreamInfo> DBImpl::FindStream(std::string_view arn) const {
  std::optional<StreamInfo> s = change_log_->FindByArn(arn);
  if (!s) {
    return ResourceNotFound("Requested resource not found: Stream: " + std::string(arn) +
                            " not found");
  }
  return *s;
}

// ---------------------------------------------------------------- ListStreams

StatusOr<ListStreamsResponse> DBImpl::ListStreams(const ListStreamsRequest& req) {
  ConstraintErrors errors;
  if (req.table_name) errors.CheckName(*req.table_name, "tableName");
  if (req.exclusive_start_stream_arn) {
    Status s = CheckStreamArn(*req.exclusive_start_stream_arn, "exclusiveStartStreamArn");
    if (!s.ok()) return s;
  }
  DR_RETURN_IF_ERROR(errors.ToStatus());
  const int64_t limit = req.limit.value_or(100);
  if (limit < 1 || limit > 100) return LimitError("limit", limit, 100);
  std::vector<StreamInfo> streams = change_log_->List();
  if (req.table_name) {
    std::shared_lock lock(catalog_mu_);
    if (!tables_.count(*req.table_name)) {
      // A deleted table's streams are still listed while they are kept.
      bool any = false;
      for (const auto& s : streams) any |= s.table_name == *req.table_name;
      if (!any) {
        return TableNotFound(*req.table_name);
      }
    }
  }
  size_t start = 0;
  if (req.exclusive_start_stream_arn) {
    start = streams.size();
    for (size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].arn == *req.exclusive_start_stream_arn) start = i + 1;
    }
  }
  ListStreamsResponse resp;
  size_t i = start;
  for (; i < streams.size(); ++i) {
    const StreamInfo& s = streams[i];
    if (req.table_name && s.table_name != *req.table_name) continue;
    if (static_cast<int64_t>(resp.streams.size()) == limit) break;
    resp.streams.push_back({s.arn, s.table_name, s.label});
  }
  if (i < streams.size() && !resp.streams.empty()) {
    resp.last_evaluated_stream_arn = resp.streams.back().stream_arn;
  }
  return resp;
}

// ---------------------------------------------------------------- DescribeStream

StatusOr<DescribeStreamResponse> DBImpl::DescribeStream(const DescribeStreamRequest& req) {
  DR_RETURN_IF_ERROR(CheckStreamArn(req.stream_arn, "streamArn"));
  if (req.exclusive_start_shard_id) {
    ConstraintErrors errors;
    CheckShardId(*req.exclusive_start_shard_id, "exclusiveStartShardId", &errors);
    DR_RETURN_IF_ERROR(errors.ToStatus());
  }
  const int64_t limit = req.limit.value_or(100);
  if (limit < 1 || limit > 100) return LimitError("limit", limit, 100);
  DR_ASSIGN_OR_RETURN(StreamInfo s, FindStream(req.stream_arn));
  DescribeStreamResponse resp;
  StreamDescription& d = resp.stream_description;
  d.stream_arn = s.arn;
  d.stream_label = s.label;
  d.stream_status = s.enabled() ? "ENABLED" : "DISABLED";
  d.stream_view_type = s.view_type;
  d.creation_request_date_time = s.created;
  d.table_name = s.table_name;
  d.key_schema = s.key_schema;
  size_t i = 0;
  if (req.exclusive_start_shard_id) {
    int found = s.FindShard(*req.exclusive_start_shard_id);
    i = found < 0 ? s.shards.size() : static_cast<size_t>(found) + 1;
  }
  int parent = -2;  // -2: no filter
  if (req.child_shards_of) {
    ConstraintErrors errors;
    CheckShardId(*req.child_shards_of, "shardFilter.shardId", &errors);
    DR_RETURN_IF_ERROR(errors.ToStatus());
    parent = s.FindShard(*req.child_shards_of);
    if (parent < 0) i = s.shards.size();  // an unknown shard has no children
  }
  bool more = false;  // a shard past the page's last
  for (; i < s.shards.size(); ++i) {
    if (!ShardVisible(s, i)) continue;
    if (parent != -2 && static_cast<int>(i) != parent + 1) continue;
    if (static_cast<int64_t>(d.shards.size()) == limit) {
      more = true;
      break;
    }
    Shard shard;
    shard.shard_id = s.ShardId(i);
    shard.sequence_number_range.starting_sequence_number =
        FormatSequenceNumber(s.shards[i].start_seq);
    const uint64_t end = s.ShardEnd(i);
    if (end != kOpen) {
      shard.sequence_number_range.ending_sequence_number =
          FormatSequenceNumber(std::max(end, s.shards[i].start_seq));
    }
    if (i > 0) shard.parent_shard_id = s.ShardId(i - 1);
    d.shards.push_back(std::move(shard));
  }
  if (more) d.last_evaluated_shard_id = d.shards.back().shard_id;
  return resp;
}

// ---------------------------------------------------------------- GetShardIterator

StatusOr<GetShardIteratorResponse> DBImpl::GetShardIterator(const GetShardIteratorRequest& req) {
  DR_RETURN_IF_ERROR(CheckStreamArn(req.stream_arn, "streamArn"));
  ConstraintErrors errors;
  CheckShardId(req.shard_id, "shardId", &errors);
  if (req.sequence_number &&
      (req.sequence_number->size() < 21 || req.sequence_number->size() > 40)) {
    errors.Add("Value '" + *req.sequence_number +
               "' at 'sequenceNumber' failed to satisfy constraint: Member must have length " +
               (req.sequence_number->size() < 21 ? "greater than or equal to 21"
                                                 : "less than or equal to 40"));
  }
  DR_RETURN_IF_ERROR(errors.ToStatus());
  const bool by_number = req.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ||
                         req.shard_iterator_type == ShardIteratorType::kAfterSequenceNumber;
  if (by_number && !req.sequence_number) {
    return ValidationError("Must specify a sequence number for iterator type " +
                           std::string(req.shard_iterator_type ==
                                               ShardIteratorType::kAtSequenceNumber
                                           ? "AT_SEQUENCE_NUMBER"
                                           : "AFTER_SEQUENCE_NUMBER"));
  }
  if (!by_number && req.sequence_number) {
    return ValidationError("Sequence number must not be specified for iterator type " +
                           std::string(req.shard_iterator_type == ShardIteratorType::kLatest
                                           ? "LATEST"
                                           : "TRIM_HORIZON"));
  }
  uint64_t number = 0;
  if (by_number && !ParseSequenceNumber(*req.sequence_number, &number)) {
    return ValidationError("Invalid SequenceNumber: " + *req.sequence_number);
  }
  DR_ASSIGN_OR_RETURN(StreamInfo s, FindStream(req.stream_arn));
  const int shard = s.FindShard(req.shard_id);
  if (shard < 0 || !ShardVisible(s, static_cast<size_t>(shard))) {
    return ResourceNotFound("Requested resource not found: Shard does not exist");
  }
  const ShardInfo& info = s.shards[static_cast<size_t>(shard)];
  const uint64_t end = s.ShardEnd(static_cast<size_t>(shard));
  uint64_t position = 0;
  switch (req.shard_iterator_type) {
    case ShardIteratorType::kTrimHorizon:
      position = std::max(info.start_seq, s.trimmed_through + 1);
      break;
    case ShardIteratorType::kLatest:
      position = end == kOpen ? std::max(info.start_seq, change_log_->Horizon() + 1) : end + 1;
      break;
    case ShardIteratorType::kAtSequenceNumber:
    case ShardIteratorType::kAfterSequenceNumber:
      if (number < info.start_seq || number > end) {
        return ValidationError("Invalid SequenceNumber for the shard");
      }
      if (req.shard_iterator_type == ShardIteratorType::kAfterSequenceNumber && number == kOpen) {
        return ValidationError("Invalid SequenceNumber for the shard");
      }
      position = req.shard_iterator_type == ShardIteratorType::kAtSequenceNumber ? number
                                                                                 : number + 1;
      if (position <= s.trimmed_through) return TrimmedData();
      break;
  }
  IteratorState st;
  st.stream_id = s.id;
  st.shard = static_cast<uint32_t>(shard);
  st.position = position;
  st.issued_ms = static_cast<uint64_t>(std::llround(change_log_->Now() * 1000));
  GetShardIteratorResponse resp;
  resp.shard_iterator = EncodeIterator(iterator_secret_, s.arn, st);
  return resp;
}

// ---------------------------------------------------------------- GetRecords

StatusOr<GetRecordsResponse> DBImpl::GetRecords(const GetRecordsRequest& req) {
  if (req.shard_iterator.empty() || req.shard_iterator.size() > 2048) {
    return ValidationError(
        "1 validation error detected: Value '" + req.shard_iterator +
        "' at 'shardIterator' failed to satisfy constraint: Member must have length " +
        (req.shard_iterator.empty() ? "greater than or equal to 1" : "less than or equal to 2048"));
  }
  const int64_t limit = req.limit.value_or(kGetRecordsLimitMax);
  if (limit < 1 || limit > kGetRecordsLimitMax) return LimitError("limit", limit, kGetRecordsLimitMax);
  DR_ASSIGN_OR_RETURN(IteratorState st, DecodeIterator(iterator_secret_, req.shard_iterator));
  const std::string_view arn =
      std::string_view(req.shard_iterator).substr(0, req.shard_iterator.rfind("|1|"));
  std::optional<StreamInfo> found = change_log_->Find(st.stream_id);
  if (!found || found->arn != arn) {
    return ResourceNotFound("Requested resource not found: Stream: " + std::string(arn) +
                            " not found");
  }
  const StreamInfo& s = *found;
  if (st.shard >= s.shards.size()) {
    return ResourceNotFound("Requested resource not found: Shard does not exist");
  }
  const double now = change_log_->Now();
  const double issued = static_cast<double>(st.issued_ms) / 1000.0;
  if (now - issued > kIteratorLifetimeSeconds) {
    return Status(ErrorType::kExpiredIterator, "Shard iterator has expired");
  }
  if (st.position <= s.trimmed_through) {
    return TrimmedData();
  }
  const uint64_t end = s.ShardEnd(st.shard);
  const uint64_t horizon = change_log_->Horizon();
  GetRecordsResponse resp;
  uint64_t next = st.position;
  DR_RETURN_IF_ERROR(change_log_->Read(s, st.position, std::min(end, horizon),
                                       static_cast<size_t>(limit), kGetRecordsBytesMax,
                                       &resp.records, &next));
  // Trimmed meanwhile: the read may have passed over deleted records.
  if (auto again = change_log_->Find(st.stream_id);
      !again || st.position <= again->trimmed_through) {
    return TrimmedData();
  }
  // A closed shard read to its end (and no number of it still in flight)
  // has no next iterator.
  if (end != kOpen && next > end && horizon >= end) return resp;
  IteratorState after = st;
  after.position = next;
  after.issued_ms = static_cast<uint64_t>(std::llround(now * 1000));
  resp.next_shard_iterator = EncodeIterator(iterator_secret_, s.arn, after);
  return resp;
}

// ---------------------------------------------------------------- subscriptions

namespace {

// A subscription's state, shared by its handle, its thread and the DB's
// registry: whichever lets go last frees it, so a handler may cancel (or
// destroy) its own subscription.
struct SubscriptionState {
  ChangeLog* log = nullptr;
  uint32_t table_id = 0;
  StreamHandler handler;
  uint64_t position = 0;  // the next number to deliver (the thread's own)
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string last;  // GUARDED_BY(mu)
  std::atomic<std::thread::id> runner{};
  std::mutex join_mu;
  std::thread thread;  // GUARDED_BY(join_mu)
};

void RunSubscription(SubscriptionState* st) {
  while (!st->stop) {
    const uint64_t horizon = st->log->Horizon();
    bool more = false;  // a read stopped at its limit: the rest of that stream first
    for (const StreamInfo& s : st->log->List()) {  // oldest stream first
      if (s.table_id != st->table_id) continue;
      const uint64_t last = s.enabled() ? horizon : std::min(horizon, s.end_seq);
      const uint64_t from = std::max(st->position, s.trimmed_through + 1);
      if (from > last) continue;
      std::vector<StreamRecord> records;
      uint64_t next = from;
      if (!st->log->Read(s, from, last, 1000, 4 << 20, &records, &next).ok()) continue;
      for (const StreamRecord& r : records) {
        if (st->stop) return;
        st->handler(r);
        std::lock_guard<std::mutex> lock(st->mu);
        st->last = r.sequence_number;
      }
      if (!records.empty()) {
        uint64_t seq = 0;
        ParseSequenceNumber(records.back().sequence_number, &seq);
        st->position = seq + 1;
      }
      if (next <= last) {
        more = true;
        break;
      }
    }
    if (more) continue;
    // Everything up to the horizon was delivered.
    st->position = std::max(st->position, horizon + 1);
    st->log->WaitBeyond(horizon, 0.5, [st] { return st->stop.load(); });
  }
}

// Stops the subscription's thread and joins it; from the thread itself (a
// handler cancelling its own subscription) it only asks it to end.
void StopSubscription(const std::shared_ptr<SubscriptionState>& st) {
  st->stop = true;
  st->log->WakeWaiters();
  if (st->runner.load() == std::this_thread::get_id()) {
    if (st->join_mu.try_lock()) {  // else another thread is joining it
      if (st->thread.joinable()) st->thread.detach();
      st->join_mu.unlock();
    }
    return;
  }
  std::lock_guard<std::mutex> lock(st->join_mu);
  if (st->thread.joinable()) st->thread.join();
}

}  // namespace

struct SubscriptionRegistry {
  std::mutex mu;
  bool closed = false;                                      // GUARDED_BY(mu)
  std::set<std::shared_ptr<SubscriptionState>> live;        // GUARDED_BY(mu)
};

namespace {

class SubscriptionImpl final : public Subscription {
 public:
  SubscriptionImpl(std::shared_ptr<SubscriptionState> state,
                   std::shared_ptr<SubscriptionRegistry> registry)
      : state_(std::move(state)), registry_(std::move(registry)) {}
  ~SubscriptionImpl() override { Cancel(); }

  std::string position() const override {
    std::lock_guard<std::mutex> lock(state_->mu);
    return state_->last;
  }

  void Cancel() override {
    {
      std::lock_guard<std::mutex> lock(registry_->mu);
      registry_->live.erase(state_);
    }
    StopSubscription(state_);
  }

 private:
  std::shared_ptr<SubscriptionState> state_;
  std::shared_ptr<SubscriptionRegistry> registry_;
};

}  // namespace

StatusOr<std::unique_ptr<Subscription>> DBImpl::Subscribe(std::string_view table,
                                                          const SubscribeOptions& options,
                                                          StreamHandler handler) {
  DR_RETURN_IF_ERROR(ValidateTableName(table, "tableName"));
  if (!handler) return ValidationError("A subscription needs a handler");
  DR_ASSIGN_OR_RETURN(TableInfoPtr info, FindTable(table));
  if (!info->stream_id || !info->stream_specification ||
      !info->stream_specification->stream_enabled) {
    return ValidationError("Table " + info->name + " has no stream enabled");
  }
  uint64_t position = 0;
  switch (options.start) {
    case SubscribeOptions::Start::kTrimHorizon:
      position = 0;
      break;
    case SubscribeOptions::Start::kLatest:
      position = change_log_->Horizon() + 1;
      break;
    case SubscribeOptions::Start::kAfterSequenceNumber: {
      uint64_t after = 0;
      if (!ParseSequenceNumber(options.after_sequence_number, &after) || after == kOpen) {
        return ValidationError("Invalid SequenceNumber: " + options.after_sequence_number);
      }
      position = after + 1;
      // Records between the saved position and the oldest kept are gone.
      for (const StreamInfo& s : change_log_->List()) {
        if (s.table_id == info->id && s.trimmed_through >= position &&
            s.shards.front().start_seq <= position) {
          return TrimmedData();
        }
      }
      break;
    }
  }
  auto state = std::make_shared<SubscriptionState>();
  state->log = change_log_.get();
  state->table_id = info->id;
  state->handler = std::move(handler);
  state->position = position;
  std::shared_ptr<SubscriptionRegistry> registry;
  {
    std::lock_guard<std::mutex> lock(subscriptions_mu_);
    if (!subscriptions_) subscriptions_ = std::make_shared<SubscriptionRegistry>();
    registry = subscriptions_;
  }
  {
    std::lock_guard<std::mutex> lock(registry->mu);
    if (registry->closed) return InternalError("The database is closing");
    registry->live.insert(state);
  }
  {
    std::lock_guard<std::mutex> lock(state->join_mu);
    state->thread = std::thread([state] {
      state->runner = std::this_thread::get_id();
      RunSubscription(state.get());
    });
  }
  return std::unique_ptr<Subscription>(new SubscriptionImpl(state, std::move(registry)));
}

void DBImpl::StopSubscriptions() {
  std::shared_ptr<SubscriptionRegistry> registry;
  {
    std::lock_guard<std::mutex> lock(subscriptions_mu_);
    registry = subscriptions_;
  }
  if (!registry) return;
  std::set<std::shared_ptr<SubscriptionState>> live;
  {
    std::lock_guard<std::mutex> lock(registry->mu);
    registry->closed = true;
    live.swap(registry->live);
  }
  for (const auto& st : live) StopSubscription(st);  // without the registry's lock
}

// ---------------------------------------------------------------- checkpoints

Status DBImpl::CheckCheckpointName(std::string_view name) {
  if (name.empty() || name.size() > 1024) {
    return ValidationError("A checkpoint name has 1 to 1024 characters");
  }
  return Status();
}

std::string DBImpl::CheckpointKey(std::string_view name) { return "c/" + std::string(name); }

Status DBImpl::SaveCheckpoint(std::string_view name, std::string_view value) {
  DR_RETURN_IF_ERROR(CheckCheckpointName(name));
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(FromRocksDB(batch.Put(catalog_cf_, CheckpointKey(name), value)));
  return Commit(&batch);
}

StatusOr<std::optional<std::string>> DBImpl::LoadCheckpoint(std::string_view name) {
  DR_RETURN_IF_ERROR(CheckCheckpointName(name));
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), catalog_cf_, CheckpointKey(name), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocksDB(s);
  return std::optional<std::string>(std::move(value));
}

StatusOr<size_t> DBImpl::DeleteCheckpoints(std::string_view prefix) {
  DR_RETURN_IF_ERROR(CheckCheckpointName(prefix));
  const std::string from = CheckpointKey(prefix);
  rocksdb::WriteBatch batch;
  size_t deleted = 0;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(from); it->Valid() && it->key().starts_with(from); it->Next()) {
    DR_RETURN_IF_ERROR(FromRocksDB(batch.Delete(catalog_cf_, it->key())));
    ++deleted;
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  if (deleted > 0) DR_RETURN_IF_ERROR(Commit(&batch));
  return deleted;
}

}  // namespace dynarock
