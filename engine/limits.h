// File: engine/limits.h
//
// Every DynamoDB limit Dynarock enforces, as a named constant. Source: AWS's
// DynamoDB Developer Guide, "Constraints in Amazon DynamoDB" (formerly
// "Service, account, and table quotas") and the API reference; DynamoDB uses
// binary units (1 KB = 1024 bytes, 1 MB = 1024 KB). Units come last in names.

#ifndef DYNAROCK_ENGINE_LIMITS_H_
#define DYNAROCK_ENGINE_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace dynarock {

// ----- Items and attributes ------------------------------------------------
// Largest item: names + values, as measured by ItemSize (400 KB).
inline constexpr size_t kItemSizeBytesMax = 400 * 1024;
// Partition key value: 1..2048 bytes (S as UTF-8, B raw; N is limited by kNumberDigitsMax).
inline constexpr size_t kPartitionKeyBytesMin = 1;
inline constexpr size_t kPartitionKeyBytesMax = 2048;
// Sort key value: 1..1024 bytes.
inline constexpr size_t kSortKeyBytesMin = 1;
inline constexpr size_t kSortKeyBytesMax = 1024;
// Non-key attribute names (top level and nested): 1..64 KB of UTF-8.
inline constexpr size_t kAttributeNameBytesMin = 1;
inline constexpr size_t kAttributeNameBytesMax = 64 * 1024;
// Names of key attributes (table and index keys) and of projected attributes: 1..255 bytes.
inline constexpr size_t kKeyAttributeNameBytesMax = 255;
// Nesting of L and M values: 32 levels (a top-level attribute value is level 1).
inline constexpr int kNestingDepthMax = 32;
// Document path depth in expressions: 32 components.
inline constexpr int kDocumentPathDepthMax = 32;
// N: significant decimal digits.
inline constexpr int kNumberDigitsMax = 38;
// N: positive range 1E-130 .. 9.9999999999999999999999999999999999999E+125
// (negative likewise), as the decimal exponent of 0.d1d2.. * 10^e.
inline constexpr int kNumberExponentMin = -129;
inline constexpr int kNumberExponentMax = 126;

// ----- Expressions -----------------------------------------------------------
// Any expression string (Condition, Update, Projection, KeyCondition, Filter): 4 KB.
inline constexpr size_t kExpressionBytesMax = 4 * 1024;
// An ExpressionAttributeNames (#name) or ExpressionAttributeValues (:value) token: 255 bytes.
inline constexpr size_t kExpressionTokenBytesMax = 255;
// All substitution variables (names + values) of a request together: 2 MB.
inline constexpr size_t kExpressionSubstitutionBytesMax = 2 * 1024 * 1024;
// Operators and functions in one expression (includes implicit ANDs, commas of SET, ...).
inline constexpr int kExpressionOperatorsMax = 300;
// Operands of the IN comparator (right-hand side list).
inline constexpr int kInOperandsMax = 100;

// ----- Batches and transactions ----------------------------------------------
// BatchGetItem: keys per request, and response size (16 MB).
inline constexpr int kBatchGetItemsMax = 100;
inline constexpr size_t kBatchGetResponseBytesMax = 16 * 1024 * 1024;
// BatchWriteItem: put/delete requests per call, and request size (16 MB).
inline constexpr int kBatchWriteItemsMax = 25;
inline constexpr size_t kBatchWriteRequestBytesMax = 16 * 1024 * 1024;
// TransactWriteItems / TransactGetItems: actions per call.
inline constexpr int kTransactItemsMax = 100;
// TransactWriteItems / TransactGetItems: aggregate size of the items (4 MB).
inline constexpr size_t kTransactBytesMax = 4 * 1024 * 1024;
// ClientRequestToken of TransactWriteItems: 1..36 characters, honoured for 10 minutes.
inline constexpr size_t kClientRequestTokenCharsMax = 36;
inline constexpr int kClientRequestTokenTtlSeconds = 10 * 60;

// ----- Query and Scan ----------------------------------------------------------
// Data read per Query/Scan page before Limit/filters end it: 1 MB.
inline constexpr size_t kQueryPageBytesMax = 1024 * 1024;
// Parallel Scan: TotalSegments 1..1,000,000.
inline constexpr int kScanTotalSegmentsMax = 1000000;

// ----- Tables and indexes ----------------------------------------------------------
// Table names: 3..255 characters of [a-zA-Z0-9_.-].
inline constexpr size_t kTableNameCharsMin = 3;
inline constexpr size_t kTableNameCharsMax = 255;
// Index names: same rule as table names.
inline constexpr size_t kIndexNameCharsMin = 3;
inline constexpr size_t kIndexNameCharsMax = 255;
// Global secondary indexes per table (default quota).
inline constexpr int kGlobalSecondaryIndexesMax = 20;
// Local secondary indexes per table.
inline constexpr int kLocalSecondaryIndexesMax = 5;
// A GSI's multi-attribute key: up to four HASH and four RANGE attributes.
inline constexpr int kIndexKeyAttributesMax = 4;
// Non-key attributes projected (INCLUDE) over all indexes of a table.
inline constexpr int kProjectedAttributesMax = 100;
// Item collection (one partition key value) of a table with LSIs: 10 GB.
inline constexpr uint64_t kItemCollectionBytesMax = 10ULL * 1024 * 1024 * 1024;
// Tables per account and region (default quota).
inline constexpr int kTablesPerAccountMax = 2500;
// Tags per resource.
inline constexpr int kTagsPerResourceMax = 50;

// Capacity unit sizes, for ConsumedCapacity: 4 KB per read unit, 1 KB per write unit.
inline constexpr size_t kReadCapacityUnitBytes = 4 * 1024;
inline constexpr size_t kWriteCapacityUnitBytes = 1024;

static_assert(kItemSizeBytesMax == 409600);
static_assert(kSortKeyBytesMax < kPartitionKeyBytesMax);
static_assert(kKeyAttributeNameBytesMax < kAttributeNameBytesMax);
static_assert(kExpressionTokenBytesMax < kExpressionBytesMax);
static_assert(kBatchWriteItemsMax <= kBatchGetItemsMax);
static_assert(kDocumentPathDepthMax == kNestingDepthMax);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_LIMITS_H_
