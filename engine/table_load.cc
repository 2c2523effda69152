// File: engine/table_load.cc
//
// Filling a new table (restores, DB::LoadTable): engine/table_load.h.

#include "engine/table_load.h"

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <tuple>

#include "dynarock/item_size.h"
#include "engine/item_codec.h"
#include "engine/item_validation.h"
#include "engine/limits.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

// Items staged per write, and bytes of entries per ingested table file.
constexpr size_t kBatchItems = 4096;
constexpr size_t kBatchBytes = 4u << 20;
constexpr size_t kFileBytes = 32u << 20;
// Items whose keys were added before, held for the end of the load at most.
constexpr size_t kLaterItems = 65536;
constexpr size_t kLaterBytes = 64u << 20;

}  // namespace

DBImpl::Loader::Loader(DBImpl* db, const TableInfo* table, bool unique_keys)
    : db_(db), table_(table), unique_keys_(unique_keys), ingest_(!db->options_.in_memory) {
  std::vector<std::string> names;
  for (const auto* part : {&table->key.hash, &table->key.range}) {
    for (const auto& a : *part) names.push_back(a.name);
  }
  for (const IndexInfo& index : table->indexes) {
    for (const auto* part : {&index.key.hash, &index.key.range}) {
      for (const auto& a : *part) names.push_back(a.name);
    }
    all_projected_ = all_projected_ && IndexProjectsAll(index);
  }
  key_names_ = SortedNames(std::move(names));
}

DBImpl::Loader::~Loader() { Stop(); }

void DBImpl::Loader::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (stager_.joinable()) stager_.join();  // which joins the writer
}

size_t DBImpl::Loader::KeyHashes::Slot(uint64_t h) const {
  return (h * 0x9E3779B97F4A7C15ull) >> 20 & (slots_.size() - 1);
}

void DBImpl::Loader::KeyHashes::Prefetch(uint64_t h) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[Slot(h)]);
}

bool DBImpl::Loader::KeyHashes::Insert(uint64_t h) {
  if (h == 0) return !std::exchange(zero_, true);
  if ((size_ + 1) * 2 > slots_.size()) {  // at most half full
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), 0);
    size_ = 0;
    for (uint64_t x : old) {
      if (x != 0) Insert(x);
    }
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = Slot(h);; i = (i + 1) & mask) {
    if (slots_[i] == h) return false;
    if (slots_[i] == 0) {
      slots_[i] = h;
      ++size_;
      return true;
    }
  }
}

Status TableLoader::Prepare(Item* item) {
  DR_RETURN_IF_ERROR(NormalizeAndValidateItem(item));
  if (ItemSize(*item) > kItemSizeBytesMax) {
    return ValidationError("Item size has exceeded the maximum allowed size");
  }
  return Status();
}

Status DBImpl::Loader::Add(Item item) {
  DR_RETURN_IF_ERROR(Prepare(&item));
  return AddPrepared(std::move(item));
}

Status DBImpl::Loader::AddPrepared(Item item) {
  const size_t size = ItemSize(item);
  DR_ASSIGN_OR_RETURN(std::string key, db_->ItemKey(*table_, item, /*for_put=*/true));
  DR_RETURN_IF_ERROR(CheckIndexKeyTypes(*table_, item));
  Pending p;
  p.key = std::move(key);
  p.item = std::move(item);
  p.size = size;
  return Stage(std::move(p));
}

Status DBImpl::Loader::AddEncoded(std::string_view encoded) {
  size_t size = 0;
  if (!EncodedItemSize(encoded, &size)) {
    return ValidationError("The item to load is not in the item encoding");
  }
  if (size > kItemSizeBytesMax) {
    return ValidationError("Item size has exceeded the maximum allowed size");
  }
  Pending p;
  p.encoded = pending_arena_.Copy(encoded);
  p.size = size;
  // On disk the stager reads the item's keys (DeriveKey); in memory, here.
  if (!ingest_) DR_RETURN_IF_ERROR(DeriveKey(&p, &keys_));
  return Stage(std::move(p));
}

Status DBImpl::Loader::DeriveKey(Pending* p, Item* scratch) {
  if (!DecodeItemAttributes(p->bytes(), key_names_, scratch)) {
    return ValidationError("The item to load is not in the item encoding");
  }
  DR_ASSIGN_OR_RETURN(p->key, db_->ItemKey(*table_, *scratch, /*for_put=*/true));
  return CheckIndexKeyTypes(*table_, *scratch);
}

Status DBImpl::Loader::AddStored(std::string_view stored) {
  Item item;
  if (!DecodeItem(stored, &item)) return InternalError("Corrupt item record");
  DR_ASSIGN_OR_RETURN(std::string key, db_->ItemKey(*table_, item, /*for_put=*/true));
  size_t size = 0;
  if (!EncodedItemSize(stored, &size)) size = ItemSize(item);
  Pending p;
  p.key = std::move(key);
  p.item = std::move(item);
  p.size = size;
  return Stage(std::move(p));
}

Status DBImpl::Loader::Stage(Pending p) {
  if (db_->shutting_down_.load(std::memory_order_relaxed)) {
    return InternalError("The database is closing");
  }
  const size_t size = p.size;
  items_ += 1;
  bytes_ += static_cast<int64_t>(size);
  // On disk the stager sets a key added before aside (Repeated); in memory,
  // that is done here.
  if (!ingest_ && Repeated(&p, std::hash<std::string>()(p.key))) {
    if (later_.size() >= kLaterItems || later_bytes_ >= kLaterBytes) {
      DR_RETURN_IF_ERROR(Flush(/*all=*/true));
      return WriteRepeated();
    }
    return Status();
  }
  if (pending_.empty()) pending_.reserve(kBatchItems);
  pending_.push_back(std::move(p));
  pending_bytes_ += size;
  if (pending_.size() >= kBatchItems || pending_bytes_ >= kBatchBytes) return Flush(false);
  return Status();
}

bool DBImpl::Loader::Repeated(Pending* p, uint64_t hash) {
  // Only a key this load may have added already needs reading: nobody else
  // writes to a loading table. Such an item waits for the end of the load
  // (Finish), when everything added before it is readable: reading it back
  // now would first write out every table file in progress, once per
  // repeated key. Keys repeat in order, so the last version still wins.
  if (unique_keys_ || seen_.Insert(hash)) return false;
  later_bytes_ += p->size;
  if (!p->item && p->own.empty()) {  // its batch's arena goes with the batch
    p->own.assign(p->encoded);
    p->encoded = {};
  }
  later_.push_back(std::move(*p));
  return true;
}

Status DBImpl::Loader::WriteRepeated() {
  // One at a time, each reading the version before it (keys given twice, or
  // 64-bit hashes that collide); at most kLaterItems wait at once.
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  for (Pending& p : later_) {
    rocksdb::PinnableSlice stored;
    rocksdb::Status rs = db_->db_->Get(rocksdb::ReadOptions(), db_->items_cf_, p.key, &stored);
    if (!rs.ok() && !rs.IsNotFound()) return FromRocksDB(rs);
    size_t old_size = 0;
    std::optional<Item> old_item;
    if (rs.ok()) {
      DR_RETURN_IF_ERROR(ReadOldVersion(std::string_view(stored.data(), stored.size()),
                                        /*decode=*/true, &old_size, &old_item));
      items_ -= 1;
      bytes_ -= static_cast<int64_t>(old_size);
    }
    if (!p.item) {  // added encoded
      p.item.emplace();
      if (!DecodeItem(p.bytes(), &*p.item)) return InternalError("Corrupt item record");
    }
    WriteSet writes;
    DR_RETURN_IF_ERROR(db_->StageWrite(*table_, p.key, old_item.has_value(), old_size,
                                       old_item ? &*old_item : nullptr, &*p.item, ItemSize(*p.item),
                                       &writes, nullptr, ChangeOrigin::kUser));
    DR_RETURN_IF_ERROR(db_->StageStats(&writes));
    DR_RETURN_IF_ERROR(FromRocksDB(db_->db_->Write(wo, &writes.batch)));
    // Index entries a lagging database holds back go now: nobody reads a
    // loading table.
    if (writes.lagged.Count() > 0) DR_RETURN_IF_ERROR(FromRocksDB(db_->db_->Write(wo, &writes.lagged)));
  }
  later_.clear();
  later_bytes_ = 0;
  return Status();
}

char* DBImpl::Loader::ByteArena::Take(size_t n) {
  if (n > room) {
    const size_t size = std::max<size_t>(n, 1u << 20);
    chunks.push_back(std::make_unique_for_overwrite<char[]>(size));
    next = chunks.back().get();
    room = size;
  }
  char* at = next;
  next += n;
  room -= n;
  return at;
}

std::string_view DBImpl::Loader::ByteArena::Copy(std::string_view bytes) {
  if (bytes.empty()) return std::string_view("", 0);
  char* at = Take(bytes.size());
  memcpy(at, bytes.data(), bytes.size());
  return {at, bytes.size()};
}

void DBImpl::Loader::FileEntries::Add(std::string_view key, std::string_view value) {
  char* at = bytes.Take(key.size() + value.size());
  if (!key.empty()) memcpy(at, key.data(), key.size());
  if (!value.empty()) memcpy(at + key.size(), value.data(), value.size());
  refs.push_back(Ref{at, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size())});
}

template <typename Put>
Status DBImpl::Loader::StageNew(const Pending& p, const Item* keys, std::string* value, Put&& put) {
  // A new item of a loading table: no stream, history or stale-read records,
  // and its index entries are written with it (nobody reads the table yet).
  auto count = [this](uint32_t id, size_t size) {
    auto it = std::find_if(stats_.begin(), stats_.end(), [&](const auto& s) { return s.first == id; });
    if (it == stats_.end()) it = stats_.insert(stats_.end(), {id, {0, 0}});
    it->second.first += 1;
    it->second.second += static_cast<int64_t>(size);
  };
  const Item* item = nullptr;
  std::string_view encoded;
  if (p.item) {
    value->clear();
    EncodeItemTo(*p.item, p.size, value);
    item = &*p.item;
    encoded = *value;
  } else {
    // An encoded item: the attributes its index entries need, from its bytes.
    // (DeriveKey may have just read them: `keys`.)
    encoded = p.bytes();
    if (all_projected_ && keys != nullptr) {
      item = keys;
    } else {
      const bool ok = all_projected_ ? DecodeItemAttributes(encoded, key_names_, &stage_item_)
                                     : DecodeItem(encoded, &stage_item_);
      if (!ok) return InternalError("Corrupt item record");
      item = &stage_item_;
    }
  }
  put(db_->items_cf_, p.key, encoded);
  count(table_->id, p.size);
  ForEachIndexEntry(*table_, *item, encoded, p.size,
                    [&](const IndexInfo& index, std::string_view key, std::string_view entry,
                        size_t entry_size) {
                      put(db_->indexes_cf_, key, entry);
                      count(index.id, entry_size);
                    });
  return Status();
}

Status DBImpl::Loader::Flush(bool all) {
  if (ingest_) {
    // On disk the stager encodes the batch into the table files' entries
    // (sorted with their file) while the caller goes on.
    if (pending_.empty() && !all) return Status();
    std::vector<Pending> batch = std::move(pending_);
    ByteArena arena = std::move(pending_arena_);
    pending_.clear();
    pending_arena_ = ByteArena();
    pending_bytes_ = 0;
    DR_RETURN_IF_ERROR(Hand(std::move(batch), std::move(arena), all));
    return all ? WaitForIngest() : Status();
  }
  if (pending_.empty()) return Status();
  // In memory everything goes to the memtable, in key order. No write-ahead
  // log: a load cut short is deleted (a restore started again) at the next
  // open.
  std::sort(pending_.begin(), pending_.end(),
            [](const Pending& a, const Pending& b) { return a.key < b.key; });
  rocksdb::WriteBatch batch;
  std::string value;
  rocksdb::Status put_status;
  for (const Pending& p : pending_) {
    DR_RETURN_IF_ERROR(StageNew(
        p, /*keys=*/nullptr, &value, [&](rocksdb::ColumnFamilyHandle* cf, std::string_view k, std::string_view v) {
          if (put_status.ok()) put_status = batch.Put(cf, k, v);
        }));
  }
  DR_RETURN_IF_ERROR(FromRocksDB(put_status));
  pending_.clear();
  pending_arena_ = ByteArena();
  pending_bytes_ = 0;
  DR_RETURN_IF_ERROR(WriteStats(&batch));
  return Status();
}

Status DBImpl::Loader::WriteStats(rocksdb::WriteBatch* batch) {
  // One statistics merge per table and index for the whole batch: thousands
  // of operands of one key would otherwise fill the memtable.
  for (const auto& [id, sum] : stats_) {
    DR_RETURN_IF_ERROR(
        FromRocksDB(batch->Merge(db_->catalog_cf_, StatsKey(id), StatsDelta(sum.first, sum.second))));
  }
  stats_.clear();
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  if (batch->Count() == 0) return Status();
  return FromRocksDB(db_->db_->Write(wo, batch));
}

Status DBImpl::Loader::Hand(std::vector<Pending> batch, ByteArena arena, bool write_files) {
  // A few batches may wait, so that neither thread waits for the other's
  // uneven steps (a table file written takes a while).
  constexpr size_t kQueuedBatches = 4;
  std::unique_lock<std::mutex> lock(mu_);
  if (!stager_.joinable()) stager_ = std::thread([this] { RunStager(); });
  cv_.wait(lock, [&] { return handed_.size() < kQueuedBatches || !stager_status_.ok(); });
  if (!stager_status_.ok()) return stager_status_;
  handed_.push_back(Handed{std::move(batch), std::move(arena), write_files});
  lock.unlock();
  cv_.notify_all();
  return Status();
}

void DBImpl::Loader::RunStager() {
  for (;;) {
    Handed h;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !handed_.empty(); });
      if (handed_.empty()) {
        lock.unlock();
        (void)JoinWriter();
        return;
      }
      h = std::move(handed_.front());
      handed_.pop_front();
      staging_ = true;
    }
    cv_.notify_all();  // room for another batch
    Status s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s = stager_status_;
    }
    if (s.ok()) s = StageBatch(&h.items, h.write_files);
    h.items.clear();  // freed here, not on the caller's thread
    h.arena = ByteArena();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!s.ok() && stager_status_.ok()) stager_status_ = s;
      staging_ = false;
    }
    cv_.notify_all();
  }
}

Status DBImpl::Loader::StageBatch(std::vector<Pending>* batch, bool write_files) {
  if (!batch->empty()) {
    std::string value;
    // One item ahead: an item added encoded is read for its keys here, off
    // the caller's thread (a refusal fails the load), and the slot of its
    // key's hash asked for, while the item before it is staged.
    std::vector<Pending>& items = *batch;
    Item* scratch[2] = {&derived_keys_[0], &derived_keys_[1]};
    bool derived[2] = {false, false};
    uint64_t hash[2] = {0, 0};
    auto look_ahead = [&](size_t i) -> Status {
      Pending& p = items[i];
      derived[i & 1] = p.key.empty();
      if (derived[i & 1]) DR_RETURN_IF_ERROR(DeriveKey(&p, scratch[i & 1]));
      hash[i & 1] = std::hash<std::string>()(p.key);
      if (!unique_keys_) seen_.Prefetch(hash[i & 1]);
      return Status();
    };
    DR_RETURN_IF_ERROR(look_ahead(0));
    for (size_t i = 0; i < items.size(); ++i) {
      if (i + 1 < items.size()) DR_RETURN_IF_ERROR(look_ahead(i + 1));
      Pending& p = items[i];
      if (Repeated(&p, hash[i & 1])) continue;
      DR_RETURN_IF_ERROR(StageNew(
          p, derived[i & 1] ? scratch[i & 1] : nullptr, &value,
          [this](rocksdb::ColumnFamilyHandle* cf, std::string_view k, std::string_view v) {
            (cf == db_->items_cf_ ? items_file_ : index_file_).Add(k, v);
            file_bytes_ += k.size() + v.size();
          }));
    }
    rocksdb::WriteBatch stats;
    DR_RETURN_IF_ERROR(WriteStats(&stats));
  }
  // Many repeats (a source listing most keys twice): written now rather than
  // all held, once everything before them is readable.
  const bool repeats = later_.size() >= kLaterItems || later_bytes_ >= kLaterBytes;
  if (!write_files && !repeats && file_bytes_ < kFileBytes) return Status();
  // The files are sorted, written and ingested by a thread of their own
  // while the stager goes on with the next batches: one pair at a time.
  DR_RETURN_IF_ERROR(JoinWriter());
  const int first = files_;
  files_ += 2;
  writer_ = std::thread([this, first, items = std::move(items_file_), index = std::move(index_file_)]() mutable {
    Status s = Ingest(db_->items_cf_, &items, first);
    if (s.ok()) s = Ingest(db_->indexes_cf_, &index, first + 1);
    writer_status_ = std::move(s);
  });
  items_file_ = FileEntries();
  index_file_ = FileEntries();
  file_bytes_ = 0;
  if (!write_files && !repeats) return Status();
  DR_RETURN_IF_ERROR(JoinWriter());
  return repeats ? WriteRepeated() : Status();
}

Status DBImpl::Loader::JoinWriter() {
  if (writer_.joinable()) writer_.join();
  return writer_status_;
}

Status DBImpl::Loader::WaitForIngest() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return (handed_.empty() && !staging_) || !stager_.joinable(); });
  return stager_status_;  // an error stays: the load cannot be whole any more
}

void SortLoadEntries(const std::function<std::string_view(uint32_t)>& key_of,
                     std::vector<uint32_t>* order) {
  // A multikey sort: by the eight key bytes at `offset` (and whether the key
  // ends within them), then each run that ties on them by the next eight.
  // Keys of one partition share long prefixes (an index of one partition key
  // holds all its entries under one), which a whole-key comparison would
  // compare again and again.
  struct Slot {
    uint64_t bytes;
    uint32_t rest;  // key bytes from `offset` on, 9 for more than eight
    uint32_t at;
  };
  std::vector<Slot> slots, spread;
  std::vector<std::tuple<size_t, size_t, size_t>> runs = {{0, order->size(), 0}};
  while (!runs.empty()) {
    auto [begin, end, offset] = runs.back();
    runs.pop_back();
    // Bytes every key of the run shares (a table's or an index's prefix) are
    // skipped: sorting by them would only tie.
    const std::string_view first = key_of((*order)[begin]);
    size_t common = first.size();
    for (size_t i = begin + 1; i < end && common > offset; ++i) {
      const std::string_view k = key_of((*order)[i]);
      const size_t n = std::min(common, k.size());
      size_t c = offset;
      while (c < n && k[c] == first[c]) ++c;
      common = c;
    }
    offset = std::max(offset, common);
    slots.resize(end - begin);
    for (size_t i = begin; i < end; ++i) {
      const std::string_view k = key_of((*order)[i]);
      uint64_t p = 0;
      for (size_t b = 0; b < 8; ++b) {
        p = (p << 8) | (offset + b < k.size() ? static_cast<unsigned char>(k[offset + b]) : 0);
      }
      const size_t rest = k.size() > offset ? k.size() - offset : 0;
      slots[i - begin] = Slot{p, static_cast<uint32_t>(std::min<size_t>(rest, 9)), (*order)[i]};
    }
    auto less = [](const Slot& a, const Slot& b) {
      if (a.bytes != b.bytes) return a.bytes < b.bytes;
      if (a.rest != b.rest) return a.rest < b.rest;
      return a.at < b.at;
    };
    if (slots.size() < 4096) {
      std::sort(slots.begin(), slots.end(), less);
    } else {
      // Many: first distributed by their top 16 bits (a stable counting
      // pass), then each bucket sorted; keys led by a hash spread evenly.
      std::vector<uint32_t> starts(65537, 0);
      for (const Slot& s : slots) ++starts[(s.bytes >> 48) + 1];
      for (size_t b = 1; b < starts.size(); ++b) starts[b] += starts[b - 1];
      spread.resize(slots.size());
      std::vector<uint32_t> fill(starts.begin(), starts.end() - 1);
      for (const Slot& s : slots) spread[fill[s.bytes >> 48]++] = s;
      slots.swap(spread);
      for (size_t b = 0; b + 1 < starts.size(); ++b) {
        if (starts[b + 1] - starts[b] > 1) {
          std::sort(slots.begin() + starts[b], slots.begin() + starts[b + 1], less);
        }
      }
    }
    for (size_t i = 0; i < slots.size();) {
      size_t j = i + 1;
      while (j < slots.size() && slots[j].bytes == slots[i].bytes && slots[j].rest == slots[i].rest) ++j;
      // Keys longer than eight more bytes that tie so far: sorted further;
      // shorter ones that tie are one key, added more than once: all but
      // the last are marked superseded.
      const bool longer = slots[i].rest == 9;
      if (j - i > 1 && longer) runs.emplace_back(begin + i, begin + j, offset + 8);
      for (size_t k = i; k < j; ++k) {
        (*order)[begin + k] = slots[k].at | (!longer && k + 1 < j ? kSuperseded : 0);
      }
      i = j;
    }
  }
}

Status DBImpl::Loader::Ingest(rocksdb::ColumnFamilyHandle* cf, FileEntries* entries, int number) {
  if (entries->empty()) return Status();
  // Sorted by key; a key twice (an entry replaced within the file's span):
  // the later wins. The entries are ordered through an index (SortLoadEntries):
  // by eight key bytes at a time, then by their order of arrival.
  static_assert(kFileBytes < kSuperseded, "entry numbers fit below the mark");
  const FileEntries& e = *entries;
  std::vector<uint32_t> order(e.refs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  SortLoadEntries([&e](uint32_t i) { return e.key(e.refs[i]); }, &order);
  const std::string path = db_->dir_ + "/load-" + std::to_string(table_->id) + "-" +
                           std::to_string(number) + ".sst";
  rocksdb::Options o(db_->db_->GetDBOptions(), db_->db_->GetOptions(cf));
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), o, cf);
  DR_RETURN_IF_ERROR(FromRocksDB(writer.Open(path)));
  rocksdb::Status written;
  // In key order the entries are read all over the buffers: each one's bytes
  // are asked for a few entries ahead (and its reference further ahead), or
  // every Put would wait for memory.
  constexpr size_t kRefAhead = 16, kBytesAhead = 8;
  const uint32_t kNumber = ~kSuperseded;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + kRefAhead < order.size()) __builtin_prefetch(&e.refs[order[i + kRefAhead] & kNumber]);
    if (i + kBytesAhead < order.size()) {
      const FileEntries::Ref& ahead = e.refs[order[i + kBytesAhead] & kNumber];
      __builtin_prefetch(ahead.at);
      __builtin_prefetch(ahead.at + ahead.key_size + ahead.value_size - 1);
    }
    const uint32_t at = order[i];
    if (at & kSuperseded) continue;
    const FileEntries::Ref& x = e.refs[at];
    written = writer.Put(e.key(x), e.value(x));
    if (!written.ok()) break;
  }
  if (written.ok()) written = writer.Finish();
  if (!written.ok()) {
    rocksdb::Env::Default()->DeleteFile(path).PermitUncheckedError();  // no half file left
    return FromRocksDB(written);
  }
  *entries = FileEntries();
  rocksdb::IngestExternalFileOptions ifo;
  ifo.move_files = true;
  Status s = FromRocksDB(db_->db_->IngestExternalFile(cf, {path}, ifo));
  rocksdb::Env::Default()->DeleteFile(path).PermitUncheckedError();  // when not moved
  return s;
}

Status DBImpl::Loader::Finish() {
  DR_RETURN_IF_ERROR(Flush(/*all=*/true));
  DR_RETURN_IF_ERROR(WriteRepeated());
  if (db_->options_.in_memory) return Status();
  // What went without the write-ahead log reaches table files.
  rocksdb::FlushOptions fo;
  fo.wait = true;
  return FromRocksDB(db_->db_->Flush(fo, {db_->items_cf_, db_->indexes_cf_, db_->catalog_cf_}));
}

StatusOr<TableInfoPtr> DBImpl::CreateLoadingTable(const CreateTableRequest& req,
                                                  TableInfo restore_fields,
                                                  const std::string& kind) {
  if (options_.read_only) return InternalError("The database was opened read-only; writes are refused");
  const double now = change_log_->Now();
  DR_ASSIGN_OR_RETURN(TableInfo info, ValidateCreateTable(req, now));
  DR_RETURN_IF_ERROR(ApplyCreateTableSettings(
      req, "arn:aws:kms:" + options_.region + ":" + options_.account_id + ":", &info));
  info.uuid = NewUuid();
  info.creation_time = now;
  if (info.billing_mode == "PAY_PER_REQUEST") info.pay_per_request_since = now;
  info.stream_specification.reset();  // a loaded table starts without a stream
  info.tags.clear();
  info.loading = kind;
  info.restore_backup_arn = std::move(restore_fields.restore_backup_arn);
  info.restore_source_arn = std::move(restore_fields.restore_source_arn);
  info.restore_time = restore_fields.restore_time;
  if (restore_fields.sse_type) {  // a restore's SSESpecificationOverride
    info.sse_type = std::move(restore_fields.sse_type);
    info.kms_key_arn = std::move(restore_fields.kms_key_arn);
  }

  for (auto& ix : info.indexes) ix.status = "ACTIVE";  // filled with the table, not backfilled
  std::unique_lock lock(catalog_mu_);
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(AdmitNewTable(
      &info, &batch,
      Status(ErrorType::kTableAlreadyExists, "Table already exists: " + info.name)));
  DR_RETURN_IF_ERROR(PersistTable(info, &batch));
  DR_RETURN_IF_ERROR(Commit(&batch));
  auto ptr = std::make_shared<TableInfo>(std::move(info));
  tables_[ptr->name] = ptr;
  CatalogChanged();
  return TableInfoPtr(ptr);
}

Status DBImpl::Loader::SaveCheckpointWithTable(std::string_view name, std::string value) {
  DR_RETURN_IF_ERROR(CheckCheckpointName(name));
  checkpoints_.insert_or_assign(std::string(name), std::move(value));
  return Status();
}

Status DBImpl::FinishLoading(const TableInfo& table,
                             const std::map<std::string, std::string, std::less<>>& checkpoints) {
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(table.name);
  if (it == tables_.end() || it->second->id != table.id) {
    return InternalError("The table being loaded is gone");
  }
  TableInfo info = *it->second;
  info.loading.clear();
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(PersistTable(info, &batch));
  for (const auto& [name, value] : checkpoints) {
    DR_RETURN_IF_ERROR(FromRocksDB(batch.Put(catalog_cf_, CheckpointKey(name), value)));
  }
  DR_RETURN_IF_ERROR(Commit(&batch));
  it->second = std::make_shared<TableInfo>(std::move(info));
  CatalogChanged();
  return Status();
}

void DBImpl::DropLoadingTable(const TableInfo& table) {
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(table.name);
  if (it == tables_.end() || it->second->id != table.id) return;
  rocksdb::WriteBatch batch;
  StageDropTable(*it->second, &batch);
  if (Commit(&batch).ok()) {
    tables_.erase(it);
    CatalogChanged();
  }
}

StatusOr<TableDescription> DBImpl::LoadTable(const CreateTableRequest& req,
                                             const std::function<Status(TableLoader&)>& fill) {
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, CreateLoadingTable(req, TableInfo(), "load"));
  Loader loader(this, table.get(), /*unique_keys=*/false);
  Status s = fill(loader);
  if (s.ok()) s = loader.Finish();
  if (s.ok()) s = FinishLoading(*table, loader.checkpoints());
  if (!s.ok()) {
    // A table file being ingested must be in before the table's range is
    // dropped, or it would land after the drop and stay, orphaned: the
    // stager finishes what it was handed, and its writer with it.
    (void)loader.WaitForIngest();
    loader.Stop();
    DropLoadingTable(*table);
    return s;
  }
  DR_ASSIGN_OR_RETURN(TableInfoPtr done, FindTable(table->name));
  return Describe(*done, "ACTIVE");
}

}  // namespace dynarock
