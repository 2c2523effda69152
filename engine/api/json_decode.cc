// File: engine/api/json_decode.cc
//
// simdjson DOM (error-code API only: nothing here throws) -> request structs
// (the server's side; the client's responses are json_decode_responses.cc). One Decoder per call walks the parsed document; it stops at the first
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

}  // namespace


namespace {

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
                    std::map<std::string, ExpectedAttributeValue, std::less<>>* out, bool* has) {
  *has = d.EachMapObject(o, "Expected", false, [&](std::string_view name, const dom::object& c) {
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


// ---------------------------------------------------------------- per operation


void PutItemBody(Decoder& d, const dom::object& o, PutItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Item", &r->item);
  d.Str(o, "ConditionExpression", &r->condition_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  ExpectedMember(d, o, &r->expected, &r->has_expected);
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
  d.StrList(o, "AttributesToGet", &r->attributes_to_get, /*non_empty=*/true);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void DeleteItemBody(Decoder& d, const dom::object& o, DeleteItemRequest* r) {
  d.TableName(o, &r->table_name);
  d.ReqItem(o, "Key", &r->key);
  d.Str(o, "ConditionExpression", &r->condition_expression);
  NamesMember(d, o, &r->expression_attribute_names, &r->has_expression_attribute_names);
  ValuesMember(d, o, &r->expression_attribute_values, &r->has_expression_attribute_values);
  ExpectedMember(d, o, &r->expected, &r->has_expected);
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
  ExpectedMember(d, o, &r->expected, &r->has_expected);
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
  if (d.StrList(o, "AttributesToGet", &r->attributes_to_get, /*non_empty=*/true)) {
    r->has_attributes_to_get = true;
  }
  d.Int(o, "Limit", "Integer", 1, INT32_MAX, &r->limit);
  d.set_attr_rank(ValueMember::kStartKey);
  d.StartKeyMember(o, &r->exclusive_start_key);
  d.set_attr_rank(ValueMember::kOther);
  d.Bool(o, "ConsistentRead", &r->consistent_read);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

void QueryBody(Decoder& d, const dom::object& o, QueryRequest* r) {
  ReadBody(d, o, r);
  d.Str(o, "KeyConditionExpression", &r->key_condition_expression);
  d.set_attr_rank(ValueMember::kKeyConditions);
  ConditionMapMember(d, o, "KeyConditions", &r->key_conditions, &r->has_key_conditions);
  d.set_attr_rank(ValueMember::kFilter);
  ConditionMapMember(d, o, "QueryFilter", &r->query_filter, &r->has_query_filter);
  d.set_attr_rank(ValueMember::kOther);
  d.Bool(o, "ScanIndexForward", &r->scan_index_forward);
}

void ScanBody(Decoder& d, const dom::object& o, ScanRequest* r) {
  ReadBody(d, o, r);
  d.set_attr_rank(ValueMember::kFilter);
  ConditionMapMember(d, o, "ScanFilter", &r->scan_filter, &r->has_scan_filter);
  d.set_attr_rank(ValueMember::kOther);
  d.Int(o, "Segment", "Integer", 0, 999999, &r->segment);
  d.Int(o, "TotalSegments", "Integer", 1, 1000000, &r->total_segments);
}

}  // namespace

// Shared with the response decoders (json_decoder.h).
void json_internal::KeysAndAttributesBody(Decoder& d, const dom::object& o, KeysAndAttributes* k) {
  dom::array keys;
  if (d.ReqArr(o, "Keys", &keys)) {
    for (dom::element x : keys) {
      k->keys.emplace_back();
      dom::object m;
      if (x.is_null()) continue;
      if (!d.AsObject(x, &m) || !d.ItemBody(m, &k->keys.back())) return;
    }
  }
  d.StrList(o, "AttributesToGet", &k->attributes_to_get, /*non_empty=*/true);
  d.Bool(o, "ConsistentRead", &k->consistent_read);
  d.Str(o, "ProjectionExpression", &k->projection_expression);
  NamesMember(d, o, &k->expression_attribute_names, &k->has_expression_attribute_names);
}

namespace {

void BatchGetItemBody(Decoder& d, const dom::object& o, BatchGetItemRequest* r) {
  d.NonEmpty(o, "RequestItems");
  d.EachMapObject(o, "RequestItems", true, [&](std::string_view table, const dom::object& e) {
    KeysAndAttributesBody(d, e, &r->request_items[std::string(table)]);
  });
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
}

}  // namespace

// Shared with the response decoders (json_decoder.h).
void json_internal::WriteRequestBody(Decoder& d, const dom::object& e, WriteRequest* w) {
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

namespace {

void BatchWriteItemBody(Decoder& d, const dom::object& o, BatchWriteItemRequest* r) {
  d.NonEmpty(o, "RequestItems");
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
  d.NonEmpty(o, "TransactItems");
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
  d.NonEmpty(o, "TransactItems");
  d.EachObject(o, "TransactItems", true, [&](const dom::object& e) {
    TransactWriteItem t;
    TransactWriteItemBody(d, e, &t);
    r->transact_items.push_back(std::move(t));
  });
  d.Str(o, "ClientRequestToken", &r->client_request_token);
  ReturnConsumedCapacityMember(d, o, &r->return_consumed_capacity);
  ReturnItemCollectionMetricsMember(d, o, &r->return_item_collection_metrics);
}


}  // namespace

// ---------------------------------------------------------------- public: requests

StatusOr<PutItemRequest> DecodePutItemRequest(std::string_view body) {
  return DecodeBody<PutItemRequest>(body, PutItemBody);
}
template <>
StatusOr<PutItemRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<PutItemRequest>(body, PutItemBody, malformed);
}
StatusOr<GetItemRequest> DecodeGetItemRequest(std::string_view body) {
  return DecodeBody<GetItemRequest>(body, GetItemBody);
}
template <>
StatusOr<GetItemRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<GetItemRequest>(body, GetItemBody, malformed);
}
StatusOr<DeleteItemRequest> DecodeDeleteItemRequest(std::string_view body) {
  return DecodeBody<DeleteItemRequest>(body, DeleteItemBody);
}
template <>
StatusOr<DeleteItemRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<DeleteItemRequest>(body, DeleteItemBody, malformed);
}
StatusOr<UpdateItemRequest> DecodeUpdateItemRequest(std::string_view body) {
  return DecodeBody<UpdateItemRequest>(body, UpdateItemBody);
}
template <>
StatusOr<UpdateItemRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<UpdateItemRequest>(body, UpdateItemBody, malformed);
}
StatusOr<QueryRequest> DecodeQueryRequest(std::string_view body) {
  return DecodeBody<QueryRequest>(body, QueryBody);
}
template <>
StatusOr<QueryRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<QueryRequest>(body, QueryBody, malformed);
}
StatusOr<ScanRequest> DecodeScanRequest(std::string_view body) {
  return DecodeBody<ScanRequest>(body, ScanBody);
}
template <>
StatusOr<ScanRequest> DecodeItemRequest(std::string_view body, MalformedValue* malformed) {
  return DecodeBody<ScanRequest>(body, ScanBody, malformed);
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

StatusOr<PutResourcePolicyRequest> DecodePutResourcePolicyRequest(std::string_view body) {
  return DecodeBody<PutResourcePolicyRequest>(
      body, [](Decoder& d, const dom::object& o, PutResourcePolicyRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        d.ReqStr(o, "Policy", &r->policy);
        d.Str(o, "ExpectedRevisionId", &r->expected_revision_id);
        d.Bool(o, "ConfirmRemoveSelfResourceAccess", &r->confirm_remove_self_resource_access);
      });
}

StatusOr<GetResourcePolicyRequest> DecodeGetResourcePolicyRequest(std::string_view body) {
  return DecodeBody<GetResourcePolicyRequest>(
      body, [](Decoder& d, const dom::object& o, GetResourcePolicyRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
      });
}

StatusOr<DeleteResourcePolicyRequest> DecodeDeleteResourcePolicyRequest(std::string_view body) {
  return DecodeBody<DeleteResourcePolicyRequest>(
      body, [](Decoder& d, const dom::object& o, DeleteResourcePolicyRequest* r) {
        d.ReqStr(o, "ResourceArn", &r->resource_arn);
        d.Str(o, "ExpectedRevisionId", &r->expected_revision_id);
      });
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
