// PutItem, GetItem, DeleteItem and UpdateItem, and the single-item machinery they
// share: key validation, the locked read-modify-write, and staging a write with
// its statistics and index entries.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>

#include "engine/coding.h"
#include "engine/db_impl.h"
#include "index/maintainer.h"
#include "engine/item_codec.h"
#include "dynarock/item_size.h"
#include "engine/item_validation.h"
#include "engine/key_codec.h"
#include "engine/limits.h"
#include "engine/request_checks.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"

namespace dynarock {
namespace {

StatusOr<expr::ConditionPtr> ParseWriteCondition(
    const std::optional<std::string>& condition_expression,
    const std::map<std::string, ExpectedAttributeValue, std::less<>>& expected,
    const std::optional<std::string>& conditional_operator, expr::ExpressionContext* ctx) {
  if (condition_expression) {
    return expr::ParseCondition(*condition_expression, expr::ExpressionKind::kCondition, ctx);
  }
  if (!expected.empty()) return expr::ConditionFromExpected(expected, conditional_operator);
  if (conditional_operator) return expr::ConditionalOperatorWithoutConditions();
  return expr::ConditionPtr();
}

Status CheckCondition(const expr::ConditionPtr& condition, const std::optional<Item>& old_item,
                      bool return_old_on_failure) {
  if (!condition) return Status();
  static const Item kEmpty;
  DR_ASSIGN_OR_RETURN(bool ok, expr::EvaluateCondition(*condition, old_item ? *old_item : kEmpty));
  if (ok) return Status();
  Status failed = ConditionalCheckFailed();
  if (return_old_on_failure && old_item) failed.WithItem(*old_item);
  return failed;
}

}  // namespace

Status CheckKeyValue(const std::string& name, const AttributeValue& v, bool is_hash) {
  if ((v.is(AttrType::kS) || v.is(AttrType::kB)) && v.scalar().empty()) {
    return ValidationError(
        std::string("One or more parameter values are not valid. The AttributeValue for a key "
                    "attribute cannot contain an empty ") +
        (v.is(AttrType::kS) ? "string" : "binary") + " value. Key: " + name);
  }
  size_t size = v.scalar().size();
  if (is_hash && size > kPartitionKeyBytesMax) {
    return ValidationError(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
        "size limit of2048 bytes");
  }
  if (!is_hash && size > kSortKeyBytesMax) {
    return ValidationError(
        "One or more parameter values were invalid: Aggregated size of all range keys has "
        "exceeded the size limit of 1024 bytes");
  }
  return Status();
}

Item KeyAttributes(const KeyDef& key, const Item& item) {
  Item out;
  for (const auto* part : {&key.hash, &key.range}) {
    for (const auto& a : *part) {
      if (auto it = item.find(a.name); it != item.end()) out.insert(*it);
    }
  }
  return out;
}

StatusOr<std::string> DBImpl::ItemKey(const TableInfo& table, const Item& item,
                                      bool for_put) const {
  const KeyDef& key = table.key;
  const size_t key_count = key.has_range() ? 2 : 1;
  if (!for_put && item.size() != key_count) {
    return ValidationError("The provided key element does not match the schema");
  }
  auto get = [&](const std::string& name, AttrType type, bool is_hash)
      -> StatusOr<const AttributeValue*> {
    auto it = item.find(name);
    if (it == item.end()) {
      if (for_put) {
        return ValidationError("One or more parameter values were invalid: Missing the key " +
                               name + " in the item");
      }
      return ValidationError("The provided key element does not match the schema");
    }
    if (it->second.type() != type) {
      if (for_put) {
        return ValidationError("One or more parameter values were invalid: Type mismatch for key " +
                               name + " expected: " + std::string(AttrTypeName(type)) +
                               " actual: " + std::string(AttrTypeName(it->second.type())));
      }
      return ValidationError("The provided key element does not match the schema");
    }
    DR_RETURN_IF_ERROR(CheckKeyValue(name, it->second, is_hash));
    return &it->second;
  };
  DR_ASSIGN_OR_RETURN(const AttributeValue* hash, get(key.hash_name(), key.hash_type(), true));
  const AttributeValue* range = nullptr;
  if (key.has_range()) {
    DR_ASSIGN_OR_RETURN(range, get(key.range_name(), key.range_type(), false));
  }
  return EncodeItemKey(table.id, *hash, range);
}

std::optional<ItemCollectionMetrics> DBImpl::CollectionMetrics(const TableInfo& table,
                                                               const Item& item, bool asked) const {
  bool has_lsi = false;
  for (const auto& ix : table.indexes) has_lsi |= !ix.global;
  auto hash = item.find(table.key.hash_name());
  if (!asked || !has_lsi || hash == item.end()) return std::nullopt;
  // The collection: the partition's items and their local index entries.
  size_t bytes = 0;
  auto add_prefix = [&](rocksdb::ColumnFamilyHandle* cf, const std::string& prefix) {
    const std::string upper = PrefixSuccessor(prefix);
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper_slice;
    // Rare (ItemCollectionMetrics): key order, not the prefix mode's filters.
    std::unique_ptr<rocksdb::Iterator> it = NewKeyOrderIterator(db_, ro, cf);
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      Item decoded;
      if (DecodeItem(std::string_view(it->value().data(), it->value().size()), &decoded))
        bytes += ItemSize(decoded);
    }
  };
  add_prefix(items_cf_, EncodePartitionPrefix(table.id, hash->second));
  for (const auto& ix : table.indexes)
    if (!ix.global) add_prefix(indexes_cf_, EncodePartitionPrefix(ix.id, hash->second));
  ItemCollectionMetrics metrics;
  metrics.item_collection_key[hash->first] = hash->second;
  double lower = static_cast<double>(bytes / (1ULL << 30));
  metrics.size_estimate_range_gb = {lower, lower + 1};
  return metrics;
}

StatusOr<std::optional<Item>> DBImpl::ReadItem(const std::string& key,
                                               const rocksdb::Snapshot* snapshot) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(ro, items_cf_, key, &value);
  if (s.IsNotFound()) return std::optional<Item>();
  if (!s.ok()) return FromRocksDB(s);
  Item item;
  if (!DecodeItem(std::string_view(value.data(), value.size()), &item)) {
    return InternalError("Corrupt item record");
  }
  return std::optional<Item>(std::move(item));
}

StatusOr<DBImpl::ReadResult> DBImpl::ReadForResponse(
    const std::string& key, const rocksdb::Snapshot* snapshot,
    const std::optional<expr::ProjectionSpec>& projection, bool encoded) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(ro, items_cf_, key, &value);
  ReadResult r;
  if (s.IsNotFound()) return r;
  if (!s.ok()) return FromRocksDB(s);
  DR_RETURN_IF_ERROR(
      ShapeForResponse(std::string_view(value.data(), value.size()), projection, encoded, &r));
  return r;
}

Status DBImpl::ShapeForResponse(std::string_view stored,
                                const std::optional<expr::ProjectionSpec>& projection,
                                bool encoded, ReadResult* r) {
  auto corrupt = [] { return InternalError("Corrupt item record"); };
  if (projection) {
    Item part;
    if (!DecodeItemAttributes(stored, SortedNames(expr::ProjectionAttributeNames(*projection)),
                              &part, &r->size)) {
      return corrupt();
    }
    Item projected = expr::Project(*projection, part);
    if (encoded) {
      r->encoded = EncodeItem(projected);
    } else {
      r->item = std::move(projected);
    }
  } else if (encoded) {
    if (!EncodedItemSize(stored, &r->size)) return corrupt();
    r->encoded = std::string(stored);
  } else {
    Item item;
    if (!DecodeItem(stored, &item, &r->size)) return corrupt();
    r->item = std::move(item);
  }
  return Status();
}

TableInfoPtr DBImpl::CurrentTable(const TableInfo& table) const {
  std::shared_lock lock(catalog_mu_);
  auto it = tables_.find(table.name);
  if (it == tables_.end() || it->second->id != table.id) return nullptr;
  return it->second;
}

Status DBImpl::StageItemWrite(const TableInfo& table, const std::string& key,
                              const std::optional<Item>& old_item,
                              const std::optional<Item>& new_item, WriteSet* writes,
                              CapacityCounter* cost, ChangeOrigin origin) {
  // PRE: the item's lock stripe is held. The indexes to maintain are the
  // catalog's current ones, not those of the TableInfo the request started
  // with: an index created meanwhile must see this write (index_backfill.cc).
  TableInfoPtr current = CurrentTable(table);
  return StageWrite(current ? *current : table, key, old_item.has_value(),
                    old_item ? ItemSize(*old_item) : 0, old_item ? &*old_item : nullptr,
                    new_item ? &*new_item : nullptr, new_item ? ItemSize(*new_item) : 0, writes,
                    cost, origin);
}

bool DBImpl::WriteNeedsOldItem(const TableInfo& info) const {
  return !info.indexes.empty() || info.pitr_history_id != 0 || info.kinesis_log_id != 0 ||
         stale_reads_->enabled() ||
         (info.stream_specification && info.stream_specification->stream_enabled);
}

Status DBImpl::StageWrite(const TableInfo& info, const std::string& key, bool old_exists,
                          size_t old_size, const Item* old_item, const Item* new_item,
                          size_t new_size, WriteSet* writes, CapacityCounter* cost,
                          ChangeOrigin origin) {
  // PRE: the item's lock stripe is held; `info` is the table as the catalog has
  // it now; `old_item` is decoded whenever WriteNeedsOldItem(info).
  rocksdb::WriteBatch* batch = &writes->batch;
  int64_t count_delta = 0, bytes_delta = 0;
  std::string value;
  if (old_exists) {
    count_delta -= 1;
    bytes_delta -= static_cast<int64_t>(old_size);
  }
  if (new_item) {
    EncodeItemTo(*new_item, new_size, &value);
    DR_RETURN_IF_ERROR(FromRocksDB(batch->Put(items_cf_, key, value)));
    count_delta += 1;
    bytes_delta += static_cast<int64_t>(new_size);
  } else if (old_exists) {
    DR_RETURN_IF_ERROR(FromRocksDB(batch->Delete(items_cf_, key)));
  }
  change_log_->Stage(info, {old_item, old_size, {}}, {new_item, new_size, value}, origin, writes);
  if (stale_reads_->enabled()) {
    std::optional<std::string> before;
    if (old_item) {
      before.emplace();
      EncodeItemTo(*old_item, old_size, &*before);
    }
    writes->previous.emplace_back(key, std::move(before));
  }
  if (info.pitr_history_id != 0 && (old_item || new_item) &&
      !(old_item && new_item && *old_item == *new_item)) {
    change_log_->StageHistory(info, {old_item, old_size, {}}, new_item ? *new_item : *old_item,
                              origin, writes);
  }
  if (count_delta != 0 || bytes_delta != 0) {
    auto& [count, bytes] = writes->stats[info.id];  // merged once at commit (StageStats)
    count += count_delta;
    bytes += bytes_delta;
  }
  auto entry_exists = [this](const std::string& entry_key) {
    std::string value;
    return db_->Get(rocksdb::ReadOptions(), indexes_cf_, entry_key, &value).ok();
  };
  if (cost) {
    cost->table += WriteUnits(std::max(old_size, new_size));
  }
  if (options_.gsi_lag_max_seconds > 0) {
    // Global indexes' entries go later (engine/consistency.cc), their
    // statistics with them; local ones now.
    TableInfo local = info, global = info;
    std::erase_if(local.indexes, [](const IndexInfo& ix) { return ix.global; });
    std::erase_if(global.indexes, [](const IndexInfo& ix) { return !ix.global; });
    DR_RETURN_IF_ERROR(StageIndexUpdates(local, old_item, new_item, indexes_cf_, &writes->stats,
                                         batch, entry_exists, cost));
    StatsDeltas lagged;
    DR_RETURN_IF_ERROR(StageIndexUpdates(global, old_item, new_item, indexes_cf_, &lagged,
                                         &writes->lagged, entry_exists, cost));
    return MergeStats(catalog_cf_, &lagged, &writes->lagged);
  }
  return StageIndexUpdates(info, old_item, new_item, indexes_cf_, &writes->stats, batch, entry_exists,
                           cost);
}

size_t DBImpl::StripeOf(const std::string& key) const {
  // The standard library's hash reads the key eight bytes at a time (FNV-1a
  // took one); stripes live only in this process, so any good hash will do.
  return std::hash<std::string_view>{}(key) % kLockStripes;
}

bool DBImpl::HeldByTransaction(const std::string& key) const {
  std::lock_guard<std::mutex> lock(held_mu_);
  return transaction_held_.count(key) > 0;
}

StatusOr<std::unique_lock<std::mutex>> DBImpl::LockForWrite(const std::string& key) {
  std::unique_lock<std::mutex> lock(Stripe(StripeOf(key)), std::try_to_lock);
  if (!lock.owns_lock()) {
    if (HeldByTransaction(key)) return TransactionConflict("Transaction is ongoing for the item");
    lock.lock();
  }
  return lock;
}

Status DBImpl::ReadOldVersion(std::string_view stored, bool decode, size_t* size,
                              std::optional<Item>* item) {
  // Decoding yields the size too; otherwise the size alone (a V2 item's
  // header, a V1 item's walk).
  const bool read =
      decode ? DecodeItem(stored, &item->emplace(), size) : EncodedItemSize(stored, size);
  return read ? Status() : InternalError("Corrupt item record");
}

Status DBImpl::ModifyItem(const TableInfo& table, const std::string& key, const ComputeFn& compute,
                          std::optional<Item>* old_out, CapacityCounter* cost,
                          std::string_view billed_as,
                          ChangeOrigin origin, bool compute_reads_old) {
  DR_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> lock, LockForWrite(key));
  // The indexes and stream to maintain are the catalog's current ones (see
  // StageItemWrite), read under the lock.
  TableInfoPtr current = CurrentTable(table);
  const TableInfo& info = current ? *current : table;
  // The old item is decoded only when something reads it; otherwise its size
  // (in its header) is all the write needs, for the statistics and the units.
  const bool decode_old = compute_reads_old || old_out != nullptr || WriteNeedsOldItem(info);
  rocksdb::PinnableSlice stored;
  rocksdb::Status rs = db_->Get(rocksdb::ReadOptions(), items_cf_, key, &stored);
  if (!rs.ok() && !rs.IsNotFound()) return FromRocksDB(rs);
  const bool old_exists = rs.ok();
  std::optional<Item> old_item;
  size_t old_size = 0;
  if (old_exists) {
    DR_RETURN_IF_ERROR(ReadOldVersion(std::string_view(stored.data(), stored.size()), decode_old,
                                      &old_size, &old_item));
  }
  StatusOr<NewVersion> computed = compute(old_item);
  if (!computed.ok()) {
    Status s = computed.status();
    if (s.type() == ErrorType::kConditionalCheckFailed) {
      // A failed condition still costs the write, sized on the item it read.
      s.WithBilled({{billed_as.empty() ? table.name : std::string(billed_as), 0,
                     WriteUnits(old_size)}});
    }
    return s;
  }
  const Item* new_item = computed->item;
  if (old_exists || new_item) {
    // The batch's header, the item's key and encoding (its size plus a few
    // bytes an attribute), the statistics' merge; index entries may grow it.
    const size_t new_size = new_item ? computed->size : 0;
    WriteSet writes(64 + key.size() + new_size + (new_item ? 4 * new_item->size() : 0));
    DR_RETURN_IF_ERROR(StageWrite(info, key, old_exists, old_size,
                                  old_item ? &*old_item : nullptr, new_item, new_size, &writes,
                                  cost, origin));
    DR_RETURN_IF_ERROR(Commit(&writes));
  } else if (cost) {
    cost->table += WriteUnits(0);  // deleting a missing item still costs one unit
  }
  if (old_out) *old_out = std::move(old_item);
  return Status();
}

// ---------------------------------------------------------------- PutItem

StatusOr<PutItemResponse> DBImpl::PutItem(const PutItemRequest& req) { return PutItemImpl(req, nullptr); }

StatusOr<PutItemResponse> DBImpl::PutItem(PutItemRequest&& req) { return PutItemImpl(req, &req.item); }

StatusOr<PutItemResponse> DBImpl::PutItemImpl(const PutItemRequest& req, Item* take) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  // From here on the item is `*item` (req.item may be what it was moved from):
  // the request's own, unless it was taken or a number in it needs its normal
  // form (then a normalised copy).
  std::optional<Item> owned;
  size_t size;
  if (take != nullptr) {
    owned.emplace(std::move(*take));
    DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&*owned, &size));
  } else {
    DR_RETURN_IF_ERROR(ValidateItem(req.item, &owned, &size));
  }
  const Item* item = owned ? &*owned : &req.item;
  if (size > kItemSizeBytesMax) {
    return ValidationError("Item size has exceeded the maximum allowed size");
  }

  // The request's own validity first, then the table (DynamoDB's order).
  DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(req.expression_attribute_values));
  expr::ExpressionContext ctx(&req.expression_attribute_names, &values,
                              req.has_expression_attribute_names,
                              req.has_expression_attribute_values);
  DR_ASSIGN_OR_RETURN(expr::ConditionPtr condition,
                      ParseWriteCondition(req.condition_expression, req.expected,
                                          req.conditional_operator, &ctx));
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(std::string key, ItemKey(*table, *item, /*for_put=*/true));
  DR_RETURN_IF_ERROR(CheckIndexKeyTypes(*table, *item));
  if (condition) {
    DR_RETURN_IF_ERROR(CheckKeyPathsScalar(expr::ConditionPaths(*condition), table->key, nullptr));
  }

  // The old item is read only for a condition or ReturnValues ALL_OLD (and,
  // in ModifyItem, for indexes and a stream); the new one is staged from where
  // it is.
  std::optional<Item> old_item;
  const bool return_old = req.return_values == ReturnValue::kAllOld;
  CapacityCounter cost;
  DR_RETURN_IF_ERROR(ModifyItem(
      *table, key,
      [&](const std::optional<Item>& old) -> StatusOr<NewVersion> {
        DR_RETURN_IF_ERROR(
            CheckCondition(condition, old, req.return_values_on_condition_check_failure_all_old));
        return NewVersion{item, size};
      },
      return_old ? &old_item : nullptr, &cost, req.table_name, ChangeOrigin::kUser,
      /*compute_reads_old=*/condition != nullptr));

  PutItemResponse resp;
  resp.item_collection_metrics =
      CollectionMetrics(*table, *item, req.return_item_collection_metrics);
  resp.consumed_capacity = ReportCapacity(req.return_consumed_capacity, req.table_name, cost, false);
  if (req.return_values == ReturnValue::kAllOld && old_item) resp.attributes = std::move(old_item);
  return resp;
}

// ---------------------------------------------------------------- GetItem

namespace {

// A request's key, validated where it is; when a number in it is not in its
// normal form, normalised into `*normalized` (what the key is then read as).
StatusOr<const Item*> ValidatedKey(const Item& key, std::optional<Item>* normalized) {
  size_t size = 0;
  DR_RETURN_IF_ERROR(ValidateItem(key, normalized, &size));
  return normalized->has_value() ? &**normalized : &key;
}

}  // namespace

StatusOr<GetItemResponse> DBImpl::GetItem(const GetItemRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  std::optional<Item> normalized_key;
  DR_ASSIGN_OR_RETURN(const Item* key_item, ValidatedKey(req.key, &normalized_key));

  std::optional<expr::ProjectionSpec> projection;
  expr::ExpressionContext ctx(&req.expression_attribute_names, nullptr,
                              req.has_expression_attribute_names, false);
  DR_RETURN_IF_ERROR(ctx.ValidateMaps());
  if (req.projection_expression) {
    DR_ASSIGN_OR_RETURN(projection, expr::ParseProjection(*req.projection_expression, &ctx));
  } else if (!req.attributes_to_get.empty()) {
    DR_ASSIGN_OR_RETURN(projection, expr::ProjectionFromAttributesToGet(req.attributes_to_get));
  }
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(std::string key, ItemKey(*table, *key_item, /*for_put=*/false));
  if (projection) DR_RETURN_IF_ERROR(CheckKeyPathsScalar(projection->paths, *table));

  ReadResult read;
  std::optional<std::string> before;
  if (!req.consistent_read && stale_reads_->enabled() &&
      stale_reads_->Stale(key, change_log_->Now(), &before)) {
    // Eventually consistent: the item as it was before its latest write.
    if (before) DR_RETURN_IF_ERROR(ShapeForResponse(*before, projection, req.encoded_items, &read));
  } else {
    DR_ASSIGN_OR_RETURN(read, ReadForResponse(key, nullptr, projection, req.encoded_items));
  }
  GetItemResponse resp;
  CapacityCounter cost;
  cost.table = ReadUnits(read.size, req.consistent_read);
  resp.consumed_capacity = ReportCapacity(req.return_consumed_capacity, req.table_name, cost, true);
  resp.bytes_read = static_cast<int64_t>(read.size);
  resp.item = std::move(read.item);
  resp.encoded_item = std::move(read.encoded);
  return resp;
}

// ---------------------------------------------------------------- DeleteItem

StatusOr<DeleteItemResponse> DBImpl::DeleteItem(const DeleteItemRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  std::optional<Item> normalized_key;
  DR_ASSIGN_OR_RETURN(const Item* key_item, ValidatedKey(req.key, &normalized_key));

  DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(req.expression_attribute_values));
  expr::ExpressionContext ctx(&req.expression_attribute_names, &values,
                              req.has_expression_attribute_names,
                              req.has_expression_attribute_values);
  DR_ASSIGN_OR_RETURN(expr::ConditionPtr condition,
                      ParseWriteCondition(req.condition_expression, req.expected,
                                          req.conditional_operator, &ctx));
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(std::string key, ItemKey(*table, *key_item, /*for_put=*/false));
  if (condition) {
    DR_RETURN_IF_ERROR(CheckKeyPathsScalar(expr::ConditionPaths(*condition), table->key, nullptr));
  }

  std::optional<Item> old_item;
  CapacityCounter cost;
  DR_RETURN_IF_ERROR(ModifyItem(
      *table, key,
      [&](const std::optional<Item>& old) -> StatusOr<NewVersion> {
        DR_RETURN_IF_ERROR(
            CheckCondition(condition, old, req.return_values_on_condition_check_failure_all_old));
        return NewVersion{};
      },
      req.return_values == ReturnValue::kAllOld ? &old_item : nullptr, &cost,
      req.table_name, ChangeOrigin::kUser, /*compute_reads_old=*/condition != nullptr));
  DeleteItemResponse resp;
  resp.item_collection_metrics = CollectionMetrics(*table, *key_item, req.return_item_collection_metrics);
  resp.consumed_capacity = ReportCapacity(req.return_consumed_capacity, req.table_name, cost, false);
  if (req.return_values == ReturnValue::kAllOld && old_item) resp.attributes = std::move(old_item);
  return resp;
}

// ---------------------------------------------------------------- UpdateItem

StatusOr<UpdateItemResponse> DBImpl::UpdateItem(const UpdateItemRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  std::optional<Item> normalized_key;
  DR_ASSIGN_OR_RETURN(const Item* key_item, ValidatedKey(req.key, &normalized_key));

  DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(req.expression_attribute_values));
  expr::ExpressionContext ctx(&req.expression_attribute_names, &values,
                              req.has_expression_attribute_names,
                              req.has_expression_attribute_values);
  expr::UpdatePlanPtr plan;
  if (req.update_expression) {
    DR_ASSIGN_OR_RETURN(plan, expr::ParseUpdate(*req.update_expression, &ctx));
  } else if (req.has_attribute_updates) {
    std::map<std::string, AttributeValueUpdate, std::less<>> updates = req.attribute_updates;
    for (auto& [name, update] : updates) {
      if (update.value) DR_RETURN_IF_ERROR(NormalizeAndValidateValue(&*update.value, 1));
    }
    DR_ASSIGN_OR_RETURN(plan, expr::UpdateFromAttributeUpdates(updates));
  }
  DR_ASSIGN_OR_RETURN(expr::ConditionPtr condition,
                      ParseWriteCondition(req.condition_expression, req.expected,
                                          req.conditional_operator, &ctx));
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(std::string key, ItemKey(*table, *key_item, /*for_put=*/false));
  std::vector<expr::Path> updated_paths;
  if (plan) {
    updated_paths = expr::UpdatedPaths(*plan);
    DR_RETURN_IF_ERROR(CheckUpdatedPaths(updated_paths, *table));
  }
  if (condition) {
    DR_RETURN_IF_ERROR(CheckKeyPathsScalar(expr::ConditionPaths(*condition), table->key, nullptr));
  }

  std::optional<Item> old_item, new_item;
  CapacityCounter cost;
  DR_RETURN_IF_ERROR(ModifyItem(
      *table, key,
      [&](const std::optional<Item>& old) -> StatusOr<NewVersion> {
        DR_RETURN_IF_ERROR(
            CheckCondition(condition, old, req.return_values_on_condition_check_failure_all_old));
        Item next = old ? *old : *key_item;
        if (plan) DR_RETURN_IF_ERROR(expr::ApplyUpdate(*plan, &next));
        const size_t size = ItemSize(next);
        if (size > kItemSizeBytesMax) {
          return ValidationError("Item size to update has exceeded the maximum allowed size");
        }
        DR_RETURN_IF_ERROR(CheckIndexKeyTypes(*table, next, /*by_update=*/true));
        new_item = std::move(next);
        return NewVersion{&*new_item, size};
      },
      &old_item, &cost, req.table_name));

  UpdateItemResponse resp;
  resp.item_collection_metrics = CollectionMetrics(*table, *key_item, req.return_item_collection_metrics);
  resp.consumed_capacity = ReportCapacity(req.return_consumed_capacity, req.table_name, cost, false);
  switch (req.return_values) {
    case ReturnValue::kNone:
      break;
    case ReturnValue::kAllOld:
      if (old_item) resp.attributes = std::move(old_item);
      break;
    case ReturnValue::kAllNew:
      resp.attributes = std::move(new_item);
      break;
    case ReturnValue::kUpdatedOld:
    case ReturnValue::kUpdatedNew: {
      const std::optional<Item>& source =
          req.return_values == ReturnValue::kUpdatedOld ? old_item : new_item;
      if (source && !updated_paths.empty()) {
        Item projected = expr::Project(expr::ProjectionSpec{updated_paths}, *source);
        if (!projected.empty()) resp.attributes = std::move(projected);
      }
      break;
    }
  }
  return resp;
}

}  // namespace dynarock
