// File: engine/table_checks.h
//
// The checks CreateTable and UpdateTable share (table_validation.cc and
// table_update_validation.cc): key schemas against attribute definitions,
// projections, provisioned and on-demand throughput, with DynamoDB's messages.
// Internal to those two files.

#ifndef DYNAROCK_ENGINE_TABLE_CHECKS_H_
#define DYNAROCK_ENGINE_TABLE_CHECKS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/table_validation.h"

namespace dynarock::table_checks {

// "[a, b]".
std::string JoinNames(const std::vector<std::string>& names);

// ValidationException "One or more parameter values were invalid: <message>".
Status Invalid(std::string message);

// The attribute definitions the table's and its indexes' key schemas use, in
// the order the table lists them.
std::vector<AttributeDefinition> UsedDefinitions(const TableInfo& info);

// "Some index key attributes are not defined in AttributeDefinitions. Keys:
// [<this schema's keys>], AttributeDefinitions: [<definitions, in order>]".
Status CheckKeysDefined(const std::vector<KeySchemaElement>& ks,
                        const std::vector<AttributeDefinition>& defs);

// The NonKeyAttributes of all a table's indexes count together against the
// limit of 100 (an attribute projected into two indexes counts twice).
Status CheckProjectedTotal(const std::vector<IndexInfo>& indexes);

// Validates a key schema against the attribute definitions. A table's or an
// LSI's key is one HASH attribute and at most one RANGE attribute; a GSI's
// (`multi_attribute`) up to four HASH attributes followed by up to four RANGE
// attributes, all distinct.
Status CheckKeySchema(const std::vector<KeySchemaElement>& ks,
                      const std::vector<AttributeDefinition>& defs, bool multi_attribute = false);

// Read and write capacity units of at least 1, as member constraints of `field`.
void CheckThroughput(const ProvisionedThroughput& t, std::string_view field,
                     ConstraintErrors* errors);

// Capacity units beyond what DynamoDB accepts at all (its account limits are
// far lower): "Given value N for ReadCapacityUnits is out of bounds[ for index X]".
Status CheckThroughputBounds(const ProvisionedThroughput& t, const std::string& index = "");

// Checks `t` for the table (`index` empty) or one of its GSIs whose billing
// mode is, or is becoming, `billing`; `update`: UpdateTable's wording
// (table_checks.cc says where each rule comes from).
Status CheckOnDemandThroughput(const OnDemandThroughput& t, const std::string& billing,
                               bool update, const std::string& index = "");

// Merges a checked `given` into `current`: a value replaces that maximum, -1
// removes it; with neither left there is no OnDemandThroughput.
void ApplyOnDemandThroughput(const OnDemandThroughput& given,
                             std::optional<OnDemandThroughput>* current);

// The member constraints of an index's KeySchema and Projection (`field` is the
// index's member path, e.g. "globalSecondaryIndexes.member"): a key schema of at
// least one element, key and projected attribute names of 1 to 255 bytes.
void CheckIndexMembers(const std::vector<KeySchemaElement>& ks, const Projection& p,
                       const std::string& field, ConstraintErrors* errors);

// A projection's type given, and NonKeyAttributes exactly when it is INCLUDE,
// without duplicates.
Status CheckProjection(const Projection& p, const std::string& index_name);

}  // namespace dynarock::table_checks

#endif  // DYNAROCK_ENGINE_TABLE_CHECKS_H_
