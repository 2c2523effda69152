// File: engine/table_load.cc
//
// Filling a new table (restores, DB::LoadTable): engine/table_load.h.

#include "engine/table_load.h"

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

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
    : db_(db), table_(table), unique_keys_(unique_keys), ingest_(!db->options_.in_memory) {}

DBImpl::Loader::~Loader() { (void)WaitForIngest(); }

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
  return Stage(Pending{std::move(key), std::move(item)}, size);
}

Status DBImpl::Loader::AddStored(std::string_view stored) {
  Item item;
  if (!DecodeItem(stored, &item)) return InternalError("Corrupt item record");
  DR_ASSIGN_OR_RETURN(std::string key, db_->ItemKey(*table_, item, /*for_put=*/true));
  size_t size = 0;
  if (!EncodedItemSize(stored, &size)) size = ItemSize(item);
  return Stage(Pending{std::move(key), std::move(item)}, size);
}

Status DBImpl::Loader::Stage(Pending p, size_t size) {
  if (db_->shutting_down_.load(std::memory_order_relaxed)) {
    return InternalError("The database is closing");
  }
  // Only a key this load may have added already needs reading: nobody else
  // writes to a loading table. Such an item waits for the end of the load
  // (Finish), when everything added before it is readable: reading it back
  // now would first write out every table file in progress, once per
  // repeated key. Keys repeat in order, so the last version still wins.
  const bool maybe_seen = !unique_keys_ && !seen_.insert(std::hash<std::string>()(p.key)).second;
  items_ += 1;
  bytes_ += static_cast<int64_t>(size);
  if (maybe_seen) {
    later_bytes_ += size;
    later_.push_back(std::move(p));
    // Many repeats (a source listing most keys twice): write them now rather
    // than hold them all, once everything before them is readable.
    if (later_.size() >= kLaterItems || later_bytes_ >= kLaterBytes) {
      DR_RETURN_IF_ERROR(Flush(/*all=*/true));
      return WriteRepeated();
    }
    return Status();
  }
  pending_.push_back(std::move(p));
  pending_bytes_ += size;
  if (pending_.size() >= kBatchItems || pending_bytes_ >= kBatchBytes) return Flush(false);
  return Status();
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
    if (rs.ok()) {
      p.old_exists = true;
      p.old_item.emplace();
      const std::string_view bytes(stored.data(), stored.size());
      if (!EncodedItemSize(bytes, &p.old_size) || !DecodeItem(bytes, &*p.old_item)) {
        return InternalError("Corrupt item record");
      }
      items_ -= 1;
      bytes_ -= static_cast<int64_t>(p.old_size);
    }
    WriteSet writes;
    DR_RETURN_IF_ERROR(db_->StageWrite(*table_, p.key, p.old_exists, p.old_size, p.old_item,
                                       p.item, &writes, nullptr, ChangeOrigin::kUser));
    DR_RETURN_IF_ERROR(FromRocksDB(db_->db_->Write(wo, &writes.batch)));
  }
  later_.clear();
  later_bytes_ = 0;
  return Status();
}

Status DBImpl::Loader::Flush(bool all) {
  if (!pending_.empty()) {
    // In memory the batch goes to the memtable in key order; on disk its
    // entries are sorted with their table file's, so it is staged as it came.
    if (!ingest_) {
      std::sort(pending_.begin(), pending_.end(),
                [](const Pending& a, const Pending& b) { return a.key < b.key; });
    }
    WriteSet writes;
    for (Pending& p : pending_) {
      DR_RETURN_IF_ERROR(db_->StageWrite(*table_, p.key, p.old_exists, p.old_size, p.old_item,
                                         p.item, &writes, nullptr, ChangeOrigin::kUser));
    }
    pending_.clear();
    pending_bytes_ = 0;
    // No write-ahead log: a load cut short is deleted (a restore started
    // again) at the next open, and Finish makes a whole one durable. A
    // loading table has no stream or history records.
    rocksdb::WriteOptions wo;
    wo.disableWAL = true;
    // On disk the table's and its indexes' entries wait for a table file; the
    // rest (deletions of entries replaced, statistics) is written now. The
    // statistics merges, one per item and index entry, are summed into one
    // per table and index: thousands of operands of one key would otherwise
    // fill the memtable.
    struct Router : rocksdb::WriteBatch::Handler {
      Loader* self;
      rocksdb::WriteBatch rest;
      std::map<std::pair<uint32_t, std::string>, std::pair<int64_t, int64_t>> stats;
      rocksdb::ColumnFamilyHandle* Handle(uint32_t id) const {
        for (auto* h : self->db_->handles_)
          if (h->GetID() == id) return h;
        return nullptr;
      }
      rocksdb::Status PutCF(uint32_t id, const rocksdb::Slice& k, const rocksdb::Slice& v) override {
        std::vector<Entry>* file = !self->ingest_                              ? nullptr
                                   : id == self->db_->items_cf_->GetID()     ? &self->items_file_
                                   : id == self->db_->indexes_cf_->GetID() ? &self->index_file_
                                                                           : nullptr;
        if (file == nullptr) return rest.Put(Handle(id), k, v);
        file->emplace_back(k.ToString(), v.ToString());
        self->file_bytes_ += k.size() + v.size();
        return rocksdb::Status::OK();
      }
      rocksdb::Status DeleteCF(uint32_t id, const rocksdb::Slice& k) override {
        return rest.Delete(Handle(id), k);
      }
      rocksdb::Status MergeCF(uint32_t id, const rocksdb::Slice& k, const rocksdb::Slice& v) override {
        if (v.size() != 16) return rest.Merge(Handle(id), k, v);
        int64_t count = 0, bytes = 0;
        memcpy(&count, v.data(), 8);
        memcpy(&bytes, v.data() + 8, 8);
        auto& sum = stats[{id, k.ToString()}];
        sum.first += count;
        sum.second += bytes;
        return rocksdb::Status::OK();
      }
    } router;
    router.self = this;
    DR_RETURN_IF_ERROR(FromRocksDB(writes.batch.Iterate(&router)));
    for (const auto& [where, sum] : router.stats) {
      DR_RETURN_IF_ERROR(FromRocksDB(
          router.rest.Merge(router.Handle(where.first), where.second, StatsDelta(sum.first, sum.second))));
    }
    if (router.rest.Count() > 0) DR_RETURN_IF_ERROR(FromRocksDB(db_->db_->Write(wo, &router.rest)));
  }
  if (ingest_ && (all || file_bytes_ >= kFileBytes)) {
    // The table files are sorted, written and ingested on a thread of their
    // own while the next items are staged: one file pair at a time.
    DR_RETURN_IF_ERROR(WaitForIngest());
    const int first = files_;
    files_ += 2;
    ingesting_ = std::thread([this, first, items = std::move(items_file_),
                              index = std::move(index_file_)]() mutable {
      Status s = Ingest(db_->items_cf_, &items, first);
      if (s.ok()) s = Ingest(db_->indexes_cf_, &index, first + 1);
      ingest_status_ = std::move(s);
    });
    items_file_.clear();
    index_file_.clear();
    file_bytes_ = 0;
    if (all) DR_RETURN_IF_ERROR(WaitForIngest());
  }
  return Status();
}

Status DBImpl::Loader::WaitForIngest() {
  if (ingesting_.joinable()) ingesting_.join();
  return ingest_status_;  // an error stays: the load cannot be whole any more
}

Status DBImpl::Loader::Ingest(rocksdb::ColumnFamilyHandle* cf, std::vector<Entry>* entries,
                              int number) {
  if (entries->empty()) return Status();
  // Sorted by key; a key twice (an entry replaced within the file's span):
  // the later wins. Entries are ordered through an index, first by the eight
  // bytes after the prefix every key shares (the table's or index's id), then
  // by the whole key, then by their order of arrival.
  const std::vector<Entry>& e = *entries;
  size_t common = e[0].first.size();
  for (const Entry& x : e) {
    size_t i = 0;
    const size_t n = std::min(common, x.first.size());
    while (i < n && x.first[i] == e[0].first[i]) ++i;
    common = i;
  }
  struct Ref {
    uint64_t prefix;
    uint32_t at;
  };
  std::vector<Ref> order(e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    uint64_t p = 0;
    const std::string& k = e[i].first;
    for (size_t b = 0; b < 8; ++b) {
      p = (p << 8) | (common + b < k.size() ? static_cast<unsigned char>(k[common + b]) : 0);
    }
    order[i] = Ref{p, static_cast<uint32_t>(i)};
  }
  std::sort(order.begin(), order.end(), [&](const Ref& a, const Ref& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const int c = e[a.at].first.compare(e[b.at].first);
    return c != 0 ? c < 0 : a.at < b.at;
  });
  const std::string path = db_->dir_ + "/load-" + std::to_string(table_->id) + "-" +
                           std::to_string(number) + ".sst";
  rocksdb::Options o(db_->db_->GetDBOptions(), db_->db_->GetOptions(cf));
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), o, cf);
  DR_RETURN_IF_ERROR(FromRocksDB(writer.Open(path)));
  for (size_t i = 0; i < order.size(); ++i) {
    const Entry& x = e[order[i].at];
    if (i + 1 < order.size() && e[order[i + 1].at].first == x.first) continue;
    DR_RETURN_IF_ERROR(FromRocksDB(writer.Put(x.first, x.second)));
  }
  DR_RETURN_IF_ERROR(FromRocksDB(writer.Finish()));
  entries->clear();
  entries->shrink_to_fit();
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

Status DBImpl::FinishLoading(const TableInfo& table) {
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(table.name);
  if (it == tables_.end() || it->second->id != table.id) {
    return InternalError("The table being loaded is gone");
  }
  TableInfo info = *it->second;
  info.loading.clear();
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(PersistTable(info, &batch));
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
  if (s.ok()) s = FinishLoading(*table);
  if (!s.ok()) {
    // A table file being ingested must be in before the table's range is
    // dropped, or it would land after the drop and stay, orphaned.
    (void)loader.WaitForIngest();
    DropLoadingTable(*table);
    return s;
  }
  DR_ASSIGN_OR_RETURN(TableInfoPtr done, FindTable(table->name));
  return Describe(*done, "ACTIVE");
}

}  // namespace dynarock
