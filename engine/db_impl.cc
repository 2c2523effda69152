#include "engine/db_impl.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/storage_env.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {
namespace {

constexpr char kTablePrefix[] = "t/";
constexpr char kNextIdKey[] = "m/next_id";

}  // namespace

std::string NewUuid() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  uint64_t a = rng(), b = rng();
  char buf[40];
  snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
           static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
           static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
           static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}


double NowEpochSeconds() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() / 1000.0;
}

Status DBImpl::LoadCatalog() {
  tables_.clear();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), catalog_cf_));
  for (it->Seek(kTablePrefix); it->Valid() && it->key().starts_with(kTablePrefix); it->Next()) {
    Item item;
    TableInfo info;
    if (!DecodeItem(std::string_view(it->value().data(), it->value().size()), &item) ||
        !TableInfoFromItem(item, &info)) {
      return InternalError("Corrupt catalog entry " + it->key().ToString());
    }
    std::string name = info.name;
    tables_[name] = std::make_shared<TableInfo>(std::move(info));
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  CatalogChanged();
  std::string next;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), catalog_cf_, kNextIdKey, &next);
  if (s.ok() && next.size() == 4) {
    uint32_t id = 0;
    memcpy(&id, next.data(), 4);
    next_id_ = std::max(next_id_, id);
  }
  return Status();
}

StatusOr<TableInfoPtr> DBImpl::FindTable(std::string_view name_or_arn) const {
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindAnyTable(name_or_arn));
  // A table still being restored or loaded, or still CREATING, has no items
  // to read or write yet.
  if (!table->loading.empty() ||
      (table->settling == "CREATING" && change_log_->Now() < table->settles_at)) {
    return ResourceNotFound("Requested resource not found");
  }
  return table;
}

StatusOr<TableInfoPtr> DBImpl::FindAnyTable(std::string_view name_or_arn) const {
  const std::string_view name = TableNameOf(name_or_arn);
  // An ARN names a table of this database only if it has its region and account.
  const size_t name_at = static_cast<size_t>(name.data() - name_or_arn.data());
  if (name_at != 0 && name_or_arn.substr(0, name_at) != "arn:aws:dynamodb:" + options_.region +
                                                            ":" + options_.account_id + ":table/") {
    return ResourceNotFound("Requested resource not found");
  }
  std::shared_lock lock(catalog_mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    return ResourceNotFound("Requested resource not found");
  }
  return it->second;
}

Status DBImpl::AdmitNewTable(TableInfo* info, rocksdb::WriteBatch* batch, Status exists) {
  if (tables_.count(info->name)) return exists;
  if (tables_.size() >= static_cast<size_t>(kTablesPerAccountMax)) {
    return Status(ErrorType::kLimitExceeded,
                  "Subscriber limit exceeded: Only " + std::to_string(kTablesPerAccountMax) +
                      " tables can be created");
  }
  info->id = AllocateId(batch);
  for (auto& ix : info->indexes) ix.id = AllocateId(batch);
  return Status();
}

std::unique_ptr<rocksdb::Iterator> NewKeyOrderIterator(rocksdb::DB* db,
                                                       const rocksdb::ReadOptions& options,
                                                       rocksdb::ColumnFamilyHandle* cf) {
  rocksdb::ReadOptions ro = options;
  ro.total_order_seek = true;
  ro.prefix_same_as_start = false;
  return std::unique_ptr<rocksdb::Iterator>(db->NewIterator(ro, cf));
}

DBImpl::TableScan::TableScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, uint32_t table_id,
                             const rocksdb::Snapshot* snapshot)
    : lower_(EncodeTablePrefix(table_id)),
      upper_(EncodeTablePrefix(table_id + 1)),
      upper_slice_(upper_) {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.fill_cache = false;
  ro.iterate_upper_bound = &upper_slice_;
  it_ = NewKeyOrderIterator(db, ro, cf);
  it_->Seek(lower_);
}

DBImpl::TableScan::~TableScan() = default;

uint32_t DBImpl::AllocateId(rocksdb::WriteBatch* batch) {
  uint32_t id = next_id_++;
  std::string v(4, '\0');
  memcpy(&v[0], &next_id_, 4);
  batch->Put(catalog_cf_, kNextIdKey, v).PermitUncheckedError();
  return id;
}

Status DBImpl::PersistTable(const TableInfo& info, rocksdb::WriteBatch* batch) {
  std::string value;
  EncodeItemTo(TableInfoToItem(info), &value);
  return FromRocksDB(batch->Put(catalog_cf_, kTablePrefix + info.name, value));
}

Status DBImpl::Commit(rocksdb::WriteBatch* batch) {
  if (options_.read_only) {
    return InternalError("The database was opened read-only; writes are refused");
  }
  if (write_failing_.load(std::memory_order_relaxed)) TryResume();
  rocksdb::WriteOptions wo;
  wo.sync = sync_;
  // A write acknowledged as surviving power loss needs the new directory
  // itself durable first.
  if (wo.sync && creation_pending_.load(std::memory_order_acquire)) {
    DR_RETURN_IF_ERROR(WaitForCreation());
  }
  // In memory, a write-ahead log could recover nothing: a process that ends
  // takes the data with it. Without it each write copies its bytes once less.
  wo.disableWAL = options_.in_memory;
  rocksdb::Status s = db_->Write(wo, batch);
  // Group commit: the record waits in RocksDB's log buffer for the thread's
  // GroupCommit, or goes to the operating system now, before the write is
  // acknowledged. (A flush that fails leaves the write applied but not
  // logged: it is reported failed, as DynamoDB's InternalServerError leaves
  // a write's outcome unknown, and writes stop until the storage works.)
  if (s.ok() && log_flush_ && !internal::LogFlush::HoldOnThisThread(log_flush_)) {
    s = db_->FlushWAL(/*sync=*/false);
  }
  if (!s.ok() && !s.IsBusy() && !s.IsTryAgain() && !s.IsTimedOut()) {
    NoteWriteError(s);
    // A write that began before the episode did not try to resume: this one
    // tries now (whatever the rate limit, until the log has said why writes
    // still fail), so that the log says at once whether writes can resume.
    TryResume(/*force=*/!resume_failure_logged_.load(std::memory_order_relaxed));
  }
  return FromRocksDB(s);
}

void DBImpl::NoteWriteError(const rocksdb::Status& s) { ReportStorageError("a write", s); }

void DBImpl::ReportStorageError(const char* where, const rocksdb::Status& s) {
  if (write_failing_.exchange(true)) return;
  std::fprintf(stderr,
               "dynarock: storage error in %s (%s): %s. Writes fail with InternalServerError "
               "until the storage works again (reads go on)\n",
               dir_.c_str(), where, s.ToString().c_str());
}

void DBImpl::ReportStorageRecovered(const char* how) {
  if (!write_failing_.exchange(false)) return;
  std::fprintf(stderr, "dynarock: storage works again, writes to %s resumed (%s)\n", dir_.c_str(),
               how);
}

void DBImpl::TryResume(bool force) {
  std::unique_lock<std::mutex> lock(resume_mu_, std::defer_lock);
  if (force) {
    lock.lock();  // a failed write waits for the attempt in progress, then tries
  } else if (!lock.try_lock()) {
    return;  // another write is trying
  }
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < next_resume_) return;
  next_resume_ = now + kResumeInterval;
  // RocksDB 7.8's Resume(): OK at once unless writes are stopped; Busy while
  // its own recovery runs (ENOSPC: the SstFileManager's); for a hard error
  // it flushes every column family (the log may have a torn tail) and clears
  // the error; for a fatal or unrecoverable one it returns that error.
  const rocksdb::Status s = db_->Resume();
  if (s.ok()) {
    resume_failure_logged_ = false;
    ReportStorageRecovered("DB::Resume");
    return;
  }
  if (resume_failure_logged_ || s.IsBusy()) return;
  resume_failure_logged_ = true;
  if (s.severity() >= rocksdb::Status::Severity::kFatalError) {
    std::fprintf(stderr,
                 "dynarock: RocksDB cannot resume writes to %s after this error (%s): writes "
                 "fail until the database is reopened (restart the process)\n",
                 dir_.c_str(), s.ToString().c_str());
  } else {
    std::fprintf(stderr, "dynarock: writes to %s still fail (%s); retrying every %lld ms\n",
                 dir_.c_str(), s.ToString().c_str(),
                 static_cast<long long>(kResumeInterval.count()));
  }
}

StatusOr<ChecksumReport> DBImpl::VerifyChecksums() {
  ChecksumReport report;
  // Compactions may delete files meanwhile: keep them (read-only: nothing is
  // deleted anyway).
  const bool hold = !options_.read_only && db_->DisableFileDeletions().ok();
  std::vector<rocksdb::LiveFileMetaData> files;
  db_->GetLiveFilesMetaData(&files);
  rocksdb::ReadOptions ro;
  ro.verify_checksums = true;
  ro.fill_cache = false;
  for (const rocksdb::LiveFileMetaData& f : files) {
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    for (auto* h : handles_)
      if (h->GetName() == f.column_family_name) cf = h;
    if (cf == nullptr) continue;
    const std::string path = f.directory + "/" + f.relative_filename;
    rocksdb::SstFileReader reader(rocksdb::Options(db_->GetDBOptions(), db_->GetOptions(cf)));
    rocksdb::Status s = reader.Open(path);
    if (s.ok()) s = reader.VerifyChecksum(ro);
    ++report.files;
    report.bytes += static_cast<int64_t>(f.size);
    if (!s.ok()) report.corrupt.push_back(path + ": " + s.ToString());
  }
  if (hold) db_->EnableFileDeletions(/*force=*/false).PermitUncheckedError();
  return report;
}

void DBImpl::WaitForWritesInProgress() {
  for (auto& stripe : locks_) {
    stripe.lock();
    stripe.unlock();
  }
}

Status DBImpl::StageStats(WriteSet* writes) { return MergeStats(catalog_cf_, &writes->stats, &writes->batch); }

Status DBImpl::Commit(WriteSet* writes) {
  DR_RETURN_IF_ERROR(StageStats(writes));
  DR_RETURN_IF_ERROR(
      change_log_->Commit(writes, [this](rocksdb::WriteBatch* batch) { return Commit(batch); }));
  // Still under the items' locks: an item's lagged entries queue in the
  // order of its writes.
  if (writes->lagged.Count() > 0) index_lag_->Enqueue(std::move(writes->lagged));
  if (!writes->previous.empty()) stale_reads_->Remember(&writes->previous, change_log_->Now());
  return Status();
}

void DBImpl::ReadStats(uint32_t table_id, int64_t* count, int64_t* bytes) const {
  std::string v;
  *count = *bytes = 0;
  if (db_->Get(rocksdb::ReadOptions(), catalog_cf_, StatsKey(table_id), &v).ok())
    DecodeStatsDelta(v, count, bytes);
}

TableDescription DBImpl::Describe(const TableInfo& info, std::string_view status) const {
  TableDescription d;
  d.table_name = info.name;
  d.table_status = std::string(status);
  d.attribute_definitions = info.attribute_definitions;
  d.key_schema = info.key_schema;
  d.creation_date_time = info.creation_time;
  d.provisioned_throughput.read_capacity_units = info.throughput.read_capacity_units;
  d.provisioned_throughput.write_capacity_units = info.throughput.write_capacity_units;
  if (info.billing_mode == "PAY_PER_REQUEST") {
    d.billing_mode = info.billing_mode;
    d.last_update_to_pay_per_request_date_time =
        info.pay_per_request_since.value_or(info.creation_time);
  } else {
    d.billing_mode = info.billing_mode;
  }
  d.on_demand_throughput = info.on_demand_throughput;
  ReadStats(info.id, &d.item_count, &d.table_size_bytes);
  d.table_arn = "arn:aws:dynamodb:" + options_.region + ":" + options_.account_id +
                ":table/" + info.name;
  d.table_id = info.uuid;
  for (const auto& ix : info.indexes) {
    IndexDescription id;
    id.index_name = ix.name;
    id.key_schema = ix.key_schema;
    id.projection = ix.projection;
    id.index_arn = d.table_arn + "/index/" + ix.name;
    ReadStats(ix.id, &id.item_count, &id.index_size_bytes);
    if (ix.global) {
      id.index_status = ix.status;
      if (ix.status == "CREATING") id.backfilling = true;
      ProvisionedThroughputDescription pt;
      if (ix.throughput) {
        pt.read_capacity_units = ix.throughput->read_capacity_units;
        pt.write_capacity_units = ix.throughput->write_capacity_units;
      }
      id.provisioned_throughput = pt;
      id.on_demand_throughput = ix.on_demand_throughput;
      id.warm_throughput = DescribeWarmThroughput(ix.warm_read, ix.warm_write, ix.throughput);
      d.global_secondary_indexes.push_back(std::move(id));
    } else {
      d.local_secondary_indexes.push_back(std::move(id));
    }
  }
  d.stream_specification = info.stream_specification;
  if (info.stream_label) {
    d.latest_stream_label = info.stream_label;
    d.latest_stream_arn = d.table_arn + "/stream/" + *info.stream_label;
  }
  d.table_class = info.table_class;
  d.table_class_last_update = info.table_class_updated;
  d.deletion_protection_enabled = info.deletion_protection;
  d.warm_throughput = DescribeWarmThroughput(
      info.warm_read, info.warm_write,
      info.billing_mode == "PROVISIONED" ? std::optional<ProvisionedThroughput>(info.throughput)
                                         : std::nullopt);
  if (info.restore_time) {
    TableDescription::RestoreSummary r;
    r.source_backup_arn = info.restore_backup_arn;
    r.source_table_arn = info.restore_source_arn;
    r.restore_date_time = *info.restore_time;
    r.restore_in_progress = !info.loading.empty();
    d.restore_summary = r;
  }
  d.sse_type = info.sse_type;
  d.kms_master_key_arn = info.kms_key_arn;
  if (!info.global.replicas.empty()) {
    d.replicas = info.global.replicas;
    d.global_table_witnesses = info.global.witnesses;
    d.global_table_version = "2019.11.21";
    d.multi_region_consistency = info.global.strong ? "STRONG" : "EVENTUAL";
  }
  if (!info.loading.empty()) d.table_status = "CREATING";
  if (!info.settling.empty() && d.table_status == "ACTIVE" && change_log_->Now() < info.settles_at) {
    d.table_status = info.settling;
    if (info.settling == "CREATING") {
      for (auto& ix : d.global_secondary_indexes) ix.index_status = "CREATING";
    }
  }
  return d;
}

// ---------------------------------------------------------------- table operations

StatusOr<CreateTableResponse> DBImpl::CreateTable(const CreateTableRequest& req) {
  const double now = change_log_->Now();  // the database's clock, which tests may move
  DR_ASSIGN_OR_RETURN(TableInfo info, ValidateCreateTable(req, now));
  DR_RETURN_IF_ERROR(ApplyCreateTableSettings(
      req, "arn:aws:kms:" + options_.region + ":" + options_.account_id + ":", &info));
  if (req.resource_policy) {
    DR_RETURN_IF_ERROR(CheckResourcePolicy(*req.resource_policy));
    info.policy = *req.resource_policy;
    info.policy_revision = std::to_string(static_cast<int64_t>(std::llround(now * 1000)));
  }
  info.uuid = NewUuid();
  info.creation_time = now;
  if (info.billing_mode == "PAY_PER_REQUEST") info.pay_per_request_since = info.creation_time;

  if (options_.transient_status_seconds > 0) {
    info.settling = "CREATING";
    info.settles_at = change_log_->Now() + options_.transient_status_seconds;
  }
  std::unique_lock lock(catalog_mu_);
  if (Deleting(info.name)) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "deleted: " + info.name);
  }
  rocksdb::WriteBatch batch;
  DR_RETURN_IF_ERROR(
      AdmitNewTable(&info, &batch, ResourceInUse("Table already exists: " + info.name)));
  if (info.stream_specification && info.stream_specification->stream_enabled) {
    change_log_->CreateStream(&info, AllocateId(&batch), &batch);
  }
  Status committed = PersistTable(info, &batch);
  if (committed.ok()) committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  auto ptr = std::make_shared<TableInfo>(std::move(info));
  tables_[ptr->name] = ptr;
  CatalogChanged();
  CreateTableResponse resp;
  resp.table_description = Describe(*ptr, "CREATING");
  for (auto& ix : resp.table_description.global_secondary_indexes) ix.index_status = "CREATING";
  return resp;
}

StatusOr<DescribeTableResponse> DBImpl::DescribeTable(const DescribeTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto table = FindAnyTable(req.table_name);
  if (!table.ok()) {
    std::shared_lock lock(catalog_mu_);
    if (const TableDescription* gone = Deleting(TableNameOf(req.table_name))) {
      DescribeTableResponse resp;
      resp.table = *gone;
      return resp;
    }
    return TableNotFound(req.table_name);
  }
  DescribeTableResponse resp;
  resp.table = Describe(**table, "ACTIVE");
  return resp;
}

DB::MemoryUse DBImpl::MemoryInUse() const {
  MemoryUse use;
  if (block_cache_) {
    use.block_cache_bytes = block_cache_->GetUsage();
    use.block_cache_capacity = block_cache_->GetCapacity();
  }
  for (auto* cf : {catalog_cf_, items_cf_, indexes_cf_, streams_cf_}) {
    uint64_t bytes = 0;
    if (cf != nullptr && db_->GetIntProperty(cf, "rocksdb.cur-size-all-mem-tables", &bytes)) {
      use.memtable_bytes += bytes;
    }
  }
  return use;
}

void DBImpl::CatalogChanged() {
  static std::atomic<uint64_t> process_versions{0};
  catalog_version_.store(process_versions.fetch_add(1) + 1, std::memory_order_release);
}

StatusOr<TableDescription> DBImpl::DescribeKeys(const std::string& table) {
  auto info = FindTable(table);
  if (!info.ok()) {
    return TableNotFound(table);
  }
  // Only what a planner reads: names, key schemas, attribute definitions.
  const TableInfo& t = **info;
  TableDescription d;
  d.table_name = t.name;
  d.table_status = "ACTIVE";
  d.key_schema = t.key_schema;
  d.attribute_definitions = t.attribute_definitions;
  for (const auto& ix : t.indexes) {
    IndexDescription id;
    id.index_name = ix.name;
    id.key_schema = ix.key_schema;
    (ix.global ? d.global_secondary_indexes : d.local_secondary_indexes).push_back(std::move(id));
  }
  return d;
}

StatusOr<DeleteTableResponse> DBImpl::DeleteTable(const DeleteTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(TableNameOf(req.table_name));
  if (it == tables_.end()) {
    return TableNotFound(req.table_name);
  }
  TableInfoPtr info = it->second;
  if (!info->loading.empty()) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "created: " + info->name);
  }
  if (info->deletion_protection) {
    return ValidationError("Resource cannot be deleted as it is currently protected against "
                           "deletion. Disable deletion protection first.");
  }
  DeleteTableResponse resp;
  resp.table_description = Describe(*info, "DELETING");

  // One atomic batch: the catalog entry, the statistics and every key of the table
  // and its indexes (range deletions, not item by item).
  rocksdb::WriteBatch batch;
  StageDropTable(*info, &batch);
  Status committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  tables_.erase(it);
  CatalogChanged();
  if (options_.transient_status_seconds > 0) {
    deleting_[resp.table_description.table_name] = {
        resp.table_description, change_log_->Now() + options_.transient_status_seconds};
  }
  return resp;
}

void DBImpl::StageDropTable(const TableInfo& info, rocksdb::WriteBatch* batch,
                            bool keep_catalog_entry) {
  if (!keep_catalog_entry) batch->Delete(catalog_cf_, kTablePrefix + info.name).PermitUncheckedError();
  batch->Delete(catalog_cf_, StatsKey(info.id)).PermitUncheckedError();
  auto delete_prefix = [&](rocksdb::ColumnFamilyHandle* cf, uint32_t id) {
    batch->DeleteRange(cf, EncodeTablePrefix(id), EncodeTablePrefix(id + 1)).PermitUncheckedError();
  };
  delete_prefix(items_cf_, info.id);
  if (info.pitr_history_id) change_log_->DropHistory(info.pitr_history_id, batch);
  for (const auto& ix : info.indexes) {
    delete_prefix(indexes_cf_, ix.id);
    batch->Delete(catalog_cf_, StatsKey(ix.id)).PermitUncheckedError();
  }
  // The stream stays readable, disabled, until its records age out.
  if (info.stream_id && !keep_catalog_entry) change_log_->DisableStream(info.stream_id, batch);
  if (info.kinesis_log_id && !keep_catalog_entry) change_log_->DisableStream(info.kinesis_log_id, batch);
}

const TableDescription* DBImpl::Deleting(std::string_view name) const {
  auto it = deleting_.find(name);
  if (it == deleting_.end() || change_log_->Now() >= it->second.until) return nullptr;
  return &it->second.description;
}

StatusOr<ListTablesResponse> DBImpl::ListTables(const ListTablesRequest& req) {
  int64_t limit = req.limit.value_or(100);
  if (limit < 1 || limit > 100) {
    return ValidationError("1 validation error detected: Value '" + std::to_string(limit) +
                           "' at 'limit' failed to satisfy constraint: Member must have value " +
                           (limit < 1 ? "greater than or equal to 1" : "less than or equal to 100"));
  }
  if (req.exclusive_start_table_name) {
    DR_RETURN_IF_ERROR(ValidateTableName(*req.exclusive_start_table_name, "exclusiveStartTableName"));
  }
  ListTablesResponse resp;
  std::shared_lock lock(catalog_mu_);
  // Tables still DELETING are listed too, as DynamoDB lists them.
  std::set<std::string, std::less<>> names;
  for (const auto& [name, table] : tables_) names.insert(name);
  for (const auto& [name, gone] : deleting_)
    if (Deleting(name)) names.insert(name);
  auto it = req.exclusive_start_table_name ? names.upper_bound(*req.exclusive_start_table_name)
                                           : names.begin();
  for (; it != names.end() && static_cast<int64_t>(resp.table_names.size()) < limit; ++it) {
    resp.table_names.push_back(*it);
  }
  if (it != names.end() && !resp.table_names.empty()) {
    resp.last_evaluated_table_name = resp.table_names.back();
  }
  return resp;
}

Status DBImpl::SetGlobalTable(std::string_view table, const GlobalTableMembers& members) {
  return AlterTable(table, TableNotFound(table), [&](TableInfo* t) {
    t->global = members;
    if (members.replicas.empty()) t->global = GlobalTableMembers();
    return Status();
  });
}

StatusOr<UpdateTableResponse> DBImpl::UpdateTable(const UpdateTableRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckUpdateTableRequest(req));
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(TableNameOf(req.table_name));
  if (it == tables_.end()) {
    return TableNotFound(req.table_name);
  }
  if (req.global()) {
    // A replica is a table in another region: `dynarock serve` holds each
    // region's tables and makes them (tools/server/global_tables.h).
    return ValidationError("Replicas are tables in other regions, and this database holds one region: "
                           "create them through dynarock serve, which holds a namespace per region");
  }
  if (!it->second->loading.empty()) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "created: " + it->second->name);
  }
  if (req.stream_specification && !it->second->global.replicas.empty()) {
    // Replication reads the stream (NEW_AND_OLD_IMAGES), as DynamoDB's does.
    return ValidationError("Table " + it->second->name + " is a replica of a global table: its stream "
                           "(NEW_AND_OLD_IMAGES) carries the replication and cannot change while it has replicas");
  }
  TableInfo info = *it->second;
  DR_RETURN_IF_ERROR(ValidateUpdateTable(req, &info, change_log_->Now()));
  if (req.sse_specification) {
    DR_RETURN_IF_ERROR(ApplySseSpecification(
        *req.sse_specification, "sSESpecification",
        "arn:aws:kms:" + options_.region + ":" + options_.account_id + ":", &info));
  }
  rocksdb::WriteBatch batch;
  std::optional<uint32_t> created;
  for (auto& ix : info.indexes) {
    if (ix.id == 0) {
      ix.id = AllocateId(&batch);
      created = ix.id;
    }
  }
  // A deleted index's entries go with one range deletion. The response still
  // lists it, DELETING, as DynamoDB's does; later descriptions no longer do.
  std::vector<IndexInfo> deleted;
  for (const auto& old_index : it->second->indexes) {
    bool kept = false;
    for (const auto& ix : info.indexes) kept |= ix.id == old_index.id;
    if (kept) continue;
    deleted.push_back(old_index);
    deleted.back().status = "DELETING";
    batch.DeleteRange(indexes_cf_, EncodeTablePrefix(old_index.id),
                      EncodeTablePrefix(old_index.id + 1)).PermitUncheckedError();
    batch.Delete(catalog_cf_, StatsKey(old_index.id)).PermitUncheckedError();
  }
  const bool stream_enabled =
      req.stream_specification && req.stream_specification->stream_enabled;
  if (req.stream_specification) {
    // Disabling closes the stream; enabling makes a new one.
    if (it->second->stream_id) change_log_->DisableStream(it->second->stream_id, &batch);
    if (stream_enabled) change_log_->CreateStream(&info, AllocateId(&batch), &batch);
  }
  if (options_.transient_status_seconds > 0) {
    info.settling = "UPDATING";
    info.settles_at = change_log_->Now() + options_.transient_status_seconds;
  }
  Status committed = PersistTable(info, &batch);
  if (committed.ok()) committed = Commit(&batch);
  change_log_->Publish(committed.ok());
  DR_RETURN_IF_ERROR(committed);
  auto ptr = std::make_shared<TableInfo>(std::move(info));
  it->second = ptr;
  CatalogChanged();
  UpdateTableResponse resp;
  TableInfo shown = *ptr;
  for (auto& ix : deleted) shown.indexes.push_back(std::move(ix));
  resp.table_description = Describe(shown, "UPDATING");
  lock.unlock();
  // A write that read the catalog before the stream was enabled has no
  // record: wait until every such write has committed, so that each write
  // committing after UpdateTable returns is in the new stream.
  if (stream_enabled) WaitForWritesInProgress();
  if (created) StartBackfill(ptr->name, *created);
  return resp;
}

}  // namespace dynarock
