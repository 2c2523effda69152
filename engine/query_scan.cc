// Query and Scan, on tables and on secondary indexes: validation, the key range a
// request covers, and the page loop (Limit, the 1 MB page, filters after both,
// LastEvaluatedKey).

#include <rocksdb/db.h>

#include <algorithm>
#include <string_view>

#include "engine/consistency.h"
#include "engine/db_impl.h"
#include "engine/item_codec.h"
#include "dynarock/item_size.h"
#include "engine/capacity.h"
#include "engine/item_validation.h"
#include "engine/key_codec.h"
#include "engine/limits.h"
#include "engine/number.h"
#include "engine/request_checks.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "index/key_condition.h"
#include "index/maintainer.h"

namespace dynarock {

struct DBImpl::ReadPlan {
  const IndexInfo* index = nullptr;  // null: the table itself
  std::string lower;                 // inclusive
  std::string upper;                 // exclusive
  bool forward = true;
  std::optional<std::string> start_after;  // the encoded ExclusiveStartKey
  int64_t limit = 0;                        // 0: no limit
  expr::ConditionPtr filter;
  std::optional<expr::ProjectionSpec> projection;
  bool count_only = false;
  bool fetch_from_table = false;  // LSI read with attributes it does not project
  bool all_attributes = false;    // Select ALL_ATTRIBUTES
  bool consistent_read = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  std::string table_name;  // as the request named it, for ConsumedCapacity
  bool encoded = false;    // items into QueryResponse::encoded_items
};

namespace {

// Whether two keys (bounds) share their table and partition hash, the prefix
// the keyed column families' prefix filters hold.
bool SamePartitionHash(std::string_view a, std::string_view b) {
  return a.size() >= kPartitionHashPrefixBytes && b.size() >= kPartitionHashPrefixBytes &&
         a.substr(0, kPartitionHashPrefixBytes) == b.substr(0, kPartitionHashPrefixBytes);
}

// Select + projection rules shared by Query and Scan.
struct SelectChoice {
  bool count_only = false;
  bool all_attributes = false;  // ALL_ATTRIBUTES asked explicitly or by default on a table
};

StatusOr<SelectChoice> ChooseSelect(const std::optional<Select>& select, bool has_projection,
                                    bool legacy_projection, const IndexInfo* index, bool scan) {
  SelectChoice choice;
  Select s = select.value_or(has_projection ? Select::kSpecificAttributes
                                            : (index ? Select::kAllProjectedAttributes
                                                     : Select::kAllAttributes));
  // Messages as captured from DynamoDB: "only the Count" for COUNT, and "Querying"
  // even on a Scan.
  if (has_projection && s != Select::kSpecificAttributes) {
    return ValidationError(
        std::string("1 validation error detected: Cannot specify the ") +
        (legacy_projection ? "AttributesToGet" : "ProjectionExpression") +
        " when choosing to get " +
        (s == Select::kCount ? "only the Count"
                             : s == Select::kAllAttributes ? "ALL_ATTRIBUTES"
                                                           : "ALL_PROJECTED_ATTRIBUTES"));
  }
  if (s == Select::kSpecificAttributes && !has_projection) {
    return ValidationError(
        "1 validation error detected: Must specify the ProjectionExpression or AttributesToGet "
        "when choosing to get SPECIFIC_ATTRIBUTES");
  }
  if (s == Select::kAllProjectedAttributes && !index) {
    return ValidationError(
        "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying "
        "using an IndexName");
  }
  if (s == Select::kAllAttributes && index && index->global &&
      index->projection.projection_type.value_or(ProjectionType::kAll) != ProjectionType::kAll) {
    return ValidationError("One or more parameter values were invalid: Select type ALL_ATTRIBUTES "
                           "is not supported for global secondary index " + index->name +
                           " because its projection type is not ALL");
  }
  choice.count_only = s == Select::kCount;
  choice.all_attributes = s == Select::kAllAttributes;
  return choice;
}

StatusOr<const IndexInfo*> FindIndex(const TableInfo& table, const std::optional<std::string>& name,
                                     bool consistent_read) {
  if (!name) return static_cast<const IndexInfo*>(nullptr);
  ConstraintErrors errors;
  errors.CheckName(*name, "indexName");
  DR_RETURN_IF_ERROR(errors.ToStatus());
  const IndexInfo* index = table.FindIndex(*name);
  if (!index) return ValidationError("The table does not have the specified index: " + *name);
  if (index->status != "ACTIVE") {
    return ValidationError("Cannot read from backfilling global secondary index: " + *name);
  }
  if (consistent_read && index->global) {
    return ValidationError("Consistent reads are not supported on global secondary indexes");
  }
  return index;
}

StatusOr<std::optional<expr::ProjectionSpec>> ParseReadProjection(
    const std::optional<std::string>& projection_expression,
    const std::vector<std::string>& attributes_to_get, bool has_attributes_to_get,
    expr::ExpressionContext* ctx) {
  if (projection_expression) {
    DR_ASSIGN_OR_RETURN(expr::ProjectionSpec spec, expr::ParseProjection(*projection_expression, ctx));
    return std::optional<expr::ProjectionSpec>(std::move(spec));
  }
  if (has_attributes_to_get) {
    DR_ASSIGN_OR_RETURN(expr::ProjectionSpec spec,
                        expr::ProjectionFromAttributesToGet(attributes_to_get));
    return std::optional<expr::ProjectionSpec>(std::move(spec));
  }
  return std::optional<expr::ProjectionSpec>();
}

// No projection or filter path may go into a key attribute of the table or of
// the index read.
Status CheckReadPaths(const TableInfo& table, const IndexInfo* index,
                      const std::optional<expr::ProjectionSpec>& projection,
                      const expr::ConditionPtr& filter) {
  const KeyDef* index_key = index ? &index->key : nullptr;
  if (filter) {
    DR_RETURN_IF_ERROR(CheckKeyPathsScalar(expr::ConditionPaths(*filter), table.key, index_key));
  }
  if (projection) DR_RETURN_IF_ERROR(CheckKeyPathsScalar(projection->paths, table.key, index_key));
  return Status();
}

// An LSI read fetches the table's item when it needs attributes the index does
// not project: ALL_ATTRIBUTES, or a projection or filter that names one
// ("DynamoDB fetches each of these attributes from the parent table"). A GSI
// never does: what it does not project is simply absent.
bool NeedsTableFetch(const TableInfo& table, const IndexInfo* index, const SelectChoice& select,
                     const std::optional<expr::ProjectionSpec>& projection,
                     const expr::ConditionPtr& filter) {
  if (!index || index->global) return false;
  if (index->projection.projection_type.value_or(ProjectionType::kAll) == ProjectionType::kAll) {
    return false;
  }
  if (select.all_attributes) return true;
  if (projection) {
    for (const auto& path : projection->paths) {
      if (!path.empty() && !IndexProjects(table, *index, path[0].name)) return true;
    }
  }
  if (filter) {
    for (const auto& name : expr::ConditionAttributeNames(*filter)) {
      if (!IndexProjects(table, *index, name)) return true;
    }
  }
  return false;
}

// The entries a read visits, in its order: the iterator's, merged with the
// stale images an eventually consistent read of the table shows instead
// (StaleReads::PickRange, in ascending key order). A stale image takes the
// place of its key's stored item, or stands where the item no longer is; a
// key picked without an image (created within the window) is not visited.
// Without stale images it is the iterator alone.
class ReadCursor {
 public:
  ReadCursor(rocksdb::Iterator* it, bool forward, std::vector<StaleReads::StaleImage> stale)
      : it_(it), forward_(forward), stale_(std::move(stale)) {
    if (!forward_) std::reverse(stale_.begin(), stale_.end());
    Settle();
  }
  bool Valid() const { return on_stale_ || it_->Valid(); }
  // The current item's encoding (valid until Next()).
  std::string_view value() const {
    if (on_stale_) return *stale_[next_].image;
    return std::string_view(it_->value().data(), it_->value().size());
  }
  void Next() {
    if (on_stale_) {
      if (shadows_) Advance();
      ++next_;
    } else {
      Advance();
    }
    Settle();
  }

 private:
  void Advance() { forward_ ? it_->Next() : it_->Prev(); }
  // Positions on whichever of the iterator's item and the next stale image
  // comes first in the read's order, passing over the hidden ones.
  void Settle() {
    on_stale_ = shadows_ = false;
    while (next_ < stale_.size()) {
      const StaleReads::StaleImage& s = stale_[next_];
      // < 0: the iterator's key comes first; 0: the same key.
      int order = 1;
      if (it_->Valid()) {
        order = it_->key().compare(rocksdb::Slice(s.key));
        if (!forward_) order = -order;
      }
      if (order < 0) return;
      if (s.image) {
        on_stale_ = true;
        shadows_ = order == 0;
        return;
      }
      if (order == 0) Advance();
      ++next_;
    }
  }

  rocksdb::Iterator* const it_;
  const bool forward_;
  std::vector<StaleReads::StaleImage> stale_;  // in the read's order
  size_t next_ = 0;         // the first stale image not yet passed
  bool on_stale_ = false;   // the current item is stale_[next_]
  bool shadows_ = false;    // ... and the iterator is on the same key
};

}  // namespace

// The encoded position of an ExclusiveStartKey: the table's key attributes (and,
// on an index, the index's), exactly those and of the schema's types.
StatusOr<std::string> DBImpl::StartKey(const TableInfo& table, const IndexInfo* index,
                                       const Item& exclusive_start_key) const {
  Item esk = exclusive_start_key;
  DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&esk));
  // DynamoDB's three answers (captured from the service): an empty key; a key
  // without exactly the attributes of the table's key (and the index's); a key
  // with those attributes but a value of the wrong type.
  if (esk.empty()) {
    return ValidationError(
        "The provided starting key is invalid: The provided key element does not match the "
        "schema");
  }
  size_t expected = 0;
  bool names_match = true;
  auto need = [&](const std::string& name) {
    if (esk.find(name) == esk.end()) names_match = false;
    ++expected;
  };
  for (const auto& a : table.key.hash) need(a.name);
  for (const auto& a : table.key.range) need(a.name);
  if (index) {
    for (const auto* part : {&index->key.hash, &index->key.range}) {
      for (const auto& a : *part) {
        if (!table.key.IsKeyAttribute(a.name)) need(a.name);
      }
    }
  }
  if (!names_match || expected != esk.size()) {
    return ValidationError("The provided starting key is invalid");
  }
  std::optional<std::string> start;
  if (index) {
    auto table_key = ItemKey(table, KeyAttributes(table.key, esk), false);
    if (table_key.ok()) start = IndexEntryKey(table, *index, esk);
  } else {
    auto k = ItemKey(table, esk, false);
    if (k.ok()) start = std::move(*k);
  }
  if (!start) return ValidationError("The provided key element does not match the schema");
  return *std::move(start);
}

// ---------------------------------------------------------------- the page loop

StatusOr<QueryResponse> DBImpl::RunRead(const TableInfo& table, const ReadPlan& plan) {
  rocksdb::ColumnFamilyHandle* cf = plan.index ? indexes_cf_ : items_cf_;
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  struct SnapshotRelease {
    rocksdb::DB* db;
    const rocksdb::Snapshot* s;
    ~SnapshotRelease() { db->ReleaseSnapshot(s); }
  } release{db_, snapshot};
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  rocksdb::Slice lower(plan.lower), upper(plan.upper);
  ro.iterate_lower_bound = &lower;
  ro.iterate_upper_bound = &upper;
  // A read within one partition (every Query; a Scan's range spans many) runs
  // in prefix mode: table files whose prefix Bloom filter lacks the
  // partition's table and hash are not searched. Exact: every key in
  // [lower, upper) starts with the bounds' common first bytes.
  ro.total_order_seek = !SamePartitionHash(plan.lower, plan.upper) ||
                        (plan.start_after && !SamePartitionHash(plan.lower, *plan.start_after));
  ro.prefix_same_as_start = !ro.total_order_seek;
  // The one iterator over a keyed family not made by NewKeyOrderIterator.
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf));

  if (plan.forward) {
    if (plan.start_after) {
      it->Seek(*plan.start_after);
      if (it->Valid() && it->key() == rocksdb::Slice(*plan.start_after)) it->Next();
    } else {
      it->SeekToFirst();
    }
  } else {
    if (plan.start_after) {
      it->SeekForPrev(*plan.start_after);
      if (it->Valid() && it->key() == rocksdb::Slice(*plan.start_after)) it->Prev();
    } else {
      it->SeekToLast();
    }
  }

  // An eventually consistent read of the table sees recently written items
  // as they were (engine/consistency.h), in the part of the range it can
  // reach; indexes lag through IndexLag instead.
  std::vector<StaleReads::StaleImage> stale;
  if (!plan.index && !plan.consistent_read && stale_reads_->enabled()) {
    std::string_view lower_reach = plan.lower, upper_reach = plan.upper;
    std::string after_start;
    if (plan.start_after) {
      if (plan.forward) {
        after_start = *plan.start_after + '\0';  // the least key above it
        lower_reach = std::max(lower_reach, std::string_view(after_start));
      } else {
        upper_reach = std::min(upper_reach, std::string_view(*plan.start_after));
      }
    }
    stale = stale_reads_->PickRange(lower_reach, upper_reach, change_log_->Now());
  }
  ReadCursor items(it.get(), plan.forward, std::move(stale));

  QueryResponse resp;
  size_t bytes_read = 0;
  size_t table_bytes_fetched = 0;
  const KeyDef& read_key = plan.index ? plan.index->key : table.key;
  // Items are read as their encoding: sized without decoding, the filter's
  // attributes decoded to evaluate it, the rest only for an item returned
  // (and then only what the projection names).
  std::vector<std::string> filter_names;
  if (plan.filter) filter_names = SortedNames(expr::ConditionAttributeNames(*plan.filter));
  std::vector<std::string> projected_names;
  if (plan.projection) projected_names = SortedNames(expr::ProjectionAttributeNames(*plan.projection));
  std::optional<Item> fetched;
  // Every iteration sets `item` first (DecodeItem replaces it; DecodeItemAttributes
  // reuses its nodes, so a filter's attributes are decoded without allocating
  // a node per item); a moved-from item is empty.
  Item item;
  for (; items.Valid(); items.Next()) {
    const std::string_view encoded = items.value();
    auto corrupt = [&] { return InternalError("Corrupt record in " + table.name); };
    // One pass sizes the item and decodes what it must: the whole item when
    // it is returned as an Item unprojected and unfiltered, else the filter's
    // attributes (none without a filter).
    size_t size = 0;
    const bool whole = !plan.encoded && !plan.projection && !plan.filter && !plan.count_only;
    if (whole || plan.fetch_from_table) {
      if (!DecodeItem(encoded, &item, &size)) return corrupt();
    } else if (!DecodeItemAttributes(encoded, filter_names, &item, &size)) {
      return corrupt();
    }
    resp.scanned_count++;
    bytes_read += size;
    bool stop = (plan.limit > 0 && resp.scanned_count >= plan.limit) ||
                bytes_read >= kQueryPageBytesMax;
    if (stop) {
      // The page's last item: its keys are LastEvaluatedKey.
      std::vector<std::string> key_names;
      for (const KeyDef* k : {&table.key, &read_key}) {
        for (const auto* part : {&k->hash, &k->range}) {
          for (const auto& a : *part) key_names.push_back(a.name);
        }
      }
      key_names = SortedNames(std::move(key_names));
      Item keys;
      if (!DecodeItemAttributes(encoded, key_names, &keys)) return corrupt();
      Item last = KeyAttributes(table.key, keys);
      if (plan.index) {
        for (auto& [n, v] : KeyAttributes(read_key, keys)) last.emplace(n, v);
      }
      resp.last_evaluated_key = std::move(last);
    }
    if (!plan.fetch_from_table) {
      bool keep = true;
      if (plan.filter) {
        DR_ASSIGN_OR_RETURN(keep, expr::EvaluateCondition(*plan.filter, item));
      }
      if (keep) {
        resp.count++;
        if (whole) {
          resp.items.push_back(std::move(item));
        } else if (!plan.count_only) {
          if (plan.projection) {
            if (!DecodeItemAttributes(encoded, projected_names, &item)) return corrupt();
            Item projected = expr::Project(*plan.projection, item);
            if (plan.encoded) {
              resp.encoded_items.Append(projected);
            } else {
              resp.items.push_back(std::move(projected));
            }
          } else if (plan.encoded) {
            // The stored bytes, as they are (room for a few items' worth at once).
            if (resp.encoded_items.empty()) {
              resp.encoded_items.Reserve(
                  std::min(encoded.size() * 16, kQueryPageBytesMax + encoded.size()));
            }
            resp.encoded_items.Append(encoded);
          } else {
            if (!DecodeItem(encoded, &item)) return corrupt();
            resp.items.push_back(std::move(item));
          }
        }
      }
      if (stop) break;
      continue;
    }
    // An LSI entry whose table item supplies what the index does not project.
    {
      const AttributeValue* range = nullptr;
      if (table.key.has_range()) range = &item.at(table.key.range_name());
      DR_ASSIGN_OR_RETURN(std::optional<Item> full,
                          ReadItem(EncodeItemKey(table.id, item.at(table.key.hash_name()), range), snapshot));
      if (full) {
        table_bytes_fetched += ItemSize(*full);
        if (plan.all_attributes || plan.projection) {
          item = std::move(*full);
        } else {
          fetched = std::move(*full);  // for the filter only: return the index entry
        }
      }
    }
    bool keep = true;
    if (plan.filter) {
      DR_ASSIGN_OR_RETURN(keep, expr::EvaluateCondition(*plan.filter, fetched ? *fetched : item));
      fetched.reset();
    }
    if (keep) {
      resp.count++;
      if (!plan.count_only) {
        Item out = plan.projection ? expr::Project(*plan.projection, item) : std::move(item);
        if (plan.encoded) {
          resp.encoded_items.Append(out);
        } else {
          resp.items.push_back(std::move(out));
        }
      }
    }
    if (stop) break;
  }
  DR_RETURN_IF_ERROR(FromRocksDB(it->status()));
  // Reads are billed on what was evaluated, rounded once per request.
  CapacityCounter cost;
  if (plan.index) {
    cost.AddIndex(plan.index->name, plan.index->global, ReadUnits(bytes_read, plan.consistent_read));
    if (table_bytes_fetched > 0) cost.table += ReadUnits(table_bytes_fetched, plan.consistent_read);
  } else {
    cost.table = ReadUnits(bytes_read, plan.consistent_read);
  }
  resp.bytes_read = static_cast<int64_t>(bytes_read + table_bytes_fetched);
  resp.consumed_capacity = ReportCapacity(plan.return_consumed_capacity, plan.table_name, cost, true);
  return resp;
}

// ---------------------------------------------------------------- Query

StatusOr<QueryResponse> DBImpl::Query(const QueryRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  if (!req.key_condition_expression && !req.has_key_conditions) {
    return ValidationError(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.");
  }
  DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(req.expression_attribute_values));
  expr::ExpressionContext ctx(&req.expression_attribute_names, &values,
                              req.has_expression_attribute_names,
                              req.has_expression_attribute_values);
  std::vector<expr::KeyTerm> terms;
  if (req.key_condition_expression) {
    DR_ASSIGN_OR_RETURN(terms, expr::ParseKeyCondition(*req.key_condition_expression, &ctx));
  } else {
    DR_ASSIGN_OR_RETURN(LegacyConditionMap conditions, NormalizeLegacyConditions(req.key_conditions));
    DR_ASSIGN_OR_RETURN(terms, expr::KeyTermsFromKeyConditions(conditions));
  }
  ReadPlan plan;
  if (req.filter_expression) {
    DR_ASSIGN_OR_RETURN(plan.filter, expr::ParseCondition(*req.filter_expression,
                                                          expr::ExpressionKind::kFilter, &ctx));
  } else if (req.has_query_filter && !req.query_filter.empty()) {
    DR_ASSIGN_OR_RETURN(LegacyConditionMap filter, NormalizeLegacyConditions(req.query_filter));
    DR_ASSIGN_OR_RETURN(plan.filter,
                        expr::ConditionFromFilter(filter, req.conditional_operator, "QueryFilter"));
  } else if (req.conditional_operator) {
    return expr::ConditionalOperatorWithoutConditions();
  }
  DR_ASSIGN_OR_RETURN(plan.projection,
                      ParseReadProjection(req.projection_expression, req.attributes_to_get,
                                          req.has_attributes_to_get, &ctx));
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  // Then the table, the index, what to return, the start key and the key
  // conditions, in DynamoDB's order.
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(const IndexInfo* index, FindIndex(*table, req.index_name, req.consistent_read));
  DR_ASSIGN_OR_RETURN(SelectChoice select, ChooseSelect(req.select, plan.projection.has_value(),
                                                        req.has_attributes_to_get, index,
                                                        /*scan=*/false));
  if (req.exclusive_start_key) {
    DR_ASSIGN_OR_RETURN(plan.start_after, StartKey(*table, index, *req.exclusive_start_key));
  }
  DR_RETURN_IF_ERROR(CheckReadPaths(*table, index, plan.projection, plan.filter));

  // The key terms matched to the key schema of what is queried, as a key range.
  const KeyDef& key = index ? index->key : table->key;
  if (!req.key_condition_expression && !key.multi_attribute() && terms.size() > 2) {
    return ValidationError("Conditions can be of length 1 or 2 only");
  }
  std::vector<std::string> filter_names;
  if (plan.filter) filter_names = expr::ConditionAttributeNames(*plan.filter);
  DR_ASSIGN_OR_RETURN(KeyRange range,
                      KeyConditionRange(key, index ? index->name : "", index ? index->id : table->id,
                                        index != nullptr,
                                        terms, filter_names, req.filter_expression.has_value()));
  plan.lower = std::move(range.lower);
  plan.upper = std::move(range.upper);

  plan.index = index;
  plan.consistent_read = req.consistent_read;
  plan.return_consumed_capacity = req.return_consumed_capacity;
  plan.encoded = req.encoded_items;
  plan.table_name = req.table_name;
  plan.forward = req.scan_index_forward;
  plan.limit = req.limit.value_or(0);
  plan.count_only = select.count_only;
  plan.all_attributes = select.all_attributes;
  plan.fetch_from_table = NeedsTableFetch(*table, index, select, plan.projection, plan.filter);
  if (plan.start_after) {
    const std::string& start = *plan.start_after;
    if (!(plan.lower <= start && start < plan.upper) &&
        !(start == plan.upper && !plan.forward)) {
      return ValidationError(
          "The provided starting key is outside query boundaries based on provided conditions");
    }
  }
  return RunRead(*table, plan);
}

// ---------------------------------------------------------------- Scan

StatusOr<ScanResponse> DBImpl::Scan(const ScanRequest& req) {
  DR_RETURN_IF_ERROR(ValidateTableName(req.table_name, "tableName"));
  DR_RETURN_IF_ERROR(CheckParameters(req));
  if (req.segment.has_value() != req.total_segments.has_value()) {
    return ValidationError(req.segment ? "The TotalSegments parameter is required but was not "
                                         "present in the request when Segment parameter is present"
                                       : "The Segment parameter is required but was not present "
                                         "in the request when parameter TotalSegments is present");
  }
  if (req.total_segments) {
    ConstraintErrors errors;
    if (*req.total_segments < 1 || *req.total_segments > 1000000) {
      errors.Add("Value '" + std::to_string(*req.total_segments) +
                 "' at 'totalSegments' failed to satisfy constraint: Member must have value " +
                 (*req.total_segments < 1 ? "greater than or equal to 1"
                                          : "less than or equal to 1000000"));
    }
    if (*req.segment < 0 || *req.segment > 999999) {
      errors.Add("Value '" + std::to_string(*req.segment) +
                 "' at 'segment' failed to satisfy constraint: Member must have value " +
                 (*req.segment < 0 ? "greater than or equal to 0" : "less than or equal to 999999"));
    }
    DR_RETURN_IF_ERROR(errors.ToStatus());
    if (*req.segment >= *req.total_segments) {
      return ValidationError(
          "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
          "Segment: " + std::to_string(*req.segment) +
          " is not less than TotalSegments: " + std::to_string(*req.total_segments));
    }
  }
  DR_ASSIGN_OR_RETURN(ValueMap values, NormalizeExpressionValues(req.expression_attribute_values));
  expr::ExpressionContext ctx(&req.expression_attribute_names, &values,
                              req.has_expression_attribute_names,
                              req.has_expression_attribute_values);
  DR_RETURN_IF_ERROR(ctx.ValidateMaps());
  ReadPlan plan;
  if (req.filter_expression) {
    DR_ASSIGN_OR_RETURN(plan.filter, expr::ParseCondition(*req.filter_expression,
                                                          expr::ExpressionKind::kFilter, &ctx));
  } else if (req.has_scan_filter && !req.scan_filter.empty()) {
    DR_ASSIGN_OR_RETURN(LegacyConditionMap filter, NormalizeLegacyConditions(req.scan_filter));
    DR_ASSIGN_OR_RETURN(plan.filter,
                        expr::ConditionFromFilter(filter, req.conditional_operator, "ScanFilter"));
  } else if (req.conditional_operator) {
    return expr::ConditionalOperatorWithoutConditions();
  }
  DR_ASSIGN_OR_RETURN(plan.projection,
                      ParseReadProjection(req.projection_expression, req.attributes_to_get,
                                          req.has_attributes_to_get, &ctx));
  DR_RETURN_IF_ERROR(ctx.CheckAllUsed());

  // Then the table, the index, what to return, the start key and the paths, in
  // DynamoDB's order.
  DR_ASSIGN_OR_RETURN(TableInfoPtr table, FindTable(req.table_name));
  DR_ASSIGN_OR_RETURN(const IndexInfo* index, FindIndex(*table, req.index_name, req.consistent_read));
  DR_ASSIGN_OR_RETURN(SelectChoice select, ChooseSelect(req.select, plan.projection.has_value(),
                                                        req.has_attributes_to_get, index,
                                                        /*scan=*/true));
  if (req.exclusive_start_key) {
    DR_ASSIGN_OR_RETURN(plan.start_after, StartKey(*table, index, *req.exclusive_start_key));
  }
  DR_RETURN_IF_ERROR(CheckReadPaths(*table, index, plan.projection, plan.filter));

  const uint32_t prefix_id = index ? index->id : table->id;
  if (req.total_segments) {
    // Segment i covers hashes [i * 2^64 / n, (i + 1) * 2^64 / n).
    const unsigned __int128 space = static_cast<unsigned __int128>(1) << 64;
    const auto n = static_cast<unsigned __int128>(*req.total_segments);
    const auto i = static_cast<unsigned __int128>(*req.segment);
    plan.lower = EncodeHashBound(prefix_id, static_cast<uint64_t>(i * space / n));
    plan.upper = i + 1 == n ? EncodeTablePrefix(prefix_id + 1)
                            : EncodeHashBound(prefix_id, static_cast<uint64_t>((i + 1) * space / n));
  } else {
    plan.lower = EncodeTablePrefix(prefix_id);
    plan.upper = EncodeTablePrefix(prefix_id + 1);
  }
  plan.index = index;
  plan.consistent_read = req.consistent_read;
  plan.return_consumed_capacity = req.return_consumed_capacity;
  plan.encoded = req.encoded_items;
  plan.table_name = req.table_name;
  plan.limit = req.limit.value_or(0);
  plan.count_only = select.count_only;
  plan.all_attributes = select.all_attributes;
  plan.fetch_from_table = NeedsTableFetch(*table, index, select, plan.projection, plan.filter);
  if (plan.start_after) {
    const std::string& start = *plan.start_after;
    if (!(plan.lower <= start && start < plan.upper)) {
      // A key of another segment would silently end this one early.
      return ValidationError(
          "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
          "ExclusiveStartKey with correct Segment. TotalSegments: " +
          std::to_string(req.total_segments.value_or(1)) +
          " Segment: " + std::to_string(req.segment.value_or(0)));
    }
  }
  return RunRead(*table, plan);
}

}  // namespace dynarock
