// File: index/key_condition.h
//
// A Query's key condition matched to the key schema it reads (a table's, an
// LSI's, or a GSI's with single- or multi-attribute keys), validated with
// DynamoDB's messages, and turned into the byte range of the keys it selects.
//
// Single-attribute keys: an equality on the partition attribute and at most one
// condition (=, <, <=, >, >=, BETWEEN, begins_with) on the sort attribute.
//
// Multi-attribute GSI keys (up to four partition and four sort attributes): an
// equality on every partition attribute; the sort attributes are constrained
// left to right without gaps, equalities on a prefix and at most one condition
// of any other kind, on the last sort attribute used. The entry keys hold the
// sort attributes as escaped components in schema order (engine/key_codec.h),
// so equalities on a prefix are a byte prefix and the last condition bounds
// the next component.

#ifndef DYNAROCK_INDEX_KEY_CONDITION_H_
#define DYNAROCK_INDEX_KEY_CONDITION_H_

#include <string>
#include <vector>

#include "dynarock/status.h"
#include "engine/expr/expression.h"
#include "engine/table_info.h"

namespace dynarock {

// The keys [lower, upper) a key condition selects.
struct KeyRange {
  std::string lower;
  std::string upper;
};

// Matches `terms` to `key` and checks them: every term names a key attribute,
// the shapes above, value types as declared, BETWEEN bounds in order, no
// begins_with on a number, and key value sizes. `filter_names` are the
// attributes the request's filter reads (a filter may not name a key
// attribute; DynamoDB checks that between the shape and the values).
// `index_name` names the index in size messages; `prefix_id` is the table's or index's key prefix; `escaped_sort` is true for
// index entries, whose sort components are followed by the item key.
StatusOr<KeyRange> KeyConditionRange(const KeyDef& key, std::string_view index_name,
                                     uint32_t prefix_id, bool escaped_sort,
                                     const std::vector<expr::KeyTerm>& terms,
                                     const std::vector<std::string>& filter_names,
                                     bool filter_is_expression);

}  // namespace dynarock

#endif  // DYNAROCK_INDEX_KEY_CONDITION_H_
