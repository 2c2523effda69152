// Table metadata kept in the catalog beside the table's definition: time to live
// (UpdateTimeToLive, DescribeTimeToLive, and the background expiry of items),
// point-in-time recovery settings (Describe/UpdateContinuousBackups) and tags
// (TagResource, UntagResource, ListTagsOfResource).
//
// Expiry: a thread wakes every Options::ttl_sweep_seconds, walks the items of
// each table with TTL enabled, and deletes those whose TTL attribute is a number
// of epoch seconds in the past, by at most five years (DynamoDB ignores older
// values, and any value that is not a number). Each deletion re-checks the item
// under its lock and goes through the normal write path, so indexes and
// statistics follow and a concurrent update that pushed the expiry forward wins.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cctype>
#include <cstdlib>

#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "engine/key_codec.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

constexpr double kTtlLookBackSeconds = 5.0 * 365 * 24 * 3600;

// Whether `item` has expired at `now` under TTL attribute `attribute`.
bool Expired(const Item& item, const std::string& attribute, double now) {
  auto it = item.find(attribute);
  if (it == item.end() || !it->second.is(AttrType::kN)) return false;
  char* end = nullptr;
  const std::string& text = it->second.scalar();
  double when = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(when)) return false;
  return when < now && when >= now - kTtlLookBackSeconds;
}

}  // namespace

// ---------------------------------------------------------------- the catalog entry

Status DBImpl::AlterTable(std::string_view name, Status not_found,
                          const std::function<Status(TableInfo*)>& change, TableInfoPtr* updated) {
  return AlterTable(
      name, std::move(not_found),
      [&](TableInfo* info, rocksdb::WriteBatch*) { return change(info); }, updated);
}

Status DBImpl::AlterTable(std::string_view name, Status not_found,
                          const std::function<Status(TableInfo*, rocksdb::WriteBatch*)>& change,
                          TableInfoPtr* updated) {
  std::unique_lock lock(catalog_mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) return not_found;
  if (!it->second->loading.empty()) {
    return ResourceInUse("Attempt to change a resource which is still in use: Table is being "
                         "created: " + it->second->name);
  }
  TableInfo info = *it->second;
  rocksdb::WriteBatch batch;
  Status s = change(&info, &batch);
  if (s.ok()) s = PersistTable(info, &batch);
  if (s.ok()) s = Commit(&batch);
  change_log_->Publish(s.ok());  // streams `change` created or disabled
  DR_RETURN_IF_ERROR(s);
  it->second = std::make_shared<TableInfo>(std::move(info));
  CatalogChanged();
  if (updated) *updated = it->second;
  return Status();
}

// ---------------------------------------------------------------- time to live

StatusOr<UpdateTimeToLiveResponse> DBImpl::UpdateTimeToLive(const UpdateTimeToLiveRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  const auto& spec = req.time_to_live_specification;
  // An empty name is refused in words of DynamoDB's own (captured from the service).
  if (spec.attribute_name.empty()) {
    return ValidationError("TimeToLiveSpecification.AttributeName must be non empty");
  }
  ConstraintErrors errors;
  if (spec.attribute_name.size() > 255) {
    errors.Add("Value '" + spec.attribute_name +
               "' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: "
               "Member must have length less than or equal to 255");
  }
  DR_RETURN_IF_ERROR(errors.ToStatus());
  DR_RETURN_IF_ERROR(AlterTable(
      TableNameOf(req.table_name),
      TableNotFound(req.table_name),
      [&](TableInfo* info) -> Status {
        if (spec.enabled && info->ttl_attribute &&
            *info->ttl_attribute != spec.attribute_name) {
          return ValidationError("TimeToLive is active on a different AttributeName: current "
                                 "AttributeName is " + *info->ttl_attribute);
        }
        if (spec.enabled && info->ttl_attribute) {
          return ValidationError("TimeToLive is already enabled");
        }
        if (!spec.enabled && !info->ttl_attribute) {
          return ValidationError("TimeToLive is already disabled");
        }
        if (!spec.enabled && *info->ttl_attribute != spec.attribute_name) {
          return ValidationError("TimeToLive is active on a different AttributeName: current "
                                 "AttributeName is " + *info->ttl_attribute);
        }
        if (spec.enabled) {
          info->ttl_attribute = spec.attribute_name;
        } else {
          info->ttl_attribute.reset();
        }
        return Status();
      }));
  if (spec.enabled) StartTtlSweeper();
  UpdateTimeToLiveResponse resp;
  resp.time_to_live_specification = spec;
  return resp;
}

StatusOr<DescribeTimeToLiveResponse> DBImpl::DescribeTimeToLive(
    const DescribeTimeToLiveRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto table = FindTable(req.table_name);
  if (!table.ok()) {
    return TableNotFound(req.table_name);
  }
  DescribeTimeToLiveResponse resp;
  if ((*table)->ttl_attribute) {
    resp.time_to_live_status = "ENABLED";
    resp.attribute_name = (*table)->ttl_attribute;
  }
  return resp;
}

void DBImpl::StartTtlSweeper() {
  if (options_.ttl_sweep_seconds <= 0) return;
  std::lock_guard<std::mutex> lock(ttl_mu_);
  if (ttl_thread_.joinable() || shutting_down_) return;
  ttl_thread_ = std::thread([this] { TtlLoop(); });
}

void DBImpl::TtlLoop() {
  const auto period = std::chrono::milliseconds(
      static_cast<int64_t>(options_.ttl_sweep_seconds * 1000));
  std::unique_lock<std::mutex> lock(ttl_mu_);
  while (!shutting_down_) {
    ttl_cv_.wait_for(lock, period, [this] { return shutting_down_.load(); });
    if (shutting_down_) break;
    lock.unlock();
    SweepExpiredItems();
    lock.lock();
  }
}

int64_t DBImpl::SweepExpiredItems() {
  std::vector<TableInfoPtr> tables;
  {
    std::shared_lock lock(catalog_mu_);
    for (const auto& [name, t] : tables_)
      if (t->ttl_attribute) tables.push_back(t);
  }
  int64_t deleted = 0;
  const double now = change_log_->Now();  // Options::clock: tests move time
  constexpr size_t kChunk = 1000;  // keys collected, then deleted, at a time
  for (const auto& table : tables) {
    const std::string attribute = *table->ttl_attribute;
    const std::string upper = EncodeTablePrefix(table->id + 1);
    std::string next = EncodeTablePrefix(table->id);
    bool more = true;
    while (more && !shutting_down_) {
      std::vector<std::string> expired;
      {
        rocksdb::ReadOptions ro;
        ro.fill_cache = false;  // a sweep must not evict what the application reads
        rocksdb::Slice upper_slice(upper);
        ro.iterate_upper_bound = &upper_slice;
        std::unique_ptr<rocksdb::Iterator> it = NewKeyOrderIterator(db_, ro, items_cf_);
        it->Seek(next);
        for (; it->Valid() && !shutting_down_ && expired.size() < kChunk; it->Next()) {
          Item item;
          if (DecodeItem(std::string_view(it->value().data(), it->value().size()), &item) &&
              Expired(item, attribute, now)) {
            expired.push_back(it->key().ToString());
          }
        }
        more = it->Valid();
        if (more) next = it->key().ToString();
      }
      for (const auto& key : expired) {
        if (shutting_down_) return deleted;
        TableInfoPtr current = CurrentTable(*table);
        if (!current || current->ttl_attribute != attribute) return deleted;
        bool removed = false;
        Status s = ModifyItem(
            *current, key,
            [&](const std::optional<Item>& old) -> StatusOr<NewVersion> {
              // Re-checked under the item's lock: still expired, TTL still on.
              TableInfoPtr now_table = CurrentTable(*current);
              if (!old || !Expired(*old, attribute, now) || !now_table ||
                  now_table->ttl_attribute != attribute) {
                return ConditionalCheckFailed("no longer expired");
              }
              removed = true;
              return NewVersion{};
            },
            nullptr, nullptr, {}, ChangeOrigin::kTimeToLive);
        if (s.ok() && removed) deleted++;
      }
    }
  }
  return deleted;
}

// ---------------------------------------------------------------- continuous backups

namespace {

ContinuousBackupsDescription DescribeBackups(const TableInfo& info, double now) {
  ContinuousBackupsDescription d;
  if (info.pitr_since) {
    d.point_in_time_recovery_status = "ENABLED";
    d.recovery_period_in_days = info.pitr_days;
    d.earliest_restorable_date_time = PitrWindowStart(info, now);
    // Every change is kept as it commits: the latest restorable time is now
    // (DynamoDB reports about five minutes ago; docs/architecture.md).
    d.latest_restorable_date_time = std::max(*info.pitr_since, now);
  }
  return d;
}

}  // namespace

double PitrWindowStart(const TableInfo& info, double now) {
  return std::max(info.pitr_since.value_or(now), now - static_cast<double>(info.pitr_days) * 86400);
}

StatusOr<DescribeContinuousBackupsResponse> DBImpl::DescribeContinuousBackups(
    const DescribeContinuousBackupsRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  auto table = FindAnyTable(req.table_name);
  if (!table.ok()) {
    return Status(ErrorType::kTableNotFound, "Table not found: " + req.table_name);
  }
  return DescribeContinuousBackupsResponse{DescribeBackups(**table, change_log_->Now())};
}

StatusOr<UpdateContinuousBackupsResponse> DBImpl::UpdateContinuousBackups(
    const UpdateContinuousBackupsRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  if (req.recovery_period_in_days &&
      (*req.recovery_period_in_days < 1 || *req.recovery_period_in_days > 35)) {
    return ValidationError(
        "1 validation error detected: Value '" + std::to_string(*req.recovery_period_in_days) +
        "' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
        "constraint: Member must have value " +
        (*req.recovery_period_in_days < 1 ? "greater than or equal to 1"
                                          : "less than or equal to 35"));
  }
  if (req.recovery_period_in_days && !req.point_in_time_recovery_enabled) {
    return ValidationError("RecoveryPeriodInDays can only be specified when "
                           "PointInTimeRecoveryEnabled is true");
  }
  const Status not_found(ErrorType::kTableNotFound, "Table not found: " + req.table_name);
  bool started = false;
  TableInfoPtr updated;
  DR_RETURN_IF_ERROR(AlterTable(
      TableNameOf(req.table_name), not_found,
      [&](TableInfo* info, rocksdb::WriteBatch* batch) -> Status {
        if (req.point_in_time_recovery_enabled) {
          if (!info->pitr_since) {
            // A new history: allocated with the catalog entry that points to it.
            info->pitr_since = change_log_->Now();
            info->pitr_history_id = AllocateId(batch);
            started = true;
          }
          info->pitr_days = req.recovery_period_in_days.value_or(35);
        } else {
          info->pitr_since.reset();
          info->pitr_days = 35;
          if (info->pitr_history_id != 0) change_log_->DropHistory(info->pitr_history_id, batch);
          info->pitr_history_id = 0;
        }
        return Status();
      },
      &updated));
  if (updated->pitr_history_id != 0) {
    change_log_->KeepHistory(updated->pitr_history_id, static_cast<double>(updated->pitr_days) * 86400);
  }
  if (started) {
    // Writes that read the catalog before the history began have no record:
    // the window opens once they have all committed.
    WaitForWritesInProgress();
    const double since = change_log_->Now();
    DR_RETURN_IF_ERROR(AlterTable(TableNameOf(req.table_name), not_found,
                                  [&](TableInfo* info) -> Status {
                                    if (info->pitr_since) info->pitr_since = since;
                                    return Status();
                                  },
                                  &updated));
  }
  return UpdateContinuousBackupsResponse{DescribeBackups(*updated, change_log_->Now())};
}

// ---------------------------------------------------------------- tags

namespace {

// DynamoDB's words (its misspelling included) for an ARN that names no table.
Status NoSuchArn(std::string_view arn) {
  return ResourceNotFound("Requested resource not found: ResourcArn: " + std::string(arn) +
                          " not found");
}

}  // namespace

// The table a tagging request's ResourceArn names, refused as DynamoDB refuses
// it: ValidationException for what is not a table ARN (not an ARN, an index's
// or a backup's) or an ARN of another region, AccessDeniedException for another
// service's or another account's resource (no resource-based policy allows it),
// ResourceNotFoundException for a table that does not exist.
StatusOr<std::string> DBImpl::TableOfArn(std::string_view arn, std::string_view operation,
                                         std::string* stream_label) const {
  if (arn.empty() || arn.size() > 1283) {
    return ValidationError("1 validation error detected: Value '" + std::string(arn) +
                           "' at 'resourceArn' failed to satisfy constraint: Member must have "
                           "length " + (arn.empty() ? "greater than or equal to 1"
                                                    : "less than or equal to 1283"));
  }
  const std::string a(arn);
  if (arn.substr(0, 4) != "arn:") {
    return ValidationError("One or more parameter values were invalid: ARNs must start with "
                           "'arn:': " + a);
  }
  // arn:partition:service:region:account:resource
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (int i = 0; i < 5; ++i) {
    size_t colon = arn.find(':', start);
    if (colon == std::string_view::npos) {
      return ValidationError("Invalid TableArn: Invalid ResourceArn provided as input " + a);
    }
    parts.push_back(arn.substr(start, colon - start));
    start = colon + 1;
  }
  const std::string_view service = parts[2], region = parts[3], account = parts[4];
  const std::string_view resource = arn.substr(start);
  auto denied = [&] {
    const std::string op = "dynamodb:" + std::string(operation);
    return Status(ErrorType::kAccessDenied,
                  "User: arn:aws:iam::" + options_.account_id + ":root is not authorized to "
                  "perform: " + op + " on resource: " + a +
                  " because no resource-based policy allows the " + op + " action");
  };
  if (service != "dynamodb") return denied();
  if (resource.substr(0, 6) != "table/" || resource.size() == 6) {
    return ValidationError("One or more parameter values were invalid: Provided Arn is not a "
                           "DynamoDB resource arn: " + a);
  }
  const std::string_view table = resource.substr(6, resource.find('/', 6) - 6);
  const std::string_view rest = resource.substr(6 + table.size());
  if (rest.substr(0, 7) == "/index/") {
    return ValidationError("One or more parameter values were invalid: Invalid resource arn "
                           "provided, only table or stream is accepted. Provided resource arn: " + a);
  }
  if (!rest.empty() && rest.substr(0, 8) != "/stream/") {
    return ValidationError("One or more parameter values were invalid: Provided Arn is not a "
                           "DynamoDB resource arn: " + a);
  }
  if (account != options_.account_id) return denied();
  if (region != options_.region) {
    return ValidationError("Invalid TableArn: Invalid ResourceArn provided as input " + a);
  }
  if (!rest.empty() && stream_label == nullptr) return NoSuchArn(arn);  // streams carry no tags
  auto found = FindTable(table);
  if (!found.ok()) return NoSuchArn(arn);
  if (stream_label != nullptr) {
    *stream_label = std::string(rest.substr(rest.empty() ? 0 : 8));
    // Only the table's stream, while it is enabled.
    if (!rest.empty() && (!(*found)->stream_label || *(*found)->stream_label != *stream_label ||
                          !(*found)->stream_specification ||
                          !(*found)->stream_specification->stream_enabled)) {
      return NoSuchArn(arn);
    }
  }
  return (*found)->name;
}

StatusOr<TagResourceResponse> DBImpl::TagResource(const TagResourceRequest& req) {
  if (req.tags.empty()) {
    return ValidationError("1 validation error detected: Value '[]' at 'tags' failed to "
                           "satisfy constraint: Member must have length greater than or equal "
                           "to 1");
  }
  DR_RETURN_IF_ERROR(CheckTags(req.tags, "tags"));
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "TagResource"));
  DR_RETURN_IF_ERROR(AlterTable(name, NoSuchArn(req.resource_arn),
                                [&](TableInfo* info) { return MergeTags(req.tags, info); }));
  return TagResourceResponse{};
}

StatusOr<UntagResourceResponse> DBImpl::UntagResource(const UntagResourceRequest& req) {
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "UntagResource"));
  DR_RETURN_IF_ERROR(AlterTable(name, NoSuchArn(req.resource_arn), [&](TableInfo* info) {
    std::erase_if(info->tags, [&](const Tag& t) {
      return std::find(req.tag_keys.begin(), req.tag_keys.end(), t.key) != req.tag_keys.end();
    });
    return Status();
  }));
  return UntagResourceResponse{};
}

StatusOr<ListTagsOfResourceResponse> DBImpl::ListTagsOfResource(
    const ListTagsOfResourceRequest& req) {
  DR_ASSIGN_OR_RETURN(std::string name, TableOfArn(req.resource_arn, "ListTagsOfResource"));
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(name));
  ListTagsOfResourceResponse resp;
  resp.tags = table->tags;  // sorted by key
  return resp;
}

}  // namespace dynarock
