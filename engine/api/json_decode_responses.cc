// File: engine/api/json_decode_responses.cc
//
// simdjson DOM -> response structs and errors: the client's side of the
// protocol (client::HttpClient, the replicator), with the same Decoder as the
// requests (json_decode.cc, json_decoder.h).

#include <simdjson.h>

#include <utility>

#include "engine/api/json_decode.h"
#include "engine/api/json_decoder.h"

namespace dynarock::api {
namespace {

using namespace json_internal;  // NOLINT: the decoder machinery
namespace dom = simdjson::dom;


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

void WarmThroughputOf(Decoder& d, const dom::object& o, std::optional<WarmThroughputDescription>* out) {
  dom::object p;
  if (!d.Obj(o, "WarmThroughput", &p)) return;
  WarmThroughputDescription t;
  d.Int64(p, "ReadUnitsPerSecond", &t.read_units_per_second);
  d.Int64(p, "WriteUnitsPerSecond", &t.write_units_per_second);
  d.Str(p, "Status", &t.status);
  *out = std::move(t);
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
    OnDemandThroughputMember(d, e, "OnDemandThroughput", &x.on_demand_throughput);
    WarmThroughputOf(d, e, &x.warm_throughput);
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
  OnDemandThroughputMember(d, x, "OnDemandThroughput", &t->on_demand_throughput);
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
  if (d.Obj(x, "TableClassSummary", &p)) {
    d.Str(p, "TableClass", &t->table_class);
    d.Double(p, "LastUpdateDateTime", &t->table_class_last_update);
  }
  d.Bool(x, "DeletionProtectionEnabled", &t->deletion_protection_enabled);
  WarmThroughputOf(d, x, &t->warm_throughput);
  if (d.Obj(x, "SSEDescription", &p)) {
    d.Str(p, "SSEType", &t->sse_type);
    d.Str(p, "KMSMasterKeyArn", &t->kms_master_key_arn);
  }
  d.Str(x, "GlobalTableVersion", &t->global_table_version);
  d.Str(x, "MultiRegionConsistency", &t->multi_region_consistency);
  d.EachObject(x, "Replicas", false, [&](const dom::object& r) {
    ReplicaDescription rd;
    d.Str(r, "RegionName", &rd.region_name);
    d.Str(r, "ReplicaStatus", &rd.replica_status);
    d.Str(r, "KMSMasterKeyId", &rd.settings.kms_master_key_id);
    auto overrides = [&](const dom::object& o, std::optional<int64_t>* rcu, std::optional<int64_t>* mrru) {
      dom::object p;
      int64_t v = 0;
      if (d.Obj(o, "ProvisionedThroughputOverride", &p) && d.Int64(p, "ReadCapacityUnits", &v)) *rcu = v;
      if (d.Obj(o, "OnDemandThroughputOverride", &p) && d.Int64(p, "MaxReadRequestUnits", &v)) *mrru = v;
    };
    overrides(r, &rd.settings.read_capacity_units, &rd.settings.max_read_request_units);
    d.EachObject(r, "GlobalSecondaryIndexes", false, [&](const dom::object& g) {
      ReplicaGlobalSecondaryIndex gi;
      d.Str(g, "IndexName", &gi.index_name);
      overrides(g, &gi.read_capacity_units, &gi.max_read_request_units);
      rd.settings.global_secondary_indexes.push_back(std::move(gi));
    });
    dom::object c;
    if (d.Obj(r, "ReplicaTableClassSummary", &c)) {
      d.Str(c, "TableClass", &rd.table_class);
      d.Double(c, "LastUpdateDateTime", &rd.table_class_last_update);
    }
    t->replicas.push_back(std::move(rd));
  });
  d.EachObject(x, "GlobalTableWitnesses", false, [&](const dom::object& g) {
    GlobalTableWitness w;
    d.Str(g, "RegionName", &w.region_name);
    d.Str(g, "WitnessStatus", &w.witness_status);
    t->global_table_witnesses.push_back(std::move(w));
  });
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

}  // namespace dynarock::api
