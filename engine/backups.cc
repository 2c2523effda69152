// File: engine/backups.cc
//
// On-demand backups, restores (from a backup or to a point in time), and
// loads of new tables (DB::LoadTable, which imports use).
//
// A backup is one RocksDB table file (SstFileWriter) holding the table's
// items as stored, their keys without the table's prefix, written from one
// snapshot by a background thread; its record in the catalog
// ("b/<backup id>", an Item in the item codec) keeps the source table's
// settings (its catalog entry), status, item count and size. The file lives
// in <data>/backups/, apart from the table's own data: deleting the table or
// writing to it changes nothing in it. A backup being written when the
// process stops is dropped at the next open (its snapshot is gone).
//
// A restore makes the target table at once, CREATING and hidden from item
// operations (TableInfo::loading), and fills it on a background thread
// through the table loader (engine/table_load.h: index entries and
// statistics as for any write); once whole it turns ACTIVE. A restore cut short by a crash starts again at the next
// open; a load (LoadTable) cut short is deleted.

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "dynarock/item_size.h"
#include "engine/db_impl.h"
#include "engine/table_load.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/limits.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "engine/time_text.h"

namespace dynarock {

struct DBImpl::BackupRecord {
  std::string id;
  std::string arn;
  std::string name;
  std::string status;  // CREATING | AVAILABLE
  double created = 0;
  int64_t order = 0;  // creation order: microseconds, strictly increasing
  int64_t bytes = 0;  // DynamoDB size of the items
  int64_t items = 0;
  TableInfo table;  // the source's settings when backed up
};

namespace {

constexpr std::string_view kBackupPrefix = "b/";

AttributeValue Number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return AttributeValue::N(buf);
}
AttributeValue Number(int64_t v) { return AttributeValue::N(std::to_string(v)); }

double NumberOf(const Item& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() || !it->second.is(AttrType::kN) ? 0 : std::strtod(it->second.scalar().c_str(), nullptr);
}
std::string StringOf(const Item& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() || !it->second.is(AttrType::kS) ? std::string() : it->second.scalar();
}

std::string EncodeBackup(const DBImpl::BackupRecord& b);

// DynamoDB's backup ids: the creation time in ms, 14 digits, and 8 hex digits.
std::string NewBackupId(double now) { return TimestampedId(std::llround(now * 1000)); }

Status BackupNotFound(std::string_view arn) {
  return Status(ErrorType::kBackupNotFound, "Backup not found: " + std::string(arn));
}

Status CheckBackupName(const std::string& name) {
  auto bad = [&](const std::string& constraint) {
    return ValidationError("1 validation error detected: Value '" + name +
                           "' at 'backupName' failed to satisfy constraint: " + constraint);
  };
  if (name.size() < 3 || name.size() > 255) {
    return bad("Member must have length " +
               std::string(name.size() < 3 ? "greater than or equal to 3" : "less than or equal to 255"));
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) {
      return bad("Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
    }
  }
  return Status();
}

BackupDetails DetailsOf(const DBImpl::BackupRecord& b) {
  BackupDetails d;
  d.backup_arn = b.arn;
  d.backup_name = b.name;
  d.backup_size_bytes = b.bytes;
  d.backup_status = b.status;
  d.backup_type = "USER";
  d.backup_creation_date_time = b.created;
  return d;
}

// The CreateTable request that remakes a table with `info`'s settings.
CreateTableRequest RecreateRequest(const TableInfo& info) {
  CreateTableRequest req;
  req.table_name = info.name;
  req.attribute_definitions = info.attribute_definitions;
  req.key_schema = info.key_schema;
  req.billing_mode = info.billing_mode;
  if (info.billing_mode != "PAY_PER_REQUEST") req.provisioned_throughput = info.throughput;
  req.on_demand_throughput = info.on_demand_throughput;  // only PAY_PER_REQUEST tables have one
  for (const IndexInfo& ix : info.indexes) {
    if (ix.global) {
      GlobalSecondaryIndex g;
      g.index_name = ix.name;
      g.key_schema = ix.key_schema;
      g.projection = ix.projection;
      if (info.billing_mode != "PAY_PER_REQUEST") {
        g.provisioned_throughput = ix.throughput.value_or(info.throughput);
      }
      g.on_demand_throughput = ix.on_demand_throughput;
      req.global_secondary_indexes.push_back(std::move(g));
      req.has_global_secondary_indexes = true;
    } else {
      LocalSecondaryIndex l;
      l.index_name = ix.name;
      l.key_schema = ix.key_schema;
      l.projection = ix.projection;
      req.local_secondary_indexes.push_back(std::move(l));
      req.has_local_secondary_indexes = true;
    }
  }
  req.table_class = info.table_class;
  return req;
}

// The source's settings with a restore's overrides, for the target table.
StatusOr<CreateTableRequest> RestoreRequest(const TableInfo& source, const std::string& target,
                                            const RestoreOverrides& o) {
  CreateTableRequest req = RecreateRequest(source);
  req.table_name = target;
  if (o.billing_mode) req.billing_mode = *o.billing_mode;
  if (o.provisioned_throughput) req.provisioned_throughput = o.provisioned_throughput;
  if (req.billing_mode == "PAY_PER_REQUEST") {
    if (o.provisioned_throughput) {
      return ValidationError("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified "
                             "when BillingMode is PAY_PER_REQUEST");
    }
    req.provisioned_throughput.reset();
    for (auto& g : req.global_secondary_indexes) g.provisioned_throughput.reset();
  } else if (!req.provisioned_throughput) {
    return ValidationError("ProvisionedThroughputOverride is required when restoring a "
                           "PAY_PER_REQUEST table as PROVISIONED");
  } else {
    // A PROVISIONED table has no on-demand maximums: the source's are left
    // behind (an OnDemandThroughputOverride is then refused by CreateTable's
    // checks, as given for a PROVISIONED table).
    req.on_demand_throughput.reset();
    for (auto& g : req.global_secondary_indexes) {
      if (!g.provisioned_throughput) g.provisioned_throughput = req.provisioned_throughput;
      g.on_demand_throughput.reset();
    }
  }
  if (o.on_demand_throughput) {
    // Laid over the source's maximums member by member; -1 removes one (an
    // override is an update of the source's; CreateTable itself refuses -1).
    OnDemandThroughput merged = req.on_demand_throughput.value_or(OnDemandThroughput{});
    for (auto [given, out] : {std::pair{&o.on_demand_throughput->max_read_request_units,
                                        &merged.max_read_request_units},
                              std::pair{&o.on_demand_throughput->max_write_request_units,
                                        &merged.max_write_request_units}}) {
      if (!*given) continue;
      if (**given == -1) {
        out->reset();
      } else {
        *out = *given;
      }
    }
    if (merged.max_read_request_units || merged.max_write_request_units) {
      req.on_demand_throughput = merged;
    } else if (req.billing_mode == "PAY_PER_REQUEST") {
      req.on_demand_throughput.reset();
    } else {
      req.on_demand_throughput = *o.on_demand_throughput;  // refused: PROVISIONED
    }
  }
  if (o.has_global_secondary_indexes) {
    req.global_secondary_indexes = o.global_secondary_indexes;
    req.has_global_secondary_indexes = !o.global_secondary_indexes.empty();
  }
  if (o.has_local_secondary_indexes) {
    // LSIs are part of a table's key structure: a restore may drop some, never add one.
    for (const auto& l : o.local_secondary_indexes) {
      const IndexInfo* ix = source.FindIndex(l.index_name);
      if (ix == nullptr || ix->global) {
        return ValidationError("Local secondary index " + l.index_name +
                               " is not an index of the source table; a restore can only keep "
                               "or drop the source's local secondary indexes");
      }
    }
    req.local_secondary_indexes = o.local_secondary_indexes;
    req.has_local_secondary_indexes = !o.local_secondary_indexes.empty();
  }
  // Indexes may name attributes the source defined; only those of the kept
  // keys stay defined (CreateTable refuses unused definitions).
  std::set<std::string> used;
  for (const auto& k : req.key_schema) used.insert(k.attribute_name);
  for (const auto& g : req.global_secondary_indexes)
    for (const auto& k : g.key_schema) used.insert(k.attribute_name);
  for (const auto& l : req.local_secondary_indexes)
    for (const auto& k : l.key_schema) used.insert(k.attribute_name);
  std::vector<AttributeDefinition> defs;
  for (const auto& d : req.attribute_definitions)
    if (used.count(d.attribute_name)) defs.push_back(d);
  req.attribute_definitions = std::move(defs);
  return req;
}

Status ApplySse(const RestoreOverrides& o, const std::string& region, const std::string& account,
                TableInfo* fields) {
  if (!o.sse_enabled || !*o.sse_enabled) return Status();
  SseSpecification s;
  s.enabled = true;
  s.sse_type = o.sse_type;
  s.kms_master_key_id = o.kms_master_key_id;
  return ApplySseSpecification(s, "sSESpecificationOverride", "arn:aws:kms:" + region + ":" + account + ":",
                               fields);
}

}  // namespace

// ---------------------------------------------------------------- restores

Status DBImpl::RunRestore(const TableInfo& table) {
  Loader loader(this, &table, /*unique_keys=*/true);
  if (table.restore_backup_arn) {
    DR_ASSIGN_OR_RETURN(BackupRecord b, FindBackup(*table.restore_backup_arn));
    if (b.items > 0) {
      rocksdb::Options o;
      o.env = mem_env_ ? mem_env_.get() : rocksdb::Env::Default();
      rocksdb::SstFileReader reader(o);
      DR_RETURN_IF_ERROR(FromRocksDB(reader.Open(BackupFile(b.id))));
      rocksdb::ReadOptions ro;
      ro.fill_cache = false;
      ro.total_order_seek = true;
      std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(ro));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        DR_RETURN_IF_ERROR(loader.AddStored(std::string_view(it->value().data(), it->value().size())));
      }
      DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
    }
  } else if (table.restore_source_arn && table.restore_time) {
    DR_RETURN_IF_ERROR(ReadTableAt(*table.restore_source_arn, *table.restore_time,
                                   [&](std::string_view stored) { return loader.AddStored(stored); }));
  } else {
    return InternalError("A restore without a source");
  }
  DR_RETURN_IF_ERROR(loader.Finish());
  return FinishLoading(table);
}

void DBImpl::StartRestore(TableInfoPtr table) {
  std::lock_guard<std::mutex> lock(jobs_mu_);
  if (shutting_down_) return;  // resumed at the next open
  std::string backup_id;
  if (table->restore_backup_arn) {
    backup_id = table->restore_backup_arn->substr(table->restore_backup_arn->rfind('/') + 1);
    backups_in_use_.insert(backup_id);
  }
  jobs_.emplace_back([this, table, backup_id] {
    Status s = RunRestore(*table);
    if (!s.ok() && !shutting_down_) {
      std::fprintf(stderr, "dynarock: the restore of table %s failed: %s\n", table->name.c_str(),
                   s.ToString().c_str());
      DropLoadingTable(*table);
    }
    std::lock_guard<std::mutex> lock(jobs_mu_);
    if (auto it = backups_in_use_.find(backup_id); it != backups_in_use_.end()) {
      backups_in_use_.erase(it);
    }
    jobs_cv_.notify_all();
  });
}

void DBImpl::ResumeLoads() {
  std::vector<TableInfoPtr> loading;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, table] : tables_)
      if (!table->loading.empty()) loading.push_back(table);
  }
  for (const TableInfoPtr& table : loading) {
    if (table->loading != "restore") {
      DropLoadingTable(*table);
      continue;
    }
    // Start again from nothing: what the last run wrote goes first.
    rocksdb::WriteBatch batch;
    StageDropTable(*table, &batch, /*keep_catalog_entry=*/true);
    if (!Commit(&batch).ok()) continue;
    StartRestore(table);
  }
  // Table files of loads cut short before their ingestion, and of snapshots
  // (engine/snapshots.cc), which live as long as their process.
  rocksdb::Env* env = mem_env_ ? mem_env_.get() : rocksdb::Env::Default();
  std::vector<std::string> children;
  if (env->GetChildren(dir_ + "/snapshots", &children).ok()) {
    for (const std::string& f : children) {
      if (f.size() > 4 && f.substr(f.size() - 4) == ".sst") {
        env->DeleteFile(dir_ + "/snapshots/" + f).PermitUncheckedError();
      }
    }
  }
  children.clear();
  if (env->GetChildren(dir_, &children).ok()) {
    for (const std::string& f : children) {
      if (f.rfind("load-", 0) == 0 && f.size() > 4 && f.substr(f.size() - 4) == ".sst") {
        env->DeleteFile(dir_ + "/" + f).PermitUncheckedError();
      }
    }
  }
  // Backups whose writing was cut short lost their snapshot: they go.
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  std::vector<std::string> dropped;
  for (it->Seek(kBackupPrefix); it->Valid() && it->key().starts_with(kBackupPrefix); it->Next()) {
    Item m;
    if (DecodeItem(std::string_view(it->value().data(), it->value().size()), &m) &&
        StringOf(m, "status") == "CREATING") {
      dropped.push_back(StringOf(m, "id"));
    }
  }
  for (const std::string& id : dropped) {
    rocksdb::WriteBatch batch;
    batch.Delete(catalog_cf_, std::string(kBackupPrefix) + id).PermitUncheckedError();
    if (Commit(&batch).ok()) env->DeleteFile(BackupFile(id)).PermitUncheckedError();
  }
}

// ---------------------------------------------------------------- backup records

std::string DBImpl::BackupFile(std::string_view backup_id) const {
  return dir_ + "/backups/" + std::string(backup_id) + ".sst";
}

std::string DBImpl::BackupArn(std::string_view table, std::string_view backup_id) const {
  return "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id + ":table/" +
         std::string(table) + "/backup/" + std::string(backup_id);
}

namespace {

std::string EncodeBackup(const DBImpl::BackupRecord& b) {
  Item m;
  m["id"] = AttributeValue::S(b.id);
  m["arn"] = AttributeValue::S(b.arn);
  m["name"] = AttributeValue::S(b.name);
  m["status"] = AttributeValue::S(b.status);
  m["created"] = Number(b.created);
  m["order"] = Number(b.order);
  m["bytes"] = Number(b.bytes);
  m["items"] = Number(b.items);
  m["table"] = AttributeValue::M(TableInfoToItem(b.table));
  std::string v;
  EncodeItemTo(m, &v);
  return v;
}

bool DecodeBackup(std::string_view v, DBImpl::BackupRecord* b) {
  Item m;
  if (!DecodeItem(v, &m)) return false;
  b->id = StringOf(m, "id");
  b->arn = StringOf(m, "arn");
  b->name = StringOf(m, "name");
  b->status = StringOf(m, "status");
  b->created = NumberOf(m, "created");
  b->order = static_cast<int64_t>(NumberOf(m, "order"));
  b->bytes = static_cast<int64_t>(NumberOf(m, "bytes"));
  b->items = static_cast<int64_t>(NumberOf(m, "items"));
  auto t = m.find("table");
  return t != m.end() && t->second.is(AttrType::kM) && TableInfoFromItem(t->second.map(), &b->table);
}

}  // namespace

StatusOr<DBImpl::BackupRecord> DBImpl::FindBackup(std::string_view arn) const {
  const size_t slash = arn.rfind("/backup/");
  if (slash == std::string_view::npos) return BackupNotFound(arn);
  const std::string id(arn.substr(slash + 8));
  std::string v;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), catalog_cf_, std::string(kBackupPrefix) + id, &v);
  if (s.IsNotFound()) return BackupNotFound(arn);
  DR_RETURN_IF_ERROR(FromRocksDB(s));
  BackupRecord b;
  if (!DecodeBackup(v, &b)) return InternalError("Corrupt backup record " + id);
  if (b.arn != arn) return BackupNotFound(arn);
  return b;
}

Status DBImpl::PersistBackup(const BackupRecord& b) {
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(FromRocksDB(batch.Put(catalog_cf_, std::string(kBackupPrefix) + b.id, EncodeBackup(b))));
  return Commit(&batch);
}

void DBImpl::WriteBackup(std::string backup_id, TableInfoPtr table,
                         const rocksdb::Snapshot* snapshot) {
  rocksdb::Env* env = mem_env_ ? mem_env_.get() : rocksdb::Env::Default();
  const std::string file = BackupFile(backup_id);
  int64_t items = 0, bytes = 0;
  Status s = [&]() -> Status {
    DR_RETURN_IF_ERROR(FromRocksDB(env->CreateDirIfMissing(dir_ + "/backups")));
    rocksdb::Options o;
    o.env = env;
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), o);
    TableScan it(db_, items_cf_, table->id, snapshot);
    bool open = false;
    for (; it->Valid(); it->Next()) {
      if (shutting_down_.load(std::memory_order_relaxed)) return InternalError("closing");
      if (!open) {
        DR_RETURN_IF_ERROR(FromRocksDB(writer.Open(file)));
        open = true;
      }
      std::string_view value(it->value().data(), it->value().size());
      size_t size = 0;
      if (!EncodedItemSize(value, &size)) return InternalError("Corrupt item record");
      rocksdb::Slice key = it->key();
      key.remove_prefix(it.prefix_size());
      DR_RETURN_IF_ERROR(FromRocksDB(writer.Put(key, it->value())));
      ++items;
      bytes += static_cast<int64_t>(size);
    }
    DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
    if (open) DR_RETURN_IF_ERROR(FromRocksDB(writer.Finish()));
    if (!options_.in_memory) {
      // The file is durable before the record says AVAILABLE.
      std::unique_ptr<rocksdb::Directory> d;
      if (env->NewDirectory(dir_ + "/backups", &d).ok()) d->Fsync().PermitUncheckedError();
    }
    return Status();
  }();
  db_->ReleaseSnapshot(snapshot);
  auto record = FindBackup(BackupArn(table->name, backup_id));
  if (s.ok() && record.ok()) {
    record->status = "AVAILABLE";
    record->items = items;
    record->bytes = bytes;
    s = PersistBackup(*record);
  }
  if (!s.ok()) {
    if (!shutting_down_) {
      std::fprintf(stderr, "dynarock: backup %s of table %s failed: %s\n", backup_id.c_str(),
                   table->name.c_str(), s.ToString().c_str());
    }
    rocksdb::WriteBatch batch;
    batch.Delete(catalog_cf_, std::string(kBackupPrefix) + backup_id).PermitUncheckedError();
    (void)Commit(&batch);
    env->DeleteFile(file).PermitUncheckedError();
  }
  std::lock_guard<std::mutex> lock(jobs_mu_);
  if (auto it = backups_in_use_.find(backup_id); it != backups_in_use_.end()) backups_in_use_.erase(it);
  jobs_cv_.notify_all();
}

// ---------------------------------------------------------------- the operations

StatusOr<CreateBackupResponse> DBImpl::CreateBackup(const CreateBackupRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckBackupName(req.backup_name));
  if (options_.read_only) return InternalError("The database was opened read-only; writes are refused");
  auto found = FindAnyTable(req.table_name);
  if (!found.ok()) return Status(ErrorType::kTableNotFound, "Table not found: " + req.table_name);
  TableInfoPtr table = *found;
  if (!table->loading.empty()) {
    return Status(ErrorType::kContinuousBackupsUnavailable,
                  "Backups are being enabled for the table: " + table->name +
                      ". Please retry later");
  }
  BackupRecord b;
  b.created = NowEpochSeconds();
  {
    // Listed in the order taken, even within one millisecond.
    static std::atomic<int64_t> last{0};
    const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch()).count();
    int64_t prev = last.load();
    while (!last.compare_exchange_weak(prev, std::max(us, prev + 1))) {}
    b.order = std::max(us, prev + 1);
  }
  b.id = NewBackupId(b.created);
  b.arn = BackupArn(table->name, b.id);
  b.name = req.backup_name;
  b.status = "CREATING";
  b.table = *table;
  // The backup is the table at this moment: one snapshot, taken now.
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  ReadStats(table->id, &b.items, &b.bytes);
  Status persisted = PersistBackup(b);
  if (!persisted.ok()) {
    db_->ReleaseSnapshot(snapshot);
    return persisted;
  }
  {
    std::unique_lock<std::mutex> lock(jobs_mu_);
    if (shutting_down_) {
      db_->ReleaseSnapshot(snapshot);
      return InternalError("The database is closing");
    }
    backups_in_use_.insert(b.id);
    jobs_.emplace_back([this, id = b.id, table, snapshot] { WriteBackup(id, table, snapshot); });
    // Small tables are AVAILABLE by the time the response goes; larger ones
    // are CREATING until DescribeBackup says otherwise.
    jobs_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return !backups_in_use_.count(b.id); });
  }
  auto now = FindBackup(b.arn);
  if (now.ok()) b = std::move(now).value();
  CreateBackupResponse resp;
  resp.backup_details = DetailsOf(b);
  return resp;
}

StatusOr<DescribeBackupResponse> DBImpl::DescribeBackup(const DescribeBackupRequest& req) {
  if (req.backup_arn.size() < 37 || req.backup_arn.size() > 1024) {
    return ValidationError("1 validation error detected: Value '" + req.backup_arn +
                           "' at 'backupArn' failed to satisfy constraint: Member must have "
                           "length " + (req.backup_arn.size() < 37 ? "greater than or equal to 37"
                                                                   : "less than or equal to 1024"));
  }
  DR_ASSIGN_OR_RETURN(BackupRecord b, FindBackup(req.backup_arn));
  DescribeBackupResponse resp;
  BackupDescription& d = resp.backup_description;
  d.backup_details = DetailsOf(b);
  SourceTableDetails& src = d.source_table_details;
  src.table_name = b.table.name;
  src.table_id = b.table.uuid;
  src.table_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id + ":table/" +
                  b.table.name;
  src.table_size_bytes = b.bytes;
  src.item_count = b.items;
  src.key_schema = b.table.key_schema;
  src.attribute_definitions = b.table.attribute_definitions;
  src.table_creation_date_time = b.table.creation_time;
  src.provisioned_throughput = b.table.throughput;
  src.on_demand_throughput = b.table.on_demand_throughput;
  src.billing_mode = b.table.billing_mode;
  const CreateTableRequest shape = RecreateRequest(b.table);
  d.source_table_feature_details.global_secondary_indexes = shape.global_secondary_indexes;
  d.source_table_feature_details.local_secondary_indexes = shape.local_secondary_indexes;
  d.source_table_feature_details.stream_description = b.table.stream_specification;
  d.source_table_feature_details.time_to_live_attribute = b.table.ttl_attribute;
  return resp;
}

StatusOr<DeleteBackupResponse> DBImpl::DeleteBackup(const DeleteBackupRequest& req) {
  DescribeBackupRequest describe{req.backup_arn};
  DR_ASSIGN_OR_RETURN(DescribeBackupResponse d, DescribeBackup(describe));
  const std::string id = req.backup_arn.substr(req.backup_arn.rfind('/') + 1);
  {
    std::lock_guard<std::mutex> lock(jobs_mu_);
    if (backups_in_use_.count(id)) {
      return Status(ErrorType::kBackupInUse,
                    d.backup_description.backup_details.backup_status == "CREATING"
                        ? "Backup is being created: " + req.backup_arn
                        : "Backup is being restored: " + req.backup_arn);
    }
    rocksdb::WriteBatch batch;
    DR_RETURN_IF_ERROR(FromRocksDB(batch.Delete(catalog_cf_, std::string(kBackupPrefix) + id)));
    DR_RETURN_IF_ERROR(Commit(&batch));
  }
  rocksdb::Env* env = mem_env_ ? mem_env_.get() : rocksdb::Env::Default();
  env->DeleteFile(BackupFile(id)).PermitUncheckedError();
  DeleteBackupResponse resp;
  resp.backup_description = std::move(d.backup_description);
  resp.backup_description.backup_details.backup_status = "DELETED";
  return resp;
}

StatusOr<ListBackupsResponse> DBImpl::ListBackups(const ListBackupsRequest& req) {
  const int64_t limit = req.limit.value_or(100);
  if (limit < 1 || limit > 100) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(limit) +
                           "' at 'limit' failed to satisfy constraint: Member must have value " +
                           (limit < 1 ? "greater than or equal to 1" : "less than or equal to 100"));
  }
  const std::string& type = req.backup_type;
  if (type != "USER" && type != "SYSTEM" && type != "AWS_BACKUP" && type != "ALL") {
    return ValidationError("1 validation error detected: Value '" + type +
                           "' at 'backupType' failed to satisfy constraint: Member must satisfy "
                           "enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]");
  }
  if (req.table_name) DR_RETURN_IF_ERROR(ValidateTableName(*req.table_name, "tableName"));
  if (req.time_range_lower_bound && req.time_range_upper_bound &&
      *req.time_range_lower_bound > *req.time_range_upper_bound) {
    return ValidationError("TimeRangeUpperBound cannot be less than TimeRangeLowerBound");
  }
  std::vector<BackupRecord> all;
  if (type == "USER" || type == "ALL") {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
    for (it->Seek(kBackupPrefix); it->Valid() && it->key().starts_with(kBackupPrefix); it->Next()) {
      BackupRecord b;
      if (!DecodeBackup(std::string_view(it->value().data(), it->value().size()), &b)) continue;
      if (req.table_name && b.table.name != TableNameOf(*req.table_name)) continue;
      if (req.time_range_lower_bound && b.created < *req.time_range_lower_bound) continue;
      if (req.time_range_upper_bound && b.created >= *req.time_range_upper_bound) continue;
      all.push_back(std::move(b));
    }
    DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  }
  std::sort(all.begin(), all.end(), [](const BackupRecord& a, const BackupRecord& b) {
    return std::tie(a.order, a.id) < std::tie(b.order, b.id);
  });
  size_t start = 0;
  if (req.exclusive_start_backup_arn) {
    auto it = std::find_if(all.begin(), all.end(), [&](const BackupRecord& b) {
      return b.arn == *req.exclusive_start_backup_arn;
    });
    if (it == all.end()) return BackupNotFound(*req.exclusive_start_backup_arn);
    start = static_cast<size_t>(it - all.begin()) + 1;
  }
  ListBackupsResponse resp;
  for (size_t i = start; i < all.size() && static_cast<int64_t>(resp.backup_summaries.size()) < limit;
       ++i) {
    BackupSummary s;
    s.table_name = all[i].table.name;
    s.table_id = all[i].table.uuid;
    s.table_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id + ":table/" +
                  all[i].table.name;
    s.details = DetailsOf(all[i]);
    resp.backup_summaries.push_back(std::move(s));
    if (i + 1 < all.size() && static_cast<int64_t>(resp.backup_summaries.size()) == limit) {
      resp.last_evaluated_backup_arn = all[i].arn;
    }
  }
  return resp;
}

StatusOr<RestoreTableFromBackupResponse> DBImpl::RestoreTableFromBackup(
    const RestoreTableFromBackupRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.target_table_name, "targetTableName"));
  DescribeBackupRequest describe{req.backup_arn};
  DR_RETURN_IF_ERROR(DescribeBackup(describe).status());
  DR_ASSIGN_OR_RETURN(BackupRecord b, FindBackup(req.backup_arn));
  if (b.status != "AVAILABLE") {
    return Status(ErrorType::kBackupInUse, "Backup is being created: " + req.backup_arn);
  }
  if (FindAnyTable(req.target_table_name).ok()) {
    return Status(ErrorType::kTableAlreadyExists, "Table already exists: " + req.target_table_name);
  }
  DR_ASSIGN_OR_RETURN(CreateTableRequest create,
                      RestoreRequest(b.table, req.target_table_name, req.overrides));
  TableInfo fields;
  fields.restore_backup_arn = b.arn;
  fields.restore_source_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id +
                              ":table/" + b.table.name;
  fields.restore_time = b.created;
  DR_RETURN_IF_ERROR(ApplySse(req.overrides, options_.region, options_.account_id, &fields));
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, CreateLoadingTable(create, std::move(fields), "restore"));
  RestoreTableFromBackupResponse resp;
  resp.table_description = Describe(*table, "CREATING");
  StartRestore(table);
  return resp;
}

StatusOr<RestoreTableToPointInTimeResponse> DBImpl::RestoreTableToPointInTime(
    const RestoreTableToPointInTimeRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.target_table_name, "targetTableName"));
  if (!req.source_table_name && !req.source_table_arn) {
    return ValidationError("Either SourceTableArn or SourceTableName must be specified");
  }
  if (req.source_table_name && req.source_table_arn) {
    return ValidationError("Only one of SourceTableArn or SourceTableName can be specified");
  }
  if (req.use_latest_restorable_time && req.restore_date_time) {
    return ValidationError("Only one of RestoreDateTime or UseLatestRestorableTime can be specified");
  }
  if (!req.use_latest_restorable_time && !req.restore_date_time) {
    return ValidationError("Either RestoreDateTime or UseLatestRestorableTime must be specified");
  }
  const std::string& source_name = req.source_table_name ? *req.source_table_name : *req.source_table_arn;
  auto found = FindTable(source_name);
  if (!found.ok()) return Status(ErrorType::kTableNotFound, "Table not found: " + source_name);
  TableInfoPtr source = *found;
  if (FindAnyTable(req.target_table_name).ok()) {
    return Status(ErrorType::kTableAlreadyExists, "Table already exists: " + req.target_table_name);
  }
  const double time = req.restore_date_time ? *req.restore_date_time : change_log_->Now();
  DR_RETURN_IF_ERROR(CheckRestorableTime(*source, time, ErrorType::kInvalidRestoreTime));
  DR_ASSIGN_OR_RETURN(CreateTableRequest create,
                      RestoreRequest(*source, req.target_table_name, req.overrides));
  TableInfo fields;
  fields.restore_source_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id +
                              ":table/" + source->name;
  fields.restore_time = time;
  DR_RETURN_IF_ERROR(ApplySse(req.overrides, options_.region, options_.account_id, &fields));
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, CreateLoadingTable(create, std::move(fields), "restore"));
  RestoreTableToPointInTimeResponse resp;
  resp.table_description = Describe(*table, "CREATING");
  StartRestore(table);
  return resp;
}

}  // namespace dynarock
