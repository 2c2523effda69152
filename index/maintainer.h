// File: index/maintainer.h
//
// Secondary-index entries: their keys, their projected values, and the deltas a
// write makes to them. Every write stages its index deltas into the same
// WriteBatch as the item, so a table and its indexes change in one atomic commit.
//
// Entry key grammar (see engine/key_codec.h for the components):
//
//   entry_key := partition_prefix(index_id, index_pk) [escaped_key(index_sk)] item_key
//
// The index's sort key is escaped because the item's key follows it; the item key
// makes entries unique (many items may share index keys) and orders ties. The
// value is the projected item (item codec): the table's and the index's keys,
// plus the NonKeyAttributes (INCLUDE) or everything (ALL).
//
// Sparse indexes: an item that lacks an index key attribute has no entry.

#ifndef DYNAROCK_INDEX_MAINTAINER_H_
#define DYNAROCK_INDEX_MAINTAINER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "dynarock/status.h"
#include "engine/capacity.h"
#include "engine/table_info.h"

namespace rocksdb {
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace dynarock {

// The entry key of `item` in `index`, or nullopt when the item has no entry
// (a missing index key attribute, or one of another type).
std::optional<std::string> IndexEntryKey(const TableInfo& table, const IndexInfo& index,
                                         const Item& item);

// The attributes an index entry keeps of `item`.
Item ProjectIndexEntry(const TableInfo& table, const IndexInfo& index, const Item& item);

// Whether `index` keeps every attribute of an item (ProjectionType ALL): its
// entries are the items' own encodings.
bool IndexProjectsAll(const IndexInfo& index);

// The entries `item` has in the table's indexes, for a write of a new item:
// `encoded` is the item's encoding and `size` its DynamoDB size; an index
// projecting every attribute gets those bytes, any other its projection,
// encoded. `entry(index, key, value, value_size)` is called per entry.
void ForEachIndexEntry(
    const TableInfo& table, const Item& item, std::string_view encoded, size_t size,
    const std::function<void(const IndexInfo&, std::string_view key, std::string_view value,
                             size_t value_size)>& entry);

// Whether `name` is projected into `index` (always true for key attributes).
bool IndexProjects(const TableInfo& table, const IndexInfo& index, std::string_view name);

// Refuses an item whose index key attributes have the wrong type, are empty, or
// exceed the key size limits (2048 bytes for a partition key, 1024 for a sort
// key), with DynamoDB's messages; `by_update` selects UpdateItem's wording
// ("The update expression attempted to update the secondary index key ...").
Status CheckIndexKeyTypes(const TableInfo& table, const Item& item, bool by_update = false);

// DynamoDB's refusal of an empty S or B value for index key `name` of `index_name`
// (in an item written, or in a Query's key condition).
Status EmptyIndexKeyValue(std::string_view index_name, std::string_view name, AttrType type);

// The size limit of a multi-attribute key part, summed over its attributes'
// value sizes (dynarock/item_size.h): 2048 bytes for the HASH attributes, 1024
// for the RANGE attributes.
// `values[i]` is the value of `attrs[i]` (a prefix of them in a Query).
Status CheckKeyPartSize(const std::vector<KeyAttribute>& attrs,
                        const std::vector<const AttributeValue*>& values,
                        std::string_view index_name, bool is_hash);

// Statistics deltas of a set of writes, by table or index id: (items,
// bytes), summed over the writes and merged once an id (MergeStats).
using StatsDeltas = std::map<uint32_t, std::pair<int64_t, int64_t>>;

// Stages the index deltas of one item write (old -> new; null = no item)
// into `batch`, and their statistics into `stats`. For an index still being
// backfilled the old item's entry may not exist yet: `entry_exists` tells (it
// is asked only for such indexes, under the item's lock). Adds each index's
// write units to `cost`.
Status StageIndexUpdates(const TableInfo& table, const Item* old_item, const Item* new_item,
                         rocksdb::ColumnFamilyHandle* index_cf,
                         StatsDeltas* stats, rocksdb::WriteBatch* batch,
                         const std::function<bool(const std::string&)>& entry_exists,
                         CapacityCounter* cost = nullptr);

// The catalog statistics key of a table or index id ("s/" fixed32).
std::string StatsKey(uint32_t id);
// A statistics value or delta: two little-endian int64 (item count, bytes),
// summed by the catalog's merge operator so that concurrent writers never
// read-modify-write them. Format: fixed64 count | fixed64 bytes. Never change.
std::string StatsDelta(int64_t count, int64_t bytes);
// Its inverse; a value of another size reads as zeros.
void DecodeStatsDelta(std::string_view value, int64_t* count, int64_t* bytes);
// One Merge an id of `stats` (zero deltas skipped) into `batch`; clears `stats`.
Status MergeStats(rocksdb::ColumnFamilyHandle* stats_cf, StatsDeltas* stats, rocksdb::WriteBatch* batch);

}  // namespace dynarock

#endif  // DYNAROCK_INDEX_MAINTAINER_H_
