#include "engine/change_log.h"

#include <rocksdb/db.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "dynarock/item_size.h"
#include "engine/coding.h"
#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr uint8_t kRecordFormatV1 = 0x01;
constexpr uint8_t kByTtl = 1, kHasOld = 2, kHasNew = 4, kKeysInImage = 8;
constexpr size_t kTimeOffset = 3;  // where the creation time sits in a record
constexpr size_t kHeaderBytes = 11;

std::string StreamKey(uint32_t id) {
  std::string k = "r/";
  k.resize(6);
  EncodeFixed32BE(&k[2], id);
  return k;
}

std::string ShardKey(uint32_t id, uint32_t index) {
  std::string k = StreamKey(id) + "s";
  k.resize(11);
  EncodeFixed32BE(&k[7], index);
  return k;
}

std::string TrimKey(uint32_t id) { return StreamKey(id) + "t"; }

std::string RecordKey(uint32_t id, uint64_t seq) {
  std::string k(12, '\0');
  EncodeFixed32BE(&k[0], id);
  EncodeFixed64BE(&k[4], seq);
  return k;
}

std::string ShardValue(const ShardInfo& s) {
  std::string v;
  PutFixed64(&v, s.start_seq);
  PutFixed64(&v, static_cast<uint64_t>(std::llround(s.created * 1000)));
  return v;
}

std::string Hex64(uint64_t v, int digits) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
  return std::string(buf + std::max(0, static_cast<int>(std::strlen(buf)) - digits));
}

AttributeValue Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return AttributeValue::N(s);
}

double NumOf(const Item& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : std::strtod(it->second.scalar().c_str(), nullptr);
}

std::string StrOf(const Item& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() || !it->second.is(AttrType::kS) ? std::string() : it->second.scalar();
}

Item StreamToItem(const StreamInfo& s) {
  Item m;
  m["table"] = AttributeValue::S(s.table_name);
  m["table_id"] = Num(s.table_id);
  m["label"] = AttributeValue::S(s.label);
  m["arn"] = AttributeValue::S(s.arn);
  m["view"] = AttributeValue::S(s.view_type);
  m["created"] = Num(s.created);
  m["keys"] = KeySchemaToValue(s.key_schema);
  if (s.internal) m["internal"] = AttributeValue::S(s.destination);
  if (s.disabled_at) {
    m["disabled"] = Num(*s.disabled_at);
    m["end"] = AttributeValue::S(std::to_string(s.end_seq));
  }
  return m;
}

bool StreamFromItem(const Item& m, StreamInfo* s) {
  if (!m.count("table") || !m.count("arn") || !m.count("keys")) return false;
  s->table_name = StrOf(m, "table");
  s->table_id = static_cast<uint32_t>(NumOf(m, "table_id"));
  s->label = StrOf(m, "label");
  s->arn = StrOf(m, "arn");
  s->view_type = StrOf(m, "view");
  s->created = NumOf(m, "created");
  s->key_schema = KeySchemaFromValue(&m.at("keys"));
  if (s->key_schema.empty()) return false;
  s->internal = m.count("internal") > 0;
  if (s->internal) s->destination = StrOf(m, "internal");
  if (m.count("disabled")) {
    s->disabled_at = NumOf(m, "disabled");
    s->end_seq = std::strtoull(StrOf(m, "end").c_str(), nullptr, 10);
  }
  return true;
}

std::string EventId(uint32_t stream, uint64_t seq) {
  std::string bytes(12, '\0');
  EncodeFixed32BE(&bytes[0], stream);
  EncodeFixed64BE(&bytes[4], seq);
  // FNV-1a, then a 64-bit finaliser (MurmurHash3's fmix64) so that records
  // next to each other get unrelated-looking ids.
  auto mix = [](uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
  };
  return Hex64(mix(Fnv1a64(bytes)), 16) + Hex64(mix(Fnv1a64(bytes + "dynarock-event")), 16);
}

bool DecodeRecord(std::string_view v, const StreamInfo& stream, uint64_t seq,
                  const std::string& region, StreamRecord* r) {
  if (v.size() < kHeaderBytes || static_cast<uint8_t>(v[0]) != kRecordFormatV1) return false;
  const uint8_t event = static_cast<uint8_t>(v[1]);
  const uint8_t flags = static_cast<uint8_t>(v[2]);
  std::string_view in = v.substr(kTimeOffset);
  uint64_t ms = 0, size = 0;
  if (!GetFixed64(&in, &ms) || !GetVarint64(&in, &size)) return false;
  std::string_view keys, old_image, new_image;
  if (!(flags & kKeysInImage) && (!GetLengthPrefixed(&in, &keys) || !DecodeItem(keys, &r->keys))) {
    return false;
  }
  if (flags & kHasOld) {
    r->old_image.emplace();
    if (!GetLengthPrefixed(&in, &old_image) || !DecodeItem(old_image, &*r->old_image)) return false;
  }
  if (flags & kHasNew) {
    r->new_image.emplace();
    if (!GetLengthPrefixed(&in, &new_image) || !DecodeItem(new_image, &*r->new_image)) return false;
  }
  if (flags & kKeysInImage) {
    const Item* image = r->new_image ? &*r->new_image : r->old_image ? &*r->old_image : nullptr;
    if (image == nullptr) return false;
    for (const KeySchemaElement& k : stream.key_schema) {
      auto it = image->find(k.attribute_name);
      if (it == image->end()) return false;
      r->keys.insert(*it);
    }
  }
  static const char* const kEvents[] = {"", "INSERT", "MODIFY", "REMOVE"};
  if (event < 1 || event > 3) return false;
  r->event_name = kEvents[event];
  r->event_id = EventId(stream.id, seq);
  r->aws_region = region;
  r->approximate_creation_date_time = static_cast<double>(ms) / 1000.0;
  r->sequence_number = FormatSequenceNumber(seq);
  r->size_bytes = static_cast<int64_t>(size);
  r->stream_view_type = stream.view_type;
  r->by_time_to_live = flags & kByTtl;
  return true;
}

}  // namespace

uint64_t StreamInfo::ShardEnd(size_t i) const {
  if (i + 1 < shards.size()) return shards[i + 1].start_seq - 1;
  return disabled_at ? end_seq : std::numeric_limits<uint64_t>::max();
}

std::string StreamInfo::ShardId(size_t i) const {
  // "shardId-" 20 digits (the creation time in ms) "-" 8 hex digits, as
  // DynamoDB's shard ids look.
  char digits[24];
  std::snprintf(digits, sizeof digits, "%020lld",
                static_cast<long long>(std::llround(shards[i].created * 1000)));
  std::string salt(8, '\0');
  EncodeFixed32BE(&salt[0], id);
  EncodeFixed32BE(&salt[4], static_cast<uint32_t>(i));
  return std::string("shardId-") + digits + "-" + Hex64(Fnv1a64(salt) & 0xffffffffu, 8);
}

int StreamInfo::FindShard(std::string_view shard_id) const {
  for (size_t i = 0; i < shards.size(); ++i)
    if (ShardId(i) == shard_id) return static_cast<int>(i);
  return -1;
}

std::string FormatSequenceNumber(uint64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%021llu", static_cast<unsigned long long>(seq));
  return buf;
}

bool ParseSequenceNumber(std::string_view text, uint64_t* seq) {
  if (text.size() < 21 || text.size() > 40) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *seq = v;
  return true;
}

// ---------------------------------------------------------------- setup

ChangeLog::ChangeLog(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* catalog,
                     rocksdb::ColumnFamilyHandle* records, Config config)
    : db_(db), catalog_(catalog), records_(records), config_(std::move(config)) {
  if (!config_.clock) config_.clock = NowEpochSeconds;
}

ChangeLog::~ChangeLog() {
  {
    std::lock_guard<std::mutex> lock(thread_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (trimmer_.joinable()) trimmer_.join();
}

Status ChangeLog::Load(bool background) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_));
  std::lock_guard<std::mutex> lock(mu_);
  for (it->Seek("r/"); it->Valid() && it->key().starts_with("r/"); it->Next()) {
    std::string_view key(it->key().data(), it->key().size());
    std::string_view value(it->value().data(), it->value().size());
    if (key.size() < 6) continue;
    const uint32_t id = DecodeFixed32BE(key.data() + 2);
    if (key.size() == 6) {
      Item item;
      StreamInfo s;
      if (!DecodeItem(value, &item) || !StreamFromItem(item, &s)) {
        return InternalError("Corrupt stream record in the catalog");
      }
      s.id = id;
      streams_[id] = std::move(s);
      continue;
    }
    auto found = streams_.find(id);
    if (found == streams_.end()) continue;
    StreamInfo& s = found->second;
    uint64_t a = 0, b = 0;
    if (key.size() == 11 && key[6] == 's' && GetFixed64(&value, &a) && GetFixed64(&value, &b)) {
      s.shards.push_back({a, static_cast<double>(b) / 1000.0});
    } else if (key.size() == 7 && key[6] == 't' && GetFixed64(&value, &a)) {
      s.trimmed_through = a;
    }
  }
  if (!it->status().ok()) return FromRocksDB(it->status());
  // The counter starts past every record kept and past the clock in us.
  uint64_t next = static_cast<uint64_t>(std::max(0.0, config_.clock()) * 1e6);
  for (auto& [id, s] : streams_) {
    if (s.shards.empty()) s.shards.push_back({1, s.created});
    std::unique_ptr<rocksdb::Iterator> r(db_->NewIterator(rocksdb::ReadOptions(), records_));
    r->SeekForPrev(RecordKey(id, std::numeric_limits<uint64_t>::max()));
    if (r->Valid() && r->key().size() == 12 && DecodeFixed32BE(r->key().data()) == id) {
      next = std::max(next, DecodeFixed64BE(r->key().data() + 4) + 1);
    }
    next = std::max(next, s.trimmed_through + 1);
    next = std::max(next, s.shards.back().start_seq + 1);
    if (s.disabled_at) next = std::max(next, s.end_seq + 1);
  }
  next_seq_ = std::max(next_seq_, next);
  if (background) StartTrimmer();
  return Status();
}

Status ChangeLog::Reload() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    streams_.clear();
    histories_.clear();
    unpublished_.clear();
    unpublished_disables_.clear();
  }
  return Load(/*background=*/false);
}

void ChangeLog::StartTrimmer() {
  std::lock_guard<std::mutex> lock(thread_mu_);
  if (trimmer_.joinable() || stopping_) return;
  trimmer_ = std::thread([this] {
    const double period = std::clamp(config_.retention_seconds / 8, 0.05, 60.0);
    std::unique_lock<std::mutex> lock(thread_mu_);
    while (!stopping_) {
      stop_cv_.wait_for(lock, std::chrono::duration<double>(period), [this] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      Trim();
      lock.lock();
    }
  });
}

// ---------------------------------------------------------------- writing

void ChangeLog::Stage(const TableInfo& table, const Image& old_image, const Image& new_image,
                      ChangeOrigin origin, WriteSet* writes) const {
  const Item* old_item = old_image.item;
  const Item* new_item = new_image.item;
  if (!old_item && !new_item) return;
  if (old_item && new_item && *old_item == *new_item) return;  // nothing changed
  if (table.stream_id != 0 && table.stream_specification &&
      table.stream_specification->stream_enabled) {
    StageRecord(table, table.stream_id, table.stream_specification->stream_view_type, old_image,
                new_image, origin, writes);
  }
  if (table.kinesis_log_id != 0) {
    StageRecord(table, table.kinesis_log_id, "NEW_AND_OLD_IMAGES", old_image, new_image, origin,
                writes);
  }
}

void ChangeLog::StageRecord(const TableInfo& table, uint32_t stream_id, const std::string& view,
                            const Image& old_image, const Image& new_image, ChangeOrigin origin,
                            WriteSet* writes) const {
  const Item* old_item = old_image.item;
  const Item* new_item = new_image.item;
  const bool keep_new = new_item && (view == "NEW_IMAGE" || view == "NEW_AND_OLD_IMAGES");
  const bool keep_old = old_item && (view == "OLD_IMAGE" || view == "NEW_AND_OLD_IMAGES");
  // The keys are stored on their own only when no image carries them.
  const bool keys_apart = !keep_new && !keep_old;
  const Item& any = new_item ? *new_item : *old_item;
  PendingChange change;
  change.stream_id = stream_id;
  std::string& v = change.value;
  v.reserve(64 + (keep_new ? new_image.size + 16 : 0) + (keep_old ? old_image.size + 16 : 0));
  v.push_back(static_cast<char>(kRecordFormatV1));
  v.push_back(static_cast<char>(!old_item ? 1 : !new_item ? 3 : 2));
  v.push_back(static_cast<char>((origin == ChangeOrigin::kTimeToLive ? kByTtl : 0) |
                                (keep_old ? kHasOld : 0) | (keep_new ? kHasNew : 0) |
                                (keys_apart ? 0 : kKeysInImage)));
  v.append(8, '\0');  // creation time, at commit
  size_t size = 0;  // SizeBytes: the keys and the images, by DynamoDB's item sizes
  for (const auto& [name, value] : any) {
    if (table.key.IsKeyAttribute(name)) size += AttributeSize(name, value);
  }
  if (keep_old) size += old_image.size;
  if (keep_new) size += new_image.size;
  PutVarint64(&v, size);
  std::string scratch;
  if (keys_apart) {
    EncodeItemTo(KeyAttributes(table.key, any), &scratch);
    PutLengthPrefixed(&v, scratch);
  }
  auto put_image = [&](const Image& image) {
    if (!image.encoded.empty()) {
      PutLengthPrefixed(&v, image.encoded);
      return;
    }
    scratch.clear();
    EncodeItemTo(*image.item, image.size, &scratch);
    PutLengthPrefixed(&v, scratch);
  };
  if (keep_old) put_image(old_image);
  if (keep_new) put_image(new_image);
  writes->changes.push_back(std::move(change));
}

Status ChangeLog::Commit(WriteSet* writes, const std::function<Status(rocksdb::WriteBatch*)>& write) {
  if (writes->changes.empty()) return write(&writes->batch);
  // (index into changes, sequence number) of the records that are written.
  std::vector<std::pair<size_t, uint64_t>> taken;
  taken.reserve(writes->changes.size());
  uint64_t ms = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const double now = config_.clock();
    ms = static_cast<uint64_t>(std::llround(std::max(0.0, now) * 1000));
    for (size_t i = 0; i < writes->changes.size(); ++i) {
      if (writes->changes[i].history) {
        const uint64_t seq = next_seq_++;
        in_flight_.insert(seq);
        taken.emplace_back(i, seq);
        continue;
      }
      auto it = streams_.find(writes->changes[i].stream_id);
      // Disabled since the write read the catalog: the write is after the
      // stream's end, and has no record.
      if (it == streams_.end() || !it->second.enabled()) continue;
      StreamInfo& s = it->second;
      const uint64_t seq = next_seq_++;
      if (now - s.shards.back().created >= config_.shard_seconds) {
        // Roll over: this record opens the child shard. The shard is made
        // durable first, on its own, so that no record can land in a shard
        // the catalog does not know (rare: every stream_shard_seconds).
        const ShardInfo child{seq, now};
        const rocksdb::WriteOptions wo = WriteOptions();
        rocksdb::WriteBatch shard;
        if (shard.Put(catalog_, ShardKey(s.id, static_cast<uint32_t>(s.shards.size())),
                      ShardValue(child)).ok() &&
            db_->Write(wo, &shard).ok()) {
          s.shards.push_back(child);
        }  // else the open shard goes on, and the next record tries again
      }
      in_flight_.insert(seq);
      taken.emplace_back(i, seq);
    }
  }
  // Numbers taken are released on every way out.
  struct Release {
    ChangeLog* log;
    const std::vector<std::pair<size_t, uint64_t>>* taken;
    ~Release() {
      if (taken->empty()) return;
      {
        std::lock_guard<std::mutex> lock(log->mu_);
        for (const auto& [i, seq] : *taken) log->in_flight_.erase(log->in_flight_.find(seq));
      }
      log->committed_cv_.notify_all();
    }
  } release{this, &taken};
  std::string fixed;
  PutFixed64(&fixed, ms);
  for (const auto& [i, seq] : taken) {
    PendingChange& c = writes->changes[i];
    std::memcpy(&c.value[kTimeOffset], fixed.data(), 8);
    DR_RETURN_IF_ERROR(
        FromRocksDB(writes->batch.Put(records_, RecordKey(c.stream_id, seq), c.value)));
  }
  return write(&writes->batch);
}

// ---------------------------------------------------------------- lifecycle

rocksdb::WriteOptions ChangeLog::WriteOptions() const {
  rocksdb::WriteOptions wo;
  wo.sync = config_.sync;
  wo.disableWAL = config_.disable_wal;
  return wo;
}

rocksdb::Status ChangeLog::WriteNow(rocksdb::WriteBatch* batch) {
  rocksdb::Status s = db_->Write(WriteOptions(), batch);
  if (s.ok() && config_.flush_wal) s = db_->FlushWAL(/*sync=*/false);
  return s;
}

void ChangeLog::PersistStream(const StreamInfo& s, rocksdb::WriteBatch* batch) const {
  std::string v;
  EncodeItemTo(StreamToItem(s), &v);
  batch->Put(catalog_, StreamKey(s.id), v).PermitUncheckedError();
}

void ChangeLog::CreateStream(TableInfo* table, uint32_t id, rocksdb::WriteBatch* batch,
                             bool internal, std::string destination) {
  std::lock_guard<std::mutex> lock(mu_);
  double now = config_.clock();
  std::string table_arn = "arn:aws:dynamodb:" + config_.region + ":" + config_.account_id +
                          ":table/" + table->name;
  // A label (and so an ARN) is never given twice to one table's streams.
  std::string label = StreamLabel(now);
  auto taken = [&](const std::string& l) {
    for (const auto& [sid, s] : streams_)
      if (s.table_name == table->name && s.label == l) return true;
    for (const auto& s : unpublished_)
      if (s.table_name == table->name && s.label == l) return true;
    return false;
  };
  while (taken(label)) {
    now += 0.001;
    label = StreamLabel(now);
  }
  StreamInfo s;
  s.id = id;
  s.table_name = table->name;
  s.table_id = table->id;
  s.label = label;
  s.arn = table_arn + (internal ? "/kinesis-log/" : "/stream/") + label;
  s.internal = internal;
  s.destination = std::move(destination);
  s.view_type = internal ? "NEW_AND_OLD_IMAGES" : table->stream_specification->stream_view_type;
  s.key_schema = table->key_schema;
  s.created = now;
  s.shards.push_back({next_seq_, now});
  PersistStream(s, batch);
  batch->Put(catalog_, ShardKey(id, 0), ShardValue(s.shards[0])).PermitUncheckedError();
  if (internal) {
    table->kinesis_log_id = id;
  } else {
    table->stream_id = id;
    table->stream_label = label;
  }
  unpublished_.push_back(std::move(s));
}

void ChangeLog::DisableStream(uint32_t id, rocksdb::WriteBatch* batch) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(id);
  if (it == streams_.end() || !it->second.enabled()) return;
  // Disabled at once, so that no number is taken for it past end_seq; put
  // back by Publish(false) if the batch does not commit.
  StreamInfo& s = it->second;
  s.disabled_at = config_.clock();
  s.end_seq = next_seq_ - 1;
  PersistStream(s, batch);
  unpublished_disables_.push_back(id);
}

void ChangeLog::Publish(bool committed) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (committed) {
      for (auto& s : unpublished_) streams_[s.id] = std::move(s);
    } else {
      for (uint32_t id : unpublished_disables_) {
        auto it = streams_.find(id);
        if (it != streams_.end()) it->second.disabled_at.reset();
      }
    }
    unpublished_.clear();
    unpublished_disables_.clear();
  }
  if (committed) StartTrimmer();
  committed_cv_.notify_all();
}

// ---------------------------------------------------------------- reading

std::optional<StreamInfo> ChangeLog::Find(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = streams_.find(id);
  if (it == streams_.end()) return std::nullopt;
  return it->second;
}

std::optional<StreamInfo> ChangeLog::FindByArn(std::string_view arn) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, s] : streams_)
    if (s.arn == arn && !s.internal) return s;
  return std::nullopt;
}

std::vector<StreamInfo> ChangeLog::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StreamInfo> out;
  for (const auto& [id, s] : streams_)
    if (!s.internal) out.push_back(s);
  return out;
}

std::vector<StreamInfo> ChangeLog::ListInternal() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<StreamInfo> out;
  for (const auto& [id, s] : streams_)
    if (s.internal) out.push_back(s);
  return out;
}

uint64_t ChangeLog::Horizon() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_.empty() ? next_seq_ - 1 : *in_flight_.begin() - 1;
}

Status ChangeLog::Read(const StreamInfo& stream, uint64_t from, uint64_t to, size_t limit,
                       size_t max_bytes, std::vector<StreamRecord>* out, uint64_t* next) const {
  *next = from;
  if (from > to || limit == 0) return Status();
  const std::string lower = RecordKey(stream.id, from);
  const std::string upper = to == std::numeric_limits<uint64_t>::max()
                                ? RecordKey(stream.id + 1, 0)
                                : RecordKey(stream.id, to + 1);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, records_));
  size_t bytes = 0;
  size_t count = 0;
  for (it->Seek(lower); it->Valid() && count < limit; it->Next()) {
    if (it->key().size() != 12) continue;
    const uint64_t seq = DecodeFixed64BE(it->key().data() + 4);
    StreamRecord r;
    if (!DecodeRecord(std::string_view(it->value().data(), it->value().size()), stream, seq,
                      config_.region, &r)) {
      return InternalError("Corrupt stream record");
    }
    // At most max_bytes of records (by SizeBytes), one at least.
    const size_t size = static_cast<size_t>(r.size_bytes);
    if (count > 0 && bytes + size > max_bytes) break;
    bytes += size;
    out->push_back(std::move(r));
    ++count;
    *next = seq + 1;
  }
  if (!it->status().ok()) return FromRocksDB(it->status());
  // Nothing more up to `to`: the next read may start past it.
  if (!it->Valid() && to != std::numeric_limits<uint64_t>::max()) *next = to + 1;
  return Status();
}

void ChangeLog::WaitBeyond(uint64_t seq, double timeout_seconds,
                           const std::function<bool()>& stop) const {
  std::unique_lock<std::mutex> lock(mu_);
  auto beyond = [&] {
    const uint64_t horizon = in_flight_.empty() ? next_seq_ - 1 : *in_flight_.begin() - 1;
    return horizon > seq || stop();
  };
  committed_cv_.wait_for(lock, std::chrono::duration<double>(timeout_seconds), beyond);
}

void ChangeLog::WakeWaiters() const {
  std::lock_guard<std::mutex> lock(mu_);
  committed_cv_.notify_all();
}

// ---------------------------------------------------------------- history

std::string ChangeLog::RecordKeyOf(uint32_t id, uint64_t seq) { return RecordKey(id, seq); }

void ChangeLog::StageHistory(const TableInfo& table, const Image& old_image,
                             const Item& any_image, ChangeOrigin origin, WriteSet* writes) const {
  if (table.pitr_history_id == 0) return;
  const Item* old_item = old_image.item;
  PendingChange change;
  change.stream_id = table.pitr_history_id;
  change.history = true;
  std::string& v = change.value;
  v.push_back(static_cast<char>(kRecordFormatV1));
  v.push_back(static_cast<char>(!old_item ? 1 : 2));
  v.push_back(static_cast<char>((origin == ChangeOrigin::kTimeToLive ? kByTtl : 0) |
                                (old_item ? kHasOld : 0)));
  v.append(8, '\0');  // creation time, at commit
  PutVarint64(&v, 0);
  std::string scratch;
  EncodeItemTo(KeyAttributes(table.key, any_image), &scratch);
  PutLengthPrefixed(&v, scratch);
  if (old_item) {
    if (!old_image.encoded.empty()) {
      PutLengthPrefixed(&v, old_image.encoded);
    } else {
      scratch.clear();
      EncodeItemTo(*old_item, old_image.size, &scratch);
      PutLengthPrefixed(&v, scratch);
    }
  }
  writes->changes.push_back(std::move(change));
}

bool ChangeLog::ParseHistoryRecord(std::string_view key, std::string_view v, HistoryRecord* r) {
  if (key.size() != 12 || v.size() < kHeaderBytes || static_cast<uint8_t>(v[0]) != kRecordFormatV1)
    return false;
  r->seq = DecodeFixed64BE(key.data() + 4);
  const uint8_t flags = static_cast<uint8_t>(v[2]);
  std::string_view in = v.substr(kTimeOffset);
  uint64_t size = 0;
  if (!GetFixed64(&in, &r->ms) || !GetVarint64(&in, &size) || !GetLengthPrefixed(&in, &r->keys))
    return false;
  r->old_image.reset();
  if (flags & kHasOld) {
    std::string_view old;
    if (!GetLengthPrefixed(&in, &old)) return false;
    r->old_image = old;
  }
  return true;
}

void ChangeLog::KeepHistory(uint32_t id, double seconds) {
  // Numbers continue past the history's last record (Load knows streams only).
  std::unique_ptr<rocksdb::Iterator> r(db_->NewIterator(rocksdb::ReadOptions(), records_));
  r->SeekForPrev(RecordKey(id, std::numeric_limits<uint64_t>::max()));
  std::lock_guard<std::mutex> lock(mu_);
  if (r->Valid() && r->key().size() == 12 && DecodeFixed32BE(r->key().data()) == id) {
    next_seq_ = std::max(next_seq_, DecodeFixed64BE(r->key().data() + 4) + 1);
  }
  histories_[id] = seconds;
}

void ChangeLog::DropHistory(uint32_t id, rocksdb::WriteBatch* batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    histories_.erase(id);
  }
  batch->DeleteRange(records_, RecordKey(id, 0), RecordKey(id + 1, 0)).PermitUncheckedError();
}

// ---------------------------------------------------------------- trimming

int64_t ChangeLog::CountOlder(uint32_t id, uint64_t from, uint64_t cutoff_ms,
                              uint64_t* last) const {
  const std::string upper = RecordKey(id + 1, 0);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, records_));
  int64_t count = 0;
  for (it->Seek(RecordKey(id, from)); it->Valid(); it->Next()) {
    std::string_view v(it->value().data(), it->value().size());
    if (v.size() < kHeaderBytes || it->key().size() != 12) break;
    std::string_view t = v.substr(kTimeOffset, 8);
    uint64_t ms = 0;
    GetFixed64(&t, &ms);
    if (ms >= cutoff_ms) break;
    *last = DecodeFixed64BE(it->key().data() + 4);
    ++count;
  }
  return count;
}

int64_t ChangeLog::Trim() {
  std::lock_guard<std::mutex> one_at_a_time(trim_mu_);
  const double now = config_.clock();
  const double cutoff = now - config_.retention_seconds;
  const uint64_t cutoff_ms = static_cast<uint64_t>(std::max(0.0, cutoff) * 1000);
  int64_t trimmed = 0;
  for (const StreamInfo& s : List()) {
    rocksdb::WriteBatch batch;
    if (s.disabled_at && *s.disabled_at < cutoff) {
      // Disabled longer than the retention: every record is older; the
      // stream goes.
      batch.DeleteRange(records_, RecordKey(s.id, 0), RecordKey(s.id + 1, 0)).PermitUncheckedError();
      batch.Delete(catalog_, StreamKey(s.id)).PermitUncheckedError();
      batch.Delete(catalog_, TrimKey(s.id)).PermitUncheckedError();
      for (size_t i = 0; i < s.shards.size(); ++i)
        batch.Delete(catalog_, ShardKey(s.id, static_cast<uint32_t>(i))).PermitUncheckedError();
      if (!WriteNow(&batch).ok()) continue;
      std::lock_guard<std::mutex> lock(mu_);
      streams_.erase(s.id);
      continue;
    }
    // Records older than the cutoff, from the oldest kept.
    uint64_t last = 0;
    const int64_t count = CountOlder(s.id, s.trimmed_through + 1, cutoff_ms, &last);
    if (count == 0) continue;
    // Readers learn of the trim before the records go: one that read across
    // the deletion sees trimmed_through moved when it checks again.
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto found = streams_.find(s.id);
      if (found != streams_.end()) found->second.trimmed_through = last;
    }
    batch.DeleteRange(records_, RecordKey(s.id, 0), RecordKey(s.id, last + 1)).PermitUncheckedError();
    std::string v;
    PutFixed64(&v, last);
    batch.Put(catalog_, TrimKey(s.id), v).PermitUncheckedError();
    if (!WriteNow(&batch).ok()) continue;
    trimmed += count;
  }
  // Histories: records older than their table's recovery period.
  std::map<uint32_t, double> histories;
  {
    std::lock_guard<std::mutex> lock(mu_);
    histories = histories_;
  }
  for (const auto& [id, seconds] : histories) {
    const uint64_t keep_ms = static_cast<uint64_t>(std::max(0.0, now - seconds) * 1000);
    uint64_t last = 0;
    const int64_t count = CountOlder(id, 0, keep_ms, &last);
    if (count == 0) continue;
    rocksdb::WriteBatch batch;
    batch.DeleteRange(records_, RecordKey(id, 0), RecordKey(id, last + 1)).PermitUncheckedError();
    if (WriteNow(&batch).ok()) trimmed += count;
  }
  return trimmed;
}

}  // namespace dynarock
