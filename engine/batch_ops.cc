// BatchGetItem and BatchWriteItem.
//
// BatchWriteItem validates every request before writing any, then commits all of
// them in one WriteBatch under their lock stripes: DynamoDB does not promise
// atomicity here, and giving it costs nothing. Nothing is ever left unprocessed
// for throughput reasons, so UnprocessedItems is always empty; BatchGetItem
// returns UnprocessedKeys only past the 16 MB response limit. A table's keys
// read with ConsistentRead false may be stale, as GetItem's (engine/consistency.h).

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <set>
#include <functional>

#include "engine/db_impl.h"
#include "dynarock/item_size.h"
#include "engine/capacity.h"
#include "engine/item_codec.h"
#include "engine/item_validation.h"
#include "engine/limits.h"
#include "engine/request_checks.h"
#include "engine/rocksdb_status.h"
#include "engine/table_validation.h"
#include "index/maintainer.h"

namespace dynarock {

StatusOr<BatchGetItemResponse> DBImpl::BatchGetItem(const BatchGetItemRequest& req) {
  if (req.request_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  size_t total = 0;
  for (const auto& [name, ka] : req.request_items) total += ka.keys.size();
  if (total > static_cast<size_t>(kBatchGetItemsMax)) {
    return ValidationError("Too many items requested for the BatchGetItem call");
  }

  // Validate everything first.
  struct TableRead {
    TableInfoPtr table;
    bool consistent_read = false;
    std::vector<std::pair<Item, std::string>> keys;  // key item, encoded key
    std::optional<expr::ProjectionSpec> projection;
  };
  std::vector<std::pair<std::string, TableRead>> reads;
  std::string scratch;  // each key's encoding in turn
  for (const auto& [name, ka] : req.request_items) {
    DR_RETURN_IF_ERROR(ValidateTableName(name, "requestItems.member.key"));
    if (ka.keys.empty()) {
      return ValidationError(
          "1 validation error detected: Value '[]' at 'requestItems." + name +
          ".member.keys' failed to satisfy constraint: Member must have length greater than or "
          "equal to 1");
    }
    DR_RETURN_IF_ERROR(CheckExpressionMapsUsed(ka.has_expression_attribute_names, false,
                                               ka.projection_expression.has_value(), false));
    DR_RETURN_IF_ERROR(CheckNoMixedParameters(
        {{"AttributesToGet", !ka.attributes_to_get.empty()}},
        {{"ProjectionExpression", ka.projection_expression.has_value()}}));
    TableRead read;
    read.consistent_read = ka.consistent_read;
    expr::ExpressionContext ctx(&ka.expression_attribute_names, nullptr,
                                ka.has_expression_attribute_names, false);
    DR_RETURN_IF_ERROR(ctx.ValidateMaps());
    if (ka.projection_expression) {
      DR_ASSIGN_OR_RETURN(read.projection, expr::ParseProjection(*ka.projection_expression, &ctx));
    } else if (!ka.attributes_to_get.empty()) {
      DR_ASSIGN_OR_RETURN(read.projection, expr::ProjectionFromAttributesToGet(ka.attributes_to_get));
    }
    DR_RETURN_IF_ERROR(ctx.CheckAllUsed());
    // Two keys are duplicates when their normalized items are equal. Equal
    // items have equal encodings (the codec is canonical: names in order,
    // numbers normalized), so only keys whose encodings hash alike are compared.
    std::vector<std::pair<size_t, size_t>> hashes;  // encoding's hash, index in keys
    hashes.reserve(ka.keys.size());
    read.keys.reserve(ka.keys.size());
    for (const auto& key : ka.keys) {
      Item k = key;
      DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&k));
      scratch.clear();
      EncodeItemTo(k, &scratch);
      hashes.emplace_back(std::hash<std::string_view>{}(scratch), read.keys.size());
      read.keys.emplace_back(std::move(k), std::string());
    }
    std::sort(hashes.begin(), hashes.end());
    for (size_t i = 0; i < hashes.size(); ++i) {
      for (size_t j = i + 1; j < hashes.size() && hashes[j].first == hashes[i].first; ++j) {
        if (read.keys[hashes[i].second].first == read.keys[hashes[j].second].first) {
          return ValidationError("Provided list of item keys contains duplicates");
        }
      }
    }
    reads.emplace_back(name, std::move(read));
  }
  // Then the tables: DynamoDB validates the whole request before it looks one up.
  for (auto& [name, read] : reads) {
    DR_ASSIGN_OR_RETURN(read.table, FindTable(name));
    if (read.projection) {
      DR_RETURN_IF_ERROR(CheckKeyPathsScalar(read.projection->paths, *read.table));
    }
    for (auto& [k, encoded] : read.keys) {
      DR_ASSIGN_OR_RETURN(encoded, ItemKey(*read.table, k, false));
    }
  }

  BatchGetItemResponse resp;
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  size_t response_bytes = 0;
  Status status;
  std::map<std::string, CapacityCounter> costs;
  bool full = false;  // the response reached 16 MB: the rest is UnprocessedKeys
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::vector<rocksdb::Slice> slices;
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<rocksdb::Status> statuses;
  for (auto& [name, read] : reads) {
    if (!status.ok()) break;
    auto& out = resp.responses[name];
    CapacityCounter& cost = costs[name];
    // One MultiGet of the table's keys (at most 100), then each in turn.
    const size_t n = read.keys.size();
    slices.clear();
    for (const auto& [unused, encoded] : read.keys) slices.emplace_back(encoded);
    for (auto& value : values) value.Reset();
    values.resize(n);
    statuses.assign(n, rocksdb::Status());
    if (!full) {
      db_->MultiGet(ro, items_cf_, n, slices.data(), values.data(), statuses.data());
    }
    for (size_t i = 0; i < n; ++i) {
      const Item& key_item = read.keys[i].first;
      if (!full) {
        bool found = !statuses[i].IsNotFound();
        if (found && !statuses[i].ok()) {
          status = FromRocksDB(statuses[i]);
          break;
        }
        std::string_view stored(values[i].data(), values[i].size());
        std::optional<std::string> before;
        if (!read.consistent_read && stale_reads_->enabled() &&
            stale_reads_->Stale(read.keys[i].second, change_log_->Now(), &before)) {
          // Eventually consistent: the item as it was before its latest write.
          found = before.has_value();
          stored = found ? std::string_view(*before) : std::string_view();
        }
        // Stored bytes asked for whole go to the response as they are.
        const bool as_stored = found && req.encoded_items && !read.projection;
        ReadResult item;
        if (as_stored) {
          if (!EncodedItemSize(stored, &item.size)) {
            status = InternalError("Corrupt item record");
            break;
          }
        } else if (found) {
          status = ShapeForResponse(stored, read.projection, req.encoded_items, &item);
          if (!status.ok()) break;
        }
        const size_t size = item.size;
        if (response_bytes + size <= kBatchGetResponseBytesMax) {
          // Each key is billed on its own, a missing item at the minimum.
          cost.table += ReadUnits(size, read.consistent_read);
          resp.bytes_read += static_cast<int64_t>(size);
          if (!found) continue;
          response_bytes += size;
          if (as_stored) {
            resp.encoded_responses[name].Append(stored);
          } else if (item.encoded) {
            resp.encoded_responses[name].Append(*item.encoded);
          } else {
            out.push_back(std::move(*item.item));
          }
          continue;
        }
        full = true;
      }
      KeysAndAttributes& un = resp.unprocessed_keys[name];
      if (un.keys.empty()) {
        un = req.request_items.at(name);
        un.keys.clear();
      }
      un.keys.push_back(key_item);
    }
  }
  db_->ReleaseSnapshot(snapshot);
  DR_RETURN_IF_ERROR(status);
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, cost, true));
    }
  }
  return resp;
}

StatusOr<BatchWriteItemResponse> DBImpl::BatchWriteItem(const BatchWriteItemRequest& req) {
  if (req.request_items.empty()) {
    return ValidationError(
        "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy "
        "constraint: Member must have length greater than or equal to 1");
  }
  // One table's list out of 1..25 breaks the map's constraint; lists within it
  // that add up to more than 25 are "too many items".
  size_t total = 0;
  for (const auto& [name, writes] : req.request_items) {
    total += writes.size();
    if (writes.empty() || writes.size() > static_cast<size_t>(kBatchWriteItemsMax)) {
      return ValidationError(
          "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: "
          "Map value must satisfy constraint: [Member must have length less than or equal to "
          "25, Member must have length greater than or equal to 1]");
    }
  }
  if (total > static_cast<size_t>(kBatchWriteItemsMax)) {
    return ValidationError("Too many items requested for the BatchWriteItem call");
  }

  struct Write {
    std::string table_name;  // as the request named it
    TableInfoPtr table;
    std::string key;
    Item key_item;                   // the key attributes
    const Item* put = nullptr;       // the request's item; null: a delete
    std::optional<Item> normalized;  // a copy of it with its numbers normalised, when needed
    size_t new_size = 0;             // the item's size
    // The item to store (null: delete).
    const Item* new_item() const { return normalized ? &*normalized : put; }
  };
  std::vector<Write> writes;
  std::set<std::string> seen;
  // The request on its own first, then its tables (DynamoDB's order).
  for (const auto& [name, requests] : req.request_items) {
    DR_RETURN_IF_ERROR(ValidateTableName(name, "requestItems.member.key"));
    for (const auto& wr : requests) {
      if (wr.put_item.has_value() == wr.delete_key.has_value()) {
        return ValidationError(
            "Supplied AttributeValue has more than one datatypes set, must contain exactly one "
            "of the supported datatypes");
      }
      Write w;
      w.table_name = name;
      if (wr.put_item) {
        // The request's item as it is, unless a number in it needs its normal
        // form: then a normalised copy.
        DR_RETURN_IF_ERROR(ValidateItem(*wr.put_item, &w.normalized, &w.new_size));
        w.put = &*wr.put_item;
        if (w.new_size > kItemSizeBytesMax) {
          return ValidationError("Item size has exceeded the maximum allowed size");
        }
      } else {
        Item key = *wr.delete_key;
        DR_RETURN_IF_ERROR(NormalizeAndValidateItem(&key));
        w.key_item = std::move(key);
      }
      writes.push_back(std::move(w));
    }
  }
  std::map<std::string, TableInfoPtr> tables;
  for (const auto& [name, requests] : req.request_items) {
    DR_ASSIGN_OR_RETURN(tables[name], FindTable(name));
  }
  for (auto& w : writes) {
    w.table = tables.at(w.table_name);
    if (w.put) {
      // A put's key is checked as a key: a missing or mistyped key attribute is
      // "The provided key element does not match the schema" here (captured
      // from DynamoDB), not PutItem's "Missing the key".
      w.key_item = KeyAttributes(w.table->key, *w.new_item());
      DR_ASSIGN_OR_RETURN(w.key, ItemKey(*w.table, w.key_item, false));
      DR_RETURN_IF_ERROR(CheckIndexKeyTypes(*w.table, *w.new_item()));
    } else {
      DR_ASSIGN_OR_RETURN(w.key, ItemKey(*w.table, w.key_item, false));
    }
    if (!seen.insert(w.key).second) {
      return ValidationError("Provided list of item keys contains duplicates");
    }
  }

  std::vector<size_t> stripes;
  for (const auto& w : writes) stripes.push_back(StripeOf(w.key));
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  // Unlocked on every way out, an exception included.
  struct Unlock {
    DBImpl* db;
    std::vector<size_t> locked;
    void Release() {
      for (auto it = locked.rbegin(); it != locked.rend(); ++it) db->Stripe(*it).unlock();
      locked.clear();
    }
    ~Unlock() { Release(); }
  } unlock{this, {}};
  for (size_t s : stripes) {
    Stripe(s).lock();
    unlock.locked.push_back(s);
  }
  // The old versions in one MultiGet (RocksDB probes each table file's
  // filter and index for the whole batch); each decoded only when the write
  // needs more than its size (WriteNeedsOldItem), as ModifyItem does.
  std::vector<rocksdb::Slice> keys;
  keys.reserve(writes.size());
  for (const auto& w : writes) keys.emplace_back(w.key);
  std::vector<rocksdb::PinnableSlice> stored(writes.size());
  std::vector<rocksdb::Status> found(writes.size());
  db_->MultiGet(rocksdb::ReadOptions(), items_cf_, keys.size(), keys.data(), stored.data(),
                found.data());
  Status status;
  WriteSet batch;
  std::map<std::string, CapacityCounter> costs;
  for (size_t i = 0; i < writes.size() && status.ok(); ++i) {
    const Write& w = writes[i];
    if (!found[i].ok() && !found[i].IsNotFound()) {
      status = FromRocksDB(found[i]);
      break;
    }
    // The indexes and stream to maintain are the catalog's current ones,
    // read under the item's lock (as in ModifyItem).
    TableInfoPtr current = CurrentTable(*w.table);
    const TableInfo& info = current ? *current : *w.table;
    const bool old_exists = found[i].ok();
    size_t old_size = 0;
    std::optional<Item> old_item;
    if (old_exists) {
      status = ReadOldVersion(std::string_view(stored[i].data(), stored[i].size()),
                              WriteNeedsOldItem(info), &old_size, &old_item);
      if (!status.ok()) break;
    }
    status = StageWrite(info, w.key, old_exists, old_size, old_item ? &*old_item : nullptr,
                        w.new_item(), w.new_size, &batch, &costs[w.table_name], ChangeOrigin::kUser);
  }
  stored.clear();  // the blocks they pin, before the commit
  if (status.ok()) status = Commit(&batch);
  unlock.Release();  // before the response is built
  DR_RETURN_IF_ERROR(status);
  BatchWriteItemResponse resp;
  if (req.return_item_collection_metrics) {
    // One entry per item collection (partition) written, for tables with LSIs.
    std::set<std::pair<std::string, std::string>> done;
    for (const auto& w : writes) {
      auto m = CollectionMetrics(*w.table, w.key_item, true);
      if (!m) continue;
      const std::string partition = DebugString(m->item_collection_key);
      if (done.emplace(w.table_name, partition).second) {
        resp.item_collection_metrics[w.table_name].push_back(std::move(*m));
      }
    }
  }
  if (req.return_consumed_capacity != ReturnConsumedCapacity::kNone) {
    resp.has_consumed_capacity = true;
    for (const auto& [name, cost] : costs) {
      resp.consumed_capacity.push_back(*ReportCapacity(req.return_consumed_capacity, name, cost, false));
    }
  }
  return resp;
}

}  // namespace dynarock
