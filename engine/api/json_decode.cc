// File: engine/api/json_decode.cc
//
// simdjson DOM (error-code API only: nothing here throws) -> request and response
// structs. One Decoder per call walks the parsed document; it stops at the first
// SerializationException and otherwise collects every shape violation, so the
// reply lists them all as DynamoDB's front end does.
//
// Member paths in messages are the wire names with a lower-case first letter,
// list elements are "<list>.<1-based index>.member", map values
// "<map>.<key>.member": 'transactItems.1.member.update.updateExpression'.

#include "engine/api/json_decode.h"

#include "engine/api/json_decoder.h"

#include <simdjson.h>

#include <span>
#include <utility>

#include "engine/api/base64.h"
#include "engine/table_validation.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;


// ---------------------------------------------------------------- enum mappings

ReturnValue ToReturnValue(std::string_view s) {
  if (s == "ALL_OLD") return ReturnValue::kAllOld;
  if (s == "UPDATED_OLD") return ReturnValue::kUpdatedOld;
  if (s == "ALL_NEW") return ReturnValue::kAllNew;
  if (s == "UPDATED_NEW") return ReturnValue::kUpdatedNew;
  return ReturnValue::kNone;
}

Select ToSelect(std::string_view s) {
  if (s == "ALL_PROJECTED_ATTRIBUTES") return Select::kAllProjectedAttributes;
  if (s == "SPECIFIC_ATTRIBUTES") return Select::kSpecificAttributes;
  if (s == "COUNT") return Select::kCount;
  return Select::kAllAttributes;
}

// ---------------------------------------------------------------- shared members

void ReturnConsumedCapacityMember(Decoder& d, const dom::object& o, ReturnConsumedCapacity* out) {
  std::string s;
  if (!d.Enum(o, "ReturnConsumedCapacity", kReturnConsumedCapacity, &s)) return;
  *out = s == "TOTAL"     ? ReturnConsumedCapacity::kTotal
         : s == "INDEXES" ? ReturnConsumedCapacity::kIndexes
                          : ReturnConsumedCapacity::kNone;
}

void ReturnItemCollectionMetricsMember(Decoder& d, const dom::object& o, bool* out) {
  std::string s;
  if (d.Enum(o, "ReturnItemCollectionMetrics", kReturnItemCollectionMetrics, &s)) {
    *out = s == "SIZE";
  }
}

void ReturnValuesMember(Decoder& d, const dom::object& o, ReturnValue* out) {
  std::string s;
  if (d.Enum(o, "ReturnValues", kReturnValues, &s)) *out = ToReturnValue(s);
}

void ReturnValuesOnFailureMember(Decoder& d, const dom::object& o, bool* out) {
  std::string s;
  if (d.Enum(o, "ReturnValuesOnConditionCheckFailure", kReturnValuesOnConditionCheckFailure, &s)) {
    *out = s == "ALL_OLD";
  }
}

void KeySchemaMember(Decoder& d, const dom::object& o, bool required,
                     std::vector<KeySchemaElement>* out) {
  d.EachObject(o, "KeySchema", required, [&](const dom::object& e) {
    KeySchemaElement k;
    d.ReqStr(e, "AttributeName", &k.attribute_name);
    std::string t;
    if (d.Enum(e, "KeyType", kKeyType, &t, /*required=*/true)) {
      k.key_type = t == "RANGE" ? KeyType::kRange : KeyType::kHash;
    }
    out->push_back(std::move(k));
  });
}

void AttributeDefinitionsMember(Decoder& d, const dom::object& o, bool required,
                                std::vector<AttributeDefinition>* out) {
  d.EachObject(o, "AttributeDefinitions", required, [&](const dom::object& e) {
    AttributeDefinition a;
    d.ReqStr(e, "AttributeName", &a.attribute_name);
    std::string t;
    if (d.Enum(e, "AttributeType", kScalarAttributeType, &t, /*required=*/true)) {
      a.attribute_type = t == "N" ? AttrType::kN : t == "B" ? AttrType::kB : AttrType::kS;
    }
    out->push_back(std::move(a));
  });
}

void ProjectionMember(Decoder& d, const dom::object& o, Projection* out) {
  dom::object p;
  if (!d.ReqObj(o, "Projection", &p)) return;
  Decoder::Scope scope(&d, "projection");
  std::string t;
  if (d.Enum(p, "ProjectionType", kProjectionType, &t)) {
    out->projection_type = t == "KEYS_ONLY" ? ProjectionType::kKeysOnly
                           : t == "INCLUDE" ? ProjectionType::kInclude
                                            : ProjectionType::kAll;
  }
  d.StrList(p, "NonKeyAttributes", &out->non_key_attributes);
}

bool ProvisionedThroughputMember(Decoder& d, const dom::object& o, bool required,
                                 ProvisionedThroughput* out) {
  dom::object p;
  if (!(required ? d.ReqObj(o, "ProvisionedThroughput", &p)
                 : d.Obj(o, "ProvisionedThroughput", &p))) {
    return false;
  }
  Decoder::Scope scope(&d, "provisionedThroughput");
  constexpr int64_t kMax = INT64_MAX;
  if (!d.Int(p, "ReadCapacityUnits", "Long", 1, kMax, &out->read_capacity_units) && !d.failed()) {
    d.Missing("ReadCapacityUnits");
  }
  if (!d.Int(p, "WriteCapacityUnits", "Long", 1, kMax, &out->write_capacity_units) && !d.failed()) {
    d.Missing("WriteCapacityUnits");
  }
  return true;
}

void OptionalThroughput(Decoder& d, const dom::object& o,
                        std::optional<ProvisionedThroughput>* out) {
  ProvisionedThroughput t;
  if (ProvisionedThroughputMember(d, o, false, &t)) *out = t;
}

void StreamSpecificationMember(Decoder& d, const dom::object& o,
                               std::optional<StreamSpecification>* out) {
  dom::object s;
  if (!d.Obj(o, "StreamSpecification", &s)) return;
  Decoder::Scope scope(&d, "streamSpecification");
  StreamSpecification spec;
  if (!d.Bool(s, "StreamEnabled", &spec.stream_enabled) && !d.failed()) d.Missing("StreamEnabled");
  d.Enum(s, "StreamViewType", kStreamViewType, &spec.stream_view_type);
  *out = std::move(spec);
}

void GlobalSecondaryIndexBody(Decoder& d, const dom::object& e, GlobalSecondaryIndex* g) {
  d.ReqStr(e, "IndexName", &g->index_name);
  KeySchemaMember(d, e, true, &g->key_schema);
  ProjectionMember(d, e, &g->projection);
  OptionalThroughput(d, e, &g->provisioned_throughput);
}

void NamesMember(Decoder& d, const dom::object& o, NameMap* names, bool* has) {
  if (d.StrMap(o, "ExpressionAttributeNames", names)) *has = true;
}
void ValuesMember(Decoder& d, const dom::object& o, ValueMap* values, bool* has) {
  if (d.ItemMember(o, "ExpressionAttributeValues", values, "ExpressionAttributeValues")) {
    *has = true;
  }
}

void ConditionMapMember(Decoder& d, const dom::object& o, std::string_view key,
                        LegacyConditionMap* out, bool* has) {
  if (!d.EachMapObject(o, key, false, [&](std::string_view name, const dom::object& c) {
        LegacyCondition cond;
        d.Enum(c, "ComparisonOperator", kComparisonOperator, &cond.comparison_operator,
               /*required=*/true);
        d.AttrList(c, "AttributeValueList", &cond.attribute_value_list);
        out->insert_or_assign(std::string(name), std::move(cond));
      })) {
    return;
  }
  *has = true;
}

void ExpectedMember(Decoder& d, const dom::object& o,
                    std::map<std::string, ExpectedAttributeValue, std::less<>>* out) {
  d.EachMapObject(o, "Expected", false, [&](std::string_view name, const dom::object& c) {
    ExpectedAttributeValue x;
    d.AttrMemberOf(c, "Value", &x.value);
    d.Bool(c, "Exists", &x.exists);
    d.Enum(c, "ComparisonOperator", kComparisonOperator, &x.comparison_operator);
    std::vector<AttributeValue> list;
    if (d.AttrList(c, "AttributeValueList", &list)) x.attribute_value_list = std::move(list);
    out->insert_or_assign(std::string(name), std::move(x));
  });
}

void ConditionalOperatorMember(Decoder& d, const dom::object& o, std::optional<std::string>* out) {
  d.Enum(o, "ConditionalOperator", kConditionalOperator, out);
}

void TagsMember(Decoder& d, const dom::object& o, bool required, std::vector<Tag>* out) {
  d.EachObject(o, "Tags", required, [&](const dom::object& e) {
    Tag t;
    d.ReqStr(e, "Key", &t.key);
    d.ReqStr(e, "Value", &t.value);
    out->push_back(std::move(t));
  });
}

// ---------------------------------------------------------------- per operation

void CreateTableBody(Decoder& d, const dom::object& o, CreateTableRequest* r) {
  AttributeDefinitionsMember(d, o, true, &r->attribute_definitions);
  d.TableName(o, &r->table_name);
  KeySchemaMember(d, o, true, &r->key_schema);
  r->has_local_secondary_indexes =
      d.EachObject(o, "LocalSecondaryIndexes", false, [&](const dom::object& e) {
        LocalSecondaryIndex l;
        d.ReqStr(e, "IndexName", &l.index_name);
        KeySchemaMember(d, e, true, &l.key_schema);
        ProjectionMember(d, e, &l.projection);
        r->local_secondary_indexes.push_back(std::move(l));
      });
  r->has_global_secondary_indexes =
      d.EachObject(o, "GlobalSecondaryIndexes", false, [&](const dom::object& e) {
        GlobalSecondaryIndex g;
        GlobalSecondaryIndexBody(d, e, &g);
        r->global_secondary_indexes.push_back(std::move(g));
      });
  d.Enum(o, "BillingMode", kBillingMode, &r->billing_mode);
  OptionalThroughput(d, o, &r->provisioned_throughput);
  StreamSpecificationMember(d, o, &r->stream_specification);
  TagsMember(d, o, false, &r->tags);
  d.Enum(o, "TableClass", kTableClass, &r->table_class);
  d.Bool(o, "DeletionProtectionEnabled", &r->deletion_protection_enabled);
}

void UpdateTableBody(Decoder& d, const dom::object& o, UpdateTableRequest* r) {
  AttributeDefinitionsMember(d, o, false, &r->attribute_definitions);
  d.TableName(o, &r->table_name);
  d.Enum(o, "BillingMode", kBillingMode, &r->billing_mode);
  OptionalThroughput(d, o, &r->provisioned_throughput);
  d.EachObject(o, "GlobalSecondaryIndexUpdates", false, [&](const dom::object& e) {
    GlobalSecondaryIndexUpdate u;
    dom::object c;
    if (d.Obj(e, "Create", &c)) {
      Decoder::Scope scope(&d, "create");
      GlobalSecondaryIndex g;
      GlobalSecondaryIndexBody(d, c, &g);
      u.create = std::move(g);
    }
    if (d.Obj(e, "Update", &c)) {
      Decoder::Scope scope(&d, "update");
      std::pair<std::string, ProvisionedThroughput> p;
      d.ReqStr(c, "IndexName", &p.first);
      ProvisionedThroughputMember(d, c, true, &p.second);
      u.update = std::move(p);
    }
    if (d.Obj(e, "Delete", &c)) {
      Decoder::Scope scope(&d, "delete");
      std::string name;
      d.ReqStr(c, "IndexName", &name);
      u.delete_index_name = std::move(name);
    }
    r->global_secondary_index_updates.push_back(std::move(u));
  });
  StreamSpecificationMember(d, o, &r->stream_specification);
  d.Bool(o, "DeletionProtectionEnabled", &r->deletion_protection_enabled);
}

void PutItemBody(Decoder& d, const dom::object& o, PutItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Item", &r->item);
  d.Str(o, "ConditionExpression", &r->condition_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  ExpectedMember(d, o, &r->expected);
  ConditionalOperatorMember(d, o, &r->conditional_operator);
  ReturnValuesMember(d, o, &r->return_values);
  ReturnValuesOnFailureMember(d, o, &r->return_values_on_condition_check_failure_all_old);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}

void GetItemBody(Decoder& d, const dom::object& o, GetItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Key", &r->key);
  d.Bool(o, "ConsistentRead", &r->consistent_read);
  d.Str(o, "ProjectionExpression", &r->projection_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  d.StrList(o, "AttributesToGet", &r->attributes_to_get);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void DeleteItemBody(Decoder& d, const dom::object& o, DeleteItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Key", &r->key);
  d.Str(o, "ConditionExpression", &r->condition_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  ExpectedMember(d, o, &r->expected);
  ConditionalOperatorMember(d, o, &r->conditional_operator);
  ReturnValuesMember(d, o, &r->return_values);
  ReturnValuesOnFailureMember(d, o, &r->return_values_on_condition_check_failure_all_old);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}

void UpdateItemBody(Decoder& d, const dom::object& o, UpdateItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Key", &r->key);
  d.Str(o, "UpdateExpression", &r->update_expression);
  d.Str(o, "ConditionExpression", &r->condition_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  if (d.EachMapObject(o, "AttributeUpdates", false,
                      [&](std::string_view name, const dom::object& c) {
                        AttributeValueUpdate u;
                        d.AttrMemberOf(c, "Value", &u.value);
                        d.Enum(c, "Action", kAttributeAction, &u.action);
                        r->attribute_updates.insert_or_assign(std::string(name), std::move(u));
                      })) {
    r->has_attribute_updates = true;
  }
  ExpectedMember(d, o, &r->expected);
  ConditionalOperatorMember(d, o, &r->conditional_operator);
  ReturnValuesMember(d, o, &r->return_values);
  ReturnValuesOnFailureMember(d, o, &r->return_values_on_condition_check_failure_all_old);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}

// Members Query and Scan share.
template <typename R>
void ReadBody(Decoder& d, const dom::object& o, R* r) {
  d.TableName(o, &r->table_name);
  if (d.Str(o, "IndexName", &r->index_name)) {
    ConstraintErrors errors;
    errors.CheckName(*r->index_name, d.PathTo("IndexName"));
    for (const auto& v : errors.violations()) d.Violation(v);
  }
  std::string select;
  if (d.Enum(o, "Select", kSelect, &select)) r->select = ToSelect(select);
  d.Str(o, "FilterExpression", &r->filter_expression);
  d.Str(o, "ProjectionExpression", &r->projection_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  ConditionalOperatorMember(d, o, &r->conditional_operator);
  if (d.StrList(o, "AttributesToGet", &r->attributes_to_get)) r->has_attributes_to_get = true;
  d.Int(o, "Limit", "Integer", 1, INT32_MAX, &r->limit);
  d.set_attr_rank(2);
  d.StartKeyMember(o, &r->exclusive_start_key);
  d.set_attr_rank(100);
  d.Bool(o, "ConsistentRead", &r->consistent_read);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void QueryBody(Decoder& d, const dom::object& o, QueryRequest* r) {
  ReadBody(d, o, r);
  d.Str(o, "KeyConditionExpression", &r->key_condition_expression);
  d.set_attr_rank(3);
  ConditionMapMember(d, o, "KeyConditions", &r->key_conditions, &r->has_key_conditions);
  d.set_attr_rank(1);
  ConditionMapMember(d, o, "QueryFilter", &r->query_filter, &r->has_query_filter);
  d.set_attr_rank(100);
  d.Bool(o, "ScanIndexForward", &r->scan_index_forward);
}

void ScanBody(Decoder& d, const dom::object& o, ScanRequest* r) {
  ReadBody(d, o, r);
  d.set_attr_rank(1);
  ConditionMapMember(d, o, "ScanFilter", &r->scan_filter, &r->has_scan_filter);
  d.set_attr_rank(100);
  d.Int(o, "Segment", "Integer", 0, 999999, &r->segment);
  d.Int(o, "TotalSegments", "Integer", 1, 1000000, &r->total_segments);
}

void KeysAndAttributesBody(Decoder& d, const dom::object& o, KeysAndAttributes* k) {
  dom::array keys;
  if (d.ReqArr(o, "Keys", &keys)) {
    for (dom::element x : keys) {
      k->keys.emplace_back();
      dom::object m;
      if (x.is_null()) continue;
      if (!d.AsObject(x, &m) || !d.ItemBody(m, &k->keys.back())) return;
    }
  }
  d.StrList(o, "AttributesToGet", &k->attributes_to_get);
  d.Bool(o, "ConsistentRead", &k->consistent_read);
  d.Str(o, "ProjectionExpression", &k->projection_expression);
  NamesMember(d, o, &k->expression_attribute_names, &k->has_expression_attribute_names);
}

void BatchGetItemBody(Decoder& d, const dom::object& o, BatchGetItemRequest* r) {
  d.EachMapObject(o, "RequestItems", true, [&](std::string_view table, const dom::object& e) {
    KeysAndAttributesBody(d, e, &r->request_items[std::string(table)]);
  });
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void WriteRequestBody(Decoder& d, const dom::object& e, WriteRequest* w) {
  dom::object p;
  if (d.Obj(e, "PutRequest", &p)) {
    Decoder::Scope scope(&d, "putRequest");
    Item item;
    d.ReqItem(p, "Item", &item);
    w->put_item = std::move(item);
  }
  if (d.Obj(e, "DeleteRequest", &p)) {
    Decoder::Scope scope(&d, "deleteRequest");
    Item key;
    d.ReqItem(p, "Key", &key);
    w->delete_key = std::move(key);
  }
}

void BatchWriteItemBody(Decoder& d, const dom::object& o, BatchWriteItemRequest* r) {
  dom::object items;
  if (d.ReqObj(o, "RequestItems", &items)) {
    for (dom::key_value_pair kv : items) {
      Decoder::Scope scope(&d, "RequestItems", kv.key);
      auto& list = r->request_items[std::string(kv.key)];
      dom::array a;
      if (kv.value.is_null()) continue;
      if (!d.AsArray(kv.value, &a)) return;
      size_t i = 0;
      for (dom::element x : a) {
        Decoder::Scope elem(&d, std::to_string(++i) + ".member");
        list.emplace_back();
        dom::object wo;
        if (x.is_null()) continue;
        if (!d.AsObject(x, &wo)) return;
        WriteRequestBody(d, wo, &list.back());
        if (d.failed()) return;
      }
    }
  }
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}

void TransactGetItemsBody(Decoder& d, const dom::object& o, TransactGetItemsRequest* r) {
  d.EachObject(o, "TransactItems", true, [&](const dom::object& e) {
    TransactGetItem t;
    dom::object g;
    if (d.ReqObj(e, "Get", &g)) {
      Decoder::Scope scope(&d, "get");
      d.ReqItem(g, "Key", &t.key);
      d.ReqStr(g, "TableName", &t.table_name);
      d.Str(g, "ProjectionExpression", &t.projection_expression);
      NamesMember(d, g, &t.expression_attribute_names, &t.has_expression_attribute_names);
    }
    r->transact_items.push_back(std::move(t));
  });
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void TransactWriteItemBody(Decoder& d, const dom::object& e, TransactWriteItem* t) {
  static constexpr struct {
    std::string_view wire;
    std::string_view path;
    TransactWriteItem::Kind kind;
  } kKinds[] = {
      {"ConditionCheck", "conditionCheck", TransactWriteItem::Kind::kConditionCheck},
      {"Put", "put", TransactWriteItem::Kind::kPut},
      {"Delete", "delete", TransactWriteItem::Kind::kDelete},
      {"Update", "update", TransactWriteItem::Kind::kUpdate},
  };
  int kinds = 0;
  for (const auto& k : kKinds) {
    dom::object b;
    if (!d.Obj(e, k.wire, &b)) continue;
    if (++kinds > 1) continue;
    Decoder::Scope scope(&d, k.path);
    t->kind = k.kind;
    d.ReqStr(b, "TableName", &t->table_name);
    if (k.kind == TransactWriteItem::Kind::kPut) {
      d.ReqItem(b, "Item", &t->item);
    } else {
      d.ReqItem(b, "Key", &t->key);
    }
    if (k.kind == TransactWriteItem::Kind::kUpdate) {
      std::string u;
      if (d.ReqStr(b, "UpdateExpression", &u)) t->update_expression = std::move(u);
    }
    if (k.kind == TransactWriteItem::Kind::kConditionCheck) {
      std::string c;
      if (d.ReqStr(b, "ConditionExpression", &c)) t->condition_expression = std::move(c);
    } else {
      d.Str(b, "ConditionExpression", &t->condition_expression);
    }
    NamesMember(d, b, &t->expression_attribute_names, &t->has_expression_attribute_names);
    ValuesMember(d, b, &t->expression_attribute_values, &t->has_expression_attribute_values);
    ReturnValuesOnFailureMember(d, b, &t->return_values_on_condition_check_failure_all_old);
  }
  if (kinds != 1 && !d.failed()) {
    d.AttrError("TransactItems can only contain one of Check, Put, Update or Delete");
  }
}

void TransactWriteItemsBody(Decoder& d, const dom::object& o, TransactWriteItemsRequest* r) {
  d.EachObject(o, "TransactItems", true, [&](const dom::object& e) {
    TransactWriteItem t;
    TransactWriteItemBody(d, e, &t);
    r->transact_items.push_back(std::move(t));
  });
  d.Str(o, "ClientRequestToken", &r->client_request_token);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}


// ---------------------------------------------------------------- client: responses

void KeySchemaList(Decoder& d, const dom::object& o, std::vector<KeySchemaElement>* out) {
  KeySchemaMember(d, o, false, out);
}

void ProjectionOf(Decoder& d, const dom::object& o, Projection* out) {
  dom::object p;
  if (!d.Obj(o, "Projection", &p)) return;
  std::string t;
  if (d.Enum(p, "ProjectionType", kProjectionType, &t)) {
    out->projection_type = t == "KEYS_ONLY" ? ProjectionType::kKeysOnly
                           : t == "INCLUDE" ? ProjectionType::kInclude
                                            : ProjectionType::kAll;
  }
  d.StrList(p, "NonKeyAttributes", &out->non_key_attributes);
}

void ThroughputDescription(Decoder& d, const dom::object& o, ProvisionedThroughputDescription* t) {
  d.Double(o, "LastIncreaseDateTime", &t->last_increase_date_time);
  d.Double(o, "LastDecreaseDateTime", &t->last_decrease_date_time);
  d.Int64(o, "NumberOfDecreasesToday", &t->number_of_decreases_today);
  d.Int64(o, "ReadCapacityUnits", &t->read_capacity_units);
  d.Int64(o, "WriteCapacityUnits", &t->write_capacity_units);
}

void IndexDescriptions(Decoder& d, const dom::object& o, std::string_view key,
                       std::vector<IndexDescription>* out) {
  d.EachObject(o, key, false, [&](const dom::object& e) {
    IndexDescription x;
    d.Str(e, "IndexName", &x.index_name);
    KeySchemaList(d, e, &x.key_schema);
    ProjectionOf(d, e, &x.projection);
    d.Str(e, "IndexStatus", &x.index_status);
    d.Bool(e, "Backfilling", &x.backfilling);
    dom::object t;
    if (d.Obj(e, "ProvisionedThroughput", &t)) {
      ProvisionedThroughputDescription p;
      ThroughputDescription(d, t, &p);
      x.provisioned_throughput = p;
    }
    d.Int64(e, "IndexSizeBytes", &x.index_size_bytes);
    d.Int64(e, "ItemCount", &x.item_count);
    d.Str(e, "IndexArn", &x.index_arn);
    out->push_back(std::move(x));
  });
}

void TableDescriptionOf(Decoder& d, const dom::object& o, std::string_view key,
                        TableDescription* t) {
  dom::object x;
  if (!d.Obj(o, key, &x)) return;
  Decoder::Scope scope(&d, MemberName(key));
  AttributeDefinitionsMember(d, x, false, &t->attribute_definitions);
  d.Str(x, "TableName", &t->table_name);
  KeySchemaList(d, x, &t->key_schema);
  d.Str(x, "TableStatus", &t->table_status);
  d.Double(x, "CreationDateTime", &t->creation_date_time);
  dom::object p;
  if (d.Obj(x, "ProvisionedThroughput", &p)) ThroughputDescription(d, p, &t->provisioned_throughput);
  if (d.Obj(x, "BillingModeSummary", &p)) {
    d.Str(p, "BillingMode", &t->billing_mode);
    d.Double(p, "LastUpdateToPayPerRequestDateTime", &t->last_update_to_pay_per_request_date_time);
  }
  d.Int64(x, "TableSizeBytes", &t->table_size_bytes);
  d.Int64(x, "ItemCount", &t->item_count);
  d.Str(x, "TableArn", &t->table_arn);
  d.Str(x, "TableId", &t->table_id);
  IndexDescriptions(d, x, "LocalSecondaryIndexes", &t->local_secondary_indexes);
  IndexDescriptions(d, x, "GlobalSecondaryIndexes", &t->global_secondary_indexes);
  if (d.Obj(x, "StreamSpecification", &p)) {
    StreamSpecification s;
    d.Bool(p, "StreamEnabled", &s.stream_enabled);
    d.Str(p, "StreamViewType", &s.stream_view_type);
    t->stream_specification = std::move(s);
  }
  if (d.Obj(x, "TableClassSummary", &p)) d.Str(p, "TableClass", &t->table_class);
  d.Bool(x, "DeletionProtectionEnabled", &t->deletion_protection_enabled);
}

void CapacityOf(Decoder& d, const dom::object& o, Capacity* c) {
  d.Double(o, "ReadCapacityUnits", &c->read_capacity_units);
  d.Double(o, "WriteCapacityUnits", &c->write_capacity_units);
  d.Double(o, "CapacityUnits", &c->capacity_units);
}

void ConsumedCapacityBody(Decoder& d, const dom::object& o, ConsumedCapacity* c) {
  d.Str(o, "TableName", &c->table_name);
  d.Double(o, "CapacityUnits", &c->capacity_units);
  d.Double(o, "ReadCapacityUnits", &c->read_capacity_units);
  d.Double(o, "WriteCapacityUnits", &c->write_capacity_units);
  dom::object t;
  if (d.Obj(o, "Table", &t)) {
    Capacity cap;
    CapacityOf(d, t, &cap);
    c->table = cap;
  }
  d.EachMapObject(o, "LocalSecondaryIndexes", false, [&](std::string_view name, const dom::object& e) {
    CapacityOf(d, e, &c->local_secondary_indexes[std::string(name)]);
  });
  d.EachMapObject(o, "GlobalSecondaryIndexes", false, [&](std::string_view name, const dom::object& e) {
    CapacityOf(d, e, &c->global_secondary_indexes[std::string(name)]);
  });
}

void ConsumedCapacityOf(Decoder& d, const dom::object& o, std::optional<ConsumedCapacity>* out) {
  dom::object c;
  if (!d.Obj(o, "ConsumedCapacity", &c)) return;
  ConsumedCapacity cap;
  ConsumedCapacityBody(d, c, &cap);
  *out = std::move(cap);
}

bool ConsumedCapacityListOf(Decoder& d, const dom::object& o, std::vector<ConsumedCapacity>* out) {
  return d.EachObject(o, "ConsumedCapacity", false, [&](const dom::object& e) {
    ConsumedCapacity cap;
    ConsumedCapacityBody(d, e, &cap);
    out->push_back(std::move(cap));
  });
}

void ItemCollectionMetricsBody(Decoder& d, const dom::object& o, ItemCollectionMetrics* m) {
  d.ItemMember(o, "ItemCollectionKey", &m->item_collection_key);
  dom::array a;
  if (d.Arr(o, "SizeEstimateRangeGB", &a)) {
    for (dom::element x : a) {
      double v = 0;
      if (x.get_double().get(v) != simdjson::SUCCESS) {
        d.WrongScalar(x, "Double");
        return;
      }
      m->size_estimate_range_gb.push_back(v);
    }
  }
}

void MetricsMapOf(Decoder& d, const dom::object& o,
                  std::map<std::string, std::vector<ItemCollectionMetrics>>* out) {
  dom::object m;
  if (!d.Obj(o, "ItemCollectionMetrics", &m)) return;
  for (dom::key_value_pair kv : m) {
    auto& list = (*out)[std::string(kv.key)];
    dom::array a;
    if (kv.value.is_null()) continue;
    if (!d.AsArray(kv.value, &a)) return;
    for (dom::element x : a) {
      dom::object e;
      if (!d.AsObject(x, &e)) return;
      list.emplace_back();
      ItemCollectionMetricsBody(d, e, &list.back());
    }
  }
}

template <typename R>
void WriteResponseBody(Decoder& d, const dom::object& o, R* r) {
  d.ItemMember(o, "Attributes", &r->attributes);
  ConsumedCapacityOf(d, o, &r->consumed_capacity);
  dom::object m;
  if (d.Obj(o, "ItemCollectionMetrics", &m)) {
    ItemCollectionMetrics x;
    ItemCollectionMetricsBody(d, m, &x);
    r->item_collection_metrics = std::move(x);
  }
}

void QueryResponseBody(Decoder& d, const dom::object& o, QueryResponse* r) {
  dom::array a;
  if (d.Arr(o, "Items", &a)) {
    for (dom::element x : a) {
      dom::object m;
      if (!d.AsObject(x, &m)) return;
      r->items.emplace_back();
      if (!d.ItemBody(m, &r->items.back())) return;
    }
  }
  d.Int64(o, "Count", &r->count);
  d.Int64(o, "ScannedCount", &r->scanned_count);
  d.ItemMember(o, "LastEvaluatedKey", &r->last_evaluated_key);
  ConsumedCapacityOf(d, o, &r->consumed_capacity);
}

void WriteRequestMapOf(Decoder& d, const dom::object& o, std::string_view key,
                       std::map<std::string, std::vector<WriteRequest>>* out) {
  dom::object items;
  if (!d.Obj(o, key, &items)) return;
  for (dom::key_value_pair kv : items) {
    auto& list = (*out)[std::string(kv.key)];
    dom::array a;
    if (kv.value.is_null()) continue;
    if (!d.AsArray(kv.value, &a)) return;
    for (dom::element x : a) {
      dom::object wo;
      if (!d.AsObject(x, &wo)) return;
      list.emplace_back();
      WriteRequestBody(d, wo, &list.back());
    }
  }
}

// An ErrorType from the "__type" of an error reply.
bool ErrorTypeOfWire(std::string_view wire, ErrorType* type) {
  size_t hash = wire.rfind('#');
  if (hash != std::string_view::npos) wire.remove_prefix(hash + 1);
  return ParseErrorTypeName(wire, type);
}
}  // namespace

// ---------------------------------------------------------------- public: requests

StatusOr<CreateTableRequest> DecodeCreateTableRequest(std::string_view body) {
  return DecodeBody<CreateTableRequest>(body, CreateTableBody);
}

StatusOr<DescribeTableRequest> DecodeDescribeTableRequest(std::string_view body) {
  return DecodeBody<DescribeTableRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeTableRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<DeleteTableRequest> DecodeDeleteTableRequest(std::string_view body) {
  return DecodeBody<DeleteTableRequest>(
      body, [](Decoder& d, const dom::object& o, DeleteTableRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<ListTablesRequest> DecodeListTablesRequest(std::string_view body) {
  return DecodeBody<ListTablesRequest>(
      body, [](Decoder& d, const dom::object& o, ListTablesRequest* r) {
        d.Str(o, "ExclusiveStartTableName", &r->exclusive_start_table_name);
        d.Int(o, "Limit", "Integer", 1, 100, &r->limit);
      });
}

StatusOr<UpdateTableRequest> DecodeUpdateTableRequest(std::string_view body) {
  return DecodeBody<UpdateTableRequest>(body, UpdateTableBody);
}
StatusOr<PutItemRequest> DecodePutItemRequest(std::string_view body) {
  return DecodeBody<PutItemRequest>(body, PutItemBody);
}
template <>
StatusOr<PutItemRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<PutItemRequest>(body, PutItemBody, attribute_error);
}
StatusOr<GetItemRequest> DecodeGetItemRequest(std::string_view body) {
  return DecodeBody<GetItemRequest>(body, GetItemBody);
}
template <>
StatusOr<GetItemRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<GetItemRequest>(body, GetItemBody, attribute_error);
}
StatusOr<DeleteItemRequest> DecodeDeleteItemRequest(std::string_view body) {
  return DecodeBody<DeleteItemRequest>(body, DeleteItemBody);
}
template <>
StatusOr<DeleteItemRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<DeleteItemRequest>(body, DeleteItemBody, attribute_error);
}
StatusOr<UpdateItemRequest> DecodeUpdateItemRequest(std::string_view body) {
  return DecodeBody<UpdateItemRequest>(body, UpdateItemBody);
}
template <>
StatusOr<UpdateItemRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<UpdateItemRequest>(body, UpdateItemBody, attribute_error);
}
StatusOr<QueryRequest> DecodeQueryRequest(std::string_view body) {
  return DecodeBody<QueryRequest>(body, QueryBody);
}
template <>
StatusOr<QueryRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<QueryRequest>(body, QueryBody, attribute_error);
}
StatusOr<ScanRequest> DecodeScanRequest(std::string_view body) {
  return DecodeBody<ScanRequest>(body, ScanBody);
}
template <>
StatusOr<ScanRequest> DecodeItemRequest(std::string_view body, Status* attribute_error) {
  return DecodeBody<ScanRequest>(body, ScanBody, attribute_error);
}
StatusOr<BatchGetItemRequest> DecodeBatchGetItemRequest(std::string_view body) {
  return DecodeBody<BatchGetItemRequest>(body, BatchGetItemBody);
}
StatusOr<BatchWriteItemRequest> DecodeBatchWriteItemRequest(std::string_view body) {
  return DecodeBody<BatchWriteItemRequest>(body, BatchWriteItemBody);
}
StatusOr<TransactGetItemsRequest> DecodeTransactGetItemsRequest(std::string_view body) {
  return DecodeBody<TransactGetItemsRequest>(body, TransactGetItemsBody);
}
StatusOr<TransactWriteItemsRequest> DecodeTransactWriteItemsRequest(std::string_view body) {
  return DecodeBody<TransactWriteItemsRequest>(body, TransactWriteItemsBody);
}

StatusOr<UpdateTimeToLiveRequest> DecodeUpdateTimeToLiveRequest(std::string_view body) {
  return DecodeBody<UpdateTimeToLiveRequest>(
      body, [](Decoder& d, const dom::object& o, UpdateTimeToLiveRequest* r) {
        d.TableName(o, &r->table_name);
        dom::object s;
        if (d.ReqObj(o, "TimeToLiveSpecification", &s)) {
          Decoder::Scope scope(&d, "timeToLiveSpecification");
          auto& spec = r->time_to_live_specification;
          if (!d.Bool(s, "Enabled", &spec.enabled) && !d.failed()) d.Missing("Enabled");
          d.ReqStr(s, "AttributeName", &spec.attribute_name);
        }
      });
}

StatusOr<DescribeTimeToLiveRequest> DecodeDescribeTimeToLiveRequest(std::string_view body) {
  return DecodeBody<DescribeTimeToLiveRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeTimeToLiveRequest* r) {
        d.BareTableName(o, &r->table_name);
      });
}

StatusOr<DescribeContinuousBackupsRequest> DecodeDescribeContinuousBackupsRequest(
    std::string_view body) {
  return DecodeBody<DescribeContinuousBackupsRequest>(
      body, [](Decoder& d, const dom::object& o, DescribeContinuousBackupsRequest* r) {
        d.TableName(o, &r->table_name);
      });
}

StatusOr<UpdateContinuousBackupsRequest> DecodeUpdateContinuousBackupsRequest(
    std::string_view body) {
  return DecodeBody<UpdateContinuousBackupsRequest>(
      body, [](Decoder& d, const dom::object& o, UpdateContinuousBackupsRequest* r) {
        d.TableName(o, &r->table_name);
        dom::object s;
        if (d.ReqObj(o, "PointInTimeRecoverySpecification", &s)) {
          Decoder::Scope scope(&d, "pointInTimeRecoverySpecification");
          if (!d.Bool(s, "PointInTimeRecoveryEnabled", &r->point_in_time_recovery_enabled) &&
              !d.failed()) {
            d.Missing("PointInTimeRecoveryEnabled");
          }
          d.Int(s, "RecoveryPeriodInDays", "Integer", 1, 35, &r->recovery_period_in_days);
        }
      });
}

StatusOr<TagResourceRequest> DecodeTagResourceRequest(std::string_view body) {
  return DecodeBody<TagResourceRequest>(
      body, [](Decoder& d, const dom::object& o, TagResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        TagsMember(d, o, true, &r->tags);
      });
}

StatusOr<UntagResourceRequest> DecodeUntagResourceRequest(std::string_view body) {
  return DecodeBody<UntagResourceRequest>(
      body, [](Decoder& d, const dom::object& o, UntagResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        if (!d.StrList(o, "TagKeys", &r->tag_keys) && !d.failed()) d.Missing("TagKeys");
      });
}

StatusOr<ListTagsOfResourceRequest> DecodeListTagsOfResourceRequest(std::string_view body) {
  return DecodeBody<ListTagsOfResourceRequest>(
      body, [](Decoder& d, const dom::object& o, ListTagsOfResourceRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        d.Str(o, "NextToken", &r->next_token);
      });
}

// ---------------------------------------------------------------- public: responses

StatusOr<CreateTableResponse> DecodeCreateTableResponse(std::string_view body) {
  return DecodeBody<CreateTableResponse>(
      body, [](Decoder& d, const dom::object& o, CreateTableResponse* r) {
        TableDescriptionOf(d, o, "TableDescription", &r->table_description);
      });
}
StatusOr<DescribeTableResponse> DecodeDescribeTableResponse(std::string_view body) {
  return DecodeBody<DescribeTableResponse>(
      body, [](Decoder& d, const dom::object& o, DescribeTableResponse* r) {
        TableDescriptionOf(d, o, "Table", &r->table);
      });
}
StatusOr<DeleteTableResponse> DecodeDeleteTableResponse(std::string_view body) {
  return DecodeBody<DeleteTableResponse>(
      body, [](Decoder& d, const dom::object& o, DeleteTableResponse* r) {
        TableDescriptionOf(d, o, "TableDescription", &r->table_description);
      });
}
StatusOr<UpdateTableResponse> DecodeUpdateTableResponse(std::string_view body) {
  return DecodeBody<UpdateTableResponse>(
      body, [](Decoder& d, const dom::object& o, UpdateTableResponse* r) {
        TableDescriptionOf(d, o, "TableDescription", &r->table_description);
      });
}
StatusOr<ListTablesResponse> DecodeListTablesResponse(std::string_view body) {
  return DecodeBody<ListTablesResponse>(
      body, [](Decoder& d, const dom::object& o, ListTablesResponse* r) {
        d.StrList(o, "TableNames", &r->table_names);
        d.Str(o, "LastEvaluatedTableName", &r->last_evaluated_table_name);
      });
}
StatusOr<PutItemResponse> DecodePutItemResponse(std::string_view body) {
  return DecodeBody<PutItemResponse>(body, WriteResponseBody<PutItemResponse>);
}
StatusOr<DeleteItemResponse> DecodeDeleteItemResponse(std::string_view body) {
  return DecodeBody<DeleteItemResponse>(body, WriteResponseBody<DeleteItemResponse>);
}
StatusOr<UpdateItemResponse> DecodeUpdateItemResponse(std::string_view body) {
  return DecodeBody<UpdateItemResponse>(body, WriteResponseBody<UpdateItemResponse>);
}
StatusOr<GetItemResponse> DecodeGetItemResponse(std::string_view body) {
  return DecodeBody<GetItemResponse>(
      body, [](Decoder& d, const dom::object& o, GetItemResponse* r) {
        d.ItemMember(o, "Item", &r->item);
        ConsumedCapacityOf(d, o, &r->consumed_capacity);
      });
}
StatusOr<QueryResponse> DecodeQueryResponse(std::string_view body) {
  return DecodeBody<QueryResponse>(body, QueryResponseBody);
}
StatusOr<ScanResponse> DecodeScanResponse(std::string_view body) {
  return DecodeBody<ScanResponse>(body, QueryResponseBody);
}
StatusOr<BatchGetItemResponse> DecodeBatchGetItemResponse(std::string_view body) {
  return DecodeBody<BatchGetItemResponse>(
      body, [](Decoder& d, const dom::object& o, BatchGetItemResponse* r) {
        dom::object m;
        if (d.Obj(o, "Responses", &m)) {
          for (dom::key_value_pair kv : m) {
            auto& items = r->responses[std::string(kv.key)];
            dom::array a;
            if (kv.value.is_null()) continue;
            if (!d.AsArray(kv.value, &a)) return;
            for (dom::element x : a) {
              dom::object io;
              if (!d.AsObject(x, &io)) return;
              items.emplace_back();
              if (!d.ItemBody(io, &items.back())) return;
            }
          }
        }
        d.EachMapObject(o, "UnprocessedKeys", false,
                        [&](std::string_view table, const dom::object& e) {
                          KeysAndAttributesBody(d, e, &r->unprocessed_keys[std::string(table)]);
                        });
        r->has_consumed_capacity = ConsumedCapacityListOf(d, o, &r->consumed_capacity);
      });
}
StatusOr<BatchWriteItemResponse> DecodeBatchWriteItemResponse(std::string_view body) {
  return DecodeBody<BatchWriteItemResponse>(
      body, [](Decoder& d, const dom::object& o, BatchWriteItemResponse* r) {
        WriteRequestMapOf(d, o, "UnprocessedItems", &r->unprocessed_items);
        r->has_consumed_capacity = ConsumedCapacityListOf(d, o, &r->consumed_capacity);
        MetricsMapOf(d, o, &r->item_collection_metrics);
      });
}
StatusOr<TransactGetItemsResponse> DecodeTransactGetItemsResponse(std::string_view body) {
  return DecodeBody<TransactGetItemsResponse>(
      body, [](Decoder& d, const dom::object& o, TransactGetItemsResponse* r) {
        r->has_consumed_capacity = ConsumedCapacityListOf(d, o, &r->consumed_capacity);
        d.EachObject(o, "Responses", false, [&](const dom::object& e) {
          std::optional<Item> item;
          d.ItemMember(e, "Item", &item);
          r->responses.push_back(std::move(item));
        });
      });
}
StatusOr<TransactWriteItemsResponse> DecodeTransactWriteItemsResponse(std::string_view body) {
  return DecodeBody<TransactWriteItemsResponse>(
      body, [](Decoder& d, const dom::object& o, TransactWriteItemsResponse* r) {
        r->has_consumed_capacity = ConsumedCapacityListOf(d, o, &r->consumed_capacity);
        MetricsMapOf(d, o, &r->item_collection_metrics);
      });
}

bool ParseErrorTypeName(std::string_view name, ErrorType* type) {
  // Walks past the last known value so that types added to the enum are found
  // too (ErrorTypeName maps values it does not know to "InternalServerError",
  // which the real kInternalServerError matches first).
  for (int i = static_cast<int>(ErrorType::kValidation); i < 64; ++i) {
    ErrorType t = static_cast<ErrorType>(i);
    if (ErrorTypeName(t) == name) {
      *type = t;
      return true;
    }
  }
  return false;
}

Status DecodeErrorResponse(int http_status, std::string_view body) {
  ErrorType fallback = http_status >= 500 ? ErrorType::kInternalServerError : ErrorType::kValidation;
  Decoder d;
  dom::object o;
  std::string wire;
  if (!d.ParseRoot(body, &o) || !d.Str(o, "__type", &wire)) {
    std::string text(body.substr(0, 512));
    return Status(fallback, "HTTP " + std::to_string(http_status) + ": " + text);
  }
  std::string message;
  if (!d.Str(o, "message", &message)) d.Str(o, "Message", &message);
  ErrorType type;
  if (!ErrorTypeOfWire(wire, &type)) {
    std::string name = wire.substr(wire.rfind('#') == std::string::npos ? 0 : wire.rfind('#') + 1);
    return Status(fallback, message.empty() ? name : name + ": " + message);
  }
  Status status(type, std::move(message));
  std::optional<Item> item;
  if (d.ItemMember(o, "Item", &item)) status.WithItem(std::move(*item));
  std::vector<CancellationReason> reasons;
  d.EachObject(o, "CancellationReasons", false, [&](const dom::object& e) {
    CancellationReason r;
    d.Str(e, "Code", &r.code);
    d.Str(e, "Message", &r.message);
    d.ItemMember(e, "Item", &r.item);
    reasons.push_back(std::move(r));
  });
  if (!reasons.empty() && !d.failed()) status.WithCancellationReasons(std::move(reasons));
  return status;
}

StatusOr<AttributeValue> DecodeAttributeValueJson(std::string_view json) {
  Decoder d;
  dom::object root;
  if (!d.ParseRoot(json, &root)) return d.Finish();
  AttributeValue v;
  // Re-walk the root as an element: AttrValue wants the object's members.
  int kinds = 0;
  for (dom::key_value_pair kv : root) {
    if (kv.value.is_null()) continue;
    AttrType type;
    if (!ParseAttrTypeName(kv.key, &type)) continue;
    ++kinds;
    if (!d.AttrMember(type, kv.value, &v)) break;
  }
  if (kinds == 0) {
    d.AttrError("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
  } else if (kinds > 1) {
    d.AttrError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
  }
  Status s = d.Finish();
  if (!s.ok()) return s;
  return v;
}

StatusOr<Item> DecodeItemJson(std::string_view json) {
  Decoder d;
  dom::object root;
  if (!d.ParseRoot(json, &root)) return d.Finish();
  Item item;
  d.ItemBody(root, &item);
  Status s = d.Finish();
  if (!s.ok()) return s;
  return item;
}

}  // namespace dynarock::api
