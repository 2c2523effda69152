// Online index creation (UpdateTable Create), and DB::CheckConsistency.
//
// Backfill correctness: the new index is published in the catalog (status
// CREATING) before the backfill starts. Every write stages its index deltas
// under its item's lock stripe from the catalog's *current* TableInfo
// (DBImpl::CurrentTable, in StageItemWrite, ModifyItem and BatchWriteItem), so a write that takes its stripe after publication
// maintains the new index itself. The backfill first takes and releases every
// stripe once, so that writes which read the catalog before publication have
// committed; then it visits each item under its stripe, re-reads it, and adds
// the entry unless the write path already did. No write can slip between.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstring>

#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "dynarock/item_size.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "index/maintainer.h"

namespace dynarock {

void DBImpl::StartBackfill(const std::string& table_name, uint32_t index_id) {
  std::lock_guard<std::mutex> lock(backfill_mu_);
  backfills_.emplace_back([this, table_name, index_id] { Backfill(table_name, index_id); });
}

void DBImpl::Backfill(const std::string& table_name, uint32_t index_id) {
  WaitForWritesInProgress();
  auto table = FindTable(table_name);
  if (!table.ok()) return;
  const uint32_t table_id = (*table)->id;
  const std::string lower = EncodeTablePrefix(table_id), upper = EncodeTablePrefix(table_id + 1);

  std::string next = lower;
  constexpr int kChunk = 256;
  while (!shutting_down_) {
    // Collect the next chunk of keys without holding any lock.
    std::vector<std::string> keys;
    {
      rocksdb::ReadOptions ro;
      rocksdb::Slice upper_slice(upper);
      ro.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it = NewKeyOrderIterator(db_, ro, items_cf_);
      for (it->Seek(next); it->Valid() && static_cast<int>(keys.size()) < kChunk; it->Next()) {
        keys.push_back(it->key().ToString());
      }
    }
    if (keys.empty()) break;
    next = keys.back() + '\0';
    for (const auto& key : keys) {
      std::lock_guard<std::mutex> stripe(Stripe(StripeOf(key)));
      TableInfoPtr current;
      {
        std::shared_lock catalog(catalog_mu_);
        auto it = tables_.find(table_name);
        if (it != tables_.end() && it->second->id == table_id) current = it->second;
      }
      const IndexInfo* index = nullptr;
      if (current) {
        for (const auto& ix : current->indexes)
          if (ix.id == index_id) index = &ix;
      }
      if (!index) return;  // the table or the index was dropped meanwhile
      auto item = ReadItem(key);
      if (!item.ok() || !*item) continue;
      auto entry_key = IndexEntryKey(*current, *index, **item);
      if (!entry_key) continue;  // sparse, or an index key of another type
      std::string existing;
      if (db_->Get(rocksdb::ReadOptions(), indexes_cf_, *entry_key, &existing).ok()) continue;
      Item entry = ProjectIndexEntry(*current, *index, **item);
      std::string value;
      EncodeItemTo(entry, &value);
      rocksdb::WriteBatch batch;
      batch.Put(indexes_cf_, *entry_key, value).PermitUncheckedError();
      batch.Merge(catalog_cf_, StatsKey(index_id),
                  StatsDelta(1, static_cast<int64_t>(ItemSize(entry))))
          .PermitUncheckedError();
      if (!Commit(&batch).ok()) return;  // left CREATING; the next open starts over
    }
  }
  if (shutting_down_) return;

  std::unique_lock catalog(catalog_mu_);
  auto it = tables_.find(table_name);
  if (it == tables_.end() || it->second->id != table_id) return;
  TableInfo info = *it->second;
  bool found = false;
  for (auto& ix : info.indexes) {
    if (ix.id == index_id) {
      ix.status = "ACTIVE";
      found = true;
    }
  }
  if (!found) return;
  rocksdb::WriteBatch batch;
  if (!PersistTable(info, &batch).ok() || !Commit(&batch).ok()) return;
  it->second = std::make_shared<TableInfo>(std::move(info));
  CatalogChanged();
}

StatusOr<ConsistencyReport> DBImpl::CheckConsistency() {
  ConsistencyReport report;
  std::vector<TableInfoPtr> tables;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, t] : tables_) tables.push_back(t);
  }
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* s;
    ~Release() { db->ReleaseSnapshot(s); }
  } release{db_, snapshot};
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;

  auto read_stats = [&](uint32_t id, int64_t* count, int64_t* bytes) {
    std::string v;
    *count = *bytes = 0;
    if (db_->Get(ro, catalog_cf_, StatsKey(id), &v).ok()) DecodeStatsDelta(v, count, bytes);
  };

  for (const auto& table : tables) {
    report.tables++;
    const std::string where = "table " + table->name;
    std::vector<const IndexInfo*> indexes;
    for (const auto& ix : table->indexes)
      if (ix.status == "ACTIVE") indexes.push_back(&ix);
    std::vector<int64_t> index_count(indexes.size(), 0), index_bytes(indexes.size(), 0);

    // Table side: every item's expected entries exist with the expected values.
    int64_t count = 0, bytes = 0;
    {
      std::string upper = EncodeTablePrefix(table->id + 1);
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions iro = ro;
      iro.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it = NewKeyOrderIterator(db_, iro, items_cf_);
      for (it->Seek(EncodeTablePrefix(table->id)); it->Valid(); it->Next()) {
        Item item;
        if (!DecodeItem(std::string_view(it->value().data(), it->value().size()), &item)) {
          report.differences.push_back(where + ": undecodable item record");
          continue;
        }
        count++;
        bytes += static_cast<int64_t>(ItemSize(item));
        for (size_t i = 0; i < indexes.size(); ++i) {
          auto entry_key = IndexEntryKey(*table, *indexes[i], item);
          if (!entry_key) continue;
          Item expected = ProjectIndexEntry(*table, *indexes[i], item);
          index_count[i]++;
          index_bytes[i] += static_cast<int64_t>(ItemSize(expected));
          std::string value;
          Item stored;
          if (!db_->Get(ro, indexes_cf_, *entry_key, &value).ok()) {
            report.differences.push_back(where + " index " + indexes[i]->name +
                                         ": missing entry for item " +
                                         DebugString(KeyAttributes(table->key, item)));
          } else if (!DecodeItem(value, &stored) || !(stored == expected)) {
            report.differences.push_back(where + " index " + indexes[i]->name +
                                         ": stale entry for item " +
                                         DebugString(KeyAttributes(table->key, item)));
          }
        }
      }
      DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
    }
    report.items += count;
    int64_t stored_count, stored_bytes;
    read_stats(table->id, &stored_count, &stored_bytes);
    if (stored_count != count || stored_bytes != bytes) {
      report.differences.push_back(where + ": statistics say " + std::to_string(stored_count) +
                                   " items, " + std::to_string(stored_bytes) + " bytes; data has " +
                                   std::to_string(count) + " items, " + std::to_string(bytes) +
                                   " bytes");
    }

    // Index side: every entry belongs to an item that implies exactly it.
    for (size_t i = 0; i < indexes.size(); ++i) {
      const IndexInfo& index = *indexes[i];
      std::string upper = EncodeTablePrefix(index.id + 1);
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions iro = ro;
      iro.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it = NewKeyOrderIterator(db_, iro, indexes_cf_);
      int64_t entries = 0;
      for (it->Seek(EncodeTablePrefix(index.id)); it->Valid(); it->Next()) {
        entries++;
        Item entry;
        bool orphan = true;
        if (DecodeItem(std::string_view(it->value().data(), it->value().size()), &entry)) {
          auto hash = entry.find(table->key.hash_name());
          const AttributeValue* range = nullptr;
          if (table->key.has_range()) {
            auto r = entry.find(table->key.range_name());
            if (r != entry.end()) range = &r->second;
          }
          if (hash != entry.end() && (range || !table->key.has_range())) {
            std::string item_value;
            Item item;
            if (db_->Get(ro, items_cf_, EncodeItemKey(table->id, hash->second, range), &item_value).ok() &&
                DecodeItem(item_value, &item)) {
              auto expected_key = IndexEntryKey(*table, index, item);
              orphan = !expected_key || *expected_key != it->key().ToString();
            }
          }
        }
        if (orphan) {
          report.differences.push_back(where + " index " + index.name + ": extra entry " +
                                       DebugString(entry));
        }
      }
      DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
      report.index_entries += entries;
      int64_t ic, ib;
      read_stats(index.id, &ic, &ib);
      if (ic != index_count[i] || ib != index_bytes[i]) {
        report.differences.push_back(where + " index " + index.name + ": statistics say " +
                                     std::to_string(ic) + " entries, " + std::to_string(ib) +
                                     " bytes; data implies " + std::to_string(index_count[i]) +
                                     " entries, " + std::to_string(index_bytes[i]) + " bytes");
      }
    }
  }
  return report;
}

}  // namespace dynarock
