// File: graph/schema.cc

#include "graph/schema.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "engine/number.h"

namespace dynarock::graph {

Schema& Schema::RankByAttribute(const std::string& type, const std::string& attribute) {
  edge_types[type].rank = [attribute](const Item& props) -> std::string {
    auto it = props.find(attribute);
    if (it == props.end()) return "";
    if (it->second.is(AttrType::kS)) return it->second.scalar();
    if (it->second.is(AttrType::kN)) return EncodeNumberRank(it->second.scalar());
    return "";
  };
  return *this;
}

Schema& Schema::RankByProperty(const std::string& type, const std::string& attribute,
                               std::map<std::string, std::string> ranks, std::string fallback) {
  edge_types[type].rank = [attribute, ranks = std::move(ranks),
                           fallback = std::move(fallback)](const Item& props) -> std::string {
    auto it = props.find(attribute);
    if (it == props.end() || !it->second.is(AttrType::kS)) return fallback;
    auto r = ranks.find(it->second.scalar());
    return r == ranks.end() ? fallback : r->second;
  };
  return *this;
}

Schema& Schema::OptOutOfEdgeSet(const std::string& type) {
  edge_types[type].in_edge_set = false;
  return *this;
}

Schema& Schema::Reverse(const std::string& type, const std::string& reverse_type) {
  edge_types[type].reverse_type = reverse_type;
  edge_types[reverse_type].reverse_type = type;
  return *this;
}

std::string Schema::NodeId(std::string_view type, std::string_view id) const {
  std::string out;
  out.reserve(type.size() + separator.size() + id.size());
  out.append(type).append(separator).append(id);
  return out;
}

bool Schema::SplitNodeId(std::string_view node_id, std::string* type, std::string* id) const {
  size_t p = node_id.find(separator);
  if (p == std::string_view::npos || p == 0) return false;
  if (type) *type = std::string(node_id.substr(0, p));
  if (id) *id = std::string(node_id.substr(p + separator.size()));
  return true;
}

std::string Schema::NodeType(std::string_view node_id) const {
  std::string type;
  if (!SplitNodeId(node_id, &type, nullptr)) return std::string(node_id);
  return type;
}

std::string Schema::EdgeSortKey(std::string_view edge_type, std::string_view target) const {
  return NodeId(edge_type, target);
}

bool Schema::SplitEdgeSortKey(std::string_view sk, std::string* edge_type,
                              std::string* target) const {
  return SplitNodeId(sk, edge_type, target);
}

Item Schema::NodeKey(std::string_view node_id) const {
  Item key;
  key[pk_attribute] = AttributeValue::S(std::string(node_id));
  key[sk_attribute] = AttributeValue::S(std::string(node_id));
  return key;
}

std::string Schema::EdgePageSortKey(std::string_view label) const {
  return separator + "edges" + separator + std::string(label);
}

bool Schema::IsEdgePageSortKey(std::string_view sk) const {
  return sk.substr(0, separator.size()) == separator;
}

Item Schema::EdgePageKey(std::string_view node_id, std::string_view label) const {
  Item key;
  key[pk_attribute] = AttributeValue::S(std::string(node_id));
  key[sk_attribute] = AttributeValue::S(EdgePageSortKey(label));
  return key;
}

Item Schema::EdgeKey(std::string_view source, std::string_view type,
                     std::string_view target) const {
  Item key;
  key[pk_attribute] = AttributeValue::S(std::string(source));
  key[sk_attribute] = AttributeValue::S(EdgeSortKey(type, target));
  return key;
}

const EdgeTypeOptions* Schema::Find(std::string_view type) const {
  auto it = edge_types.find(type);
  return it == edge_types.end() ? nullptr : &it->second;
}

bool Schema::InEdgeSet(std::string_view type) const {
  const EdgeTypeOptions* o = Find(type);
  return o ? o->in_edge_set : edge_sets_by_default;
}

bool Schema::HasRank(std::string_view type) const {
  const EdgeTypeOptions* o = Find(type);
  return o != nullptr && static_cast<bool>(o->rank);
}

std::string Schema::Rank(std::string_view type, std::string_view source,
                         const Item& properties) const {
  const EdgeTypeOptions* o = Find(type);
  if (o != nullptr && o->rank) {
    std::string r = o->rank(properties);
    if (!r.empty()) return r;
  }
  return std::string(source);
}

std::string Schema::ReverseType(std::string_view type) const {
  const EdgeTypeOptions* o = Find(type);
  return o ? o->reverse_type : std::string();
}

std::string Schema::EdgeSetEntry(std::string_view type, std::string_view target,
                                 std::string_view rank) const {
  std::string out = EdgeSortKey(type, target);
  if (HasRank(type)) out.append(edge_set_rank_separator).append(rank);
  return out;
}

bool Schema::ParseEdgeSetEntry(std::string_view entry, EdgeRef* out) const {
  std::string type, rest;
  if (!SplitEdgeSortKey(entry, &type, &rest)) return false;
  out->rank.clear();
  if (HasRank(type)) {
    size_t p = rest.rfind(edge_set_rank_separator);
    if (p != std::string::npos) {
      out->rank = rest.substr(p + edge_set_rank_separator.size());
      rest.resize(p);
    }
  }
  out->type = std::move(type);
  out->target = std::move(rest);
  return true;
}

std::string_view Schema::EdgeSetEntryEdge(std::string_view entry) const {
  // As ParseEdgeSetEntry splits it, without building its parts.
  const size_t p = entry.find(separator);
  if (p == std::string_view::npos || p == 0 || !HasRank(entry.substr(0, p))) return entry;
  const size_t r = entry.rfind(edge_set_rank_separator);
  if (r == std::string_view::npos || r < p + separator.size()) return entry;
  return entry.substr(0, r);
}

Schema& Schema::DeclareIndex(std::string name,
                             std::vector<IndexDeclaration::Attribute> partition,
                             std::vector<IndexDeclaration::Attribute> sort) {
  IndexDeclaration d;
  d.name = std::move(name);
  d.partition = std::move(partition);
  d.sort = std::move(sort);
  indexes.push_back(std::move(d));
  return *this;
}

namespace {

// A declared index's own rules, and its attributes' types against the types
// the layer and the other declarations give them (`types`).
Status ValidateDeclaration(const Schema& s, const IndexDeclaration& d,
                           std::map<std::string, AttrType>* types) {
  const std::string where = "graph schema: index '" + d.name + "'";
  if (d.name.size() < 3 || d.name.size() > 255) {
    return ValidationError(where + ": an index name has 3 to 255 characters");
  }
  if (d.name == s.inverted_index || d.name == s.type_index) {
    return ValidationError(where + ": the name of one of the layer's own indexes");
  }
  if (d.partition.empty() || d.partition.size() > 4 || d.sort.size() > 4) {
    return ValidationError(where + ": 1 to 4 partition and 0 to 4 sort attributes");
  }
  std::set<std::string> seen;
  for (const auto* part : {&d.partition, &d.sort}) {
    for (const auto& a : *part) {
      if (a.name.empty() || !seen.insert(a.name).second) {
        return ValidationError(where + ": key attributes must be named, each once");
      }
      if (a.type != AttrType::kS && a.type != AttrType::kN && a.type != AttrType::kB) {
        return ValidationError(where + ": key attribute '" + a.name + "' must be S, N or B");
      }
      if (a.name == s.edge_set_attribute || a.name == s.incoming_types_attribute) {
        return ValidationError(where + ": '" + a.name + "' is a set the layer keeps");
      }
      auto [it, added] = types->emplace(a.name, a.type);
      if (!added && it->second != a.type) {
        return ValidationError(where + ": attribute '" + a.name +
                               "' has another type elsewhere in the schema");
      }
    }
  }
  if ((d.projection == ProjectionType::kInclude) == d.non_key_attributes.empty()) {
    return ValidationError(where + ": non-key attributes go with, and only with, INCLUDE");
  }
  return Status::Ok();
}

}  // namespace

Status Schema::Validate() const {
  if (table_name.size() < 3) return ValidationError("graph schema: table name too short");
  if (pk_attribute.empty() || sk_attribute.empty() || pk_attribute == sk_attribute) {
    return ValidationError("graph schema: PK and SK attributes must be distinct and non-empty");
  }
  if (separator.empty()) return ValidationError("graph schema: empty separator");
  if (inverted_index.empty() || rank_attribute.empty()) {
    return ValidationError("graph schema: the inverted index and its rank attribute need names");
  }
  if (edge_set_attribute.empty() || edge_set_rank_separator.empty()) {
    return ValidationError("graph schema: the edge set attribute and rank separator need names");
  }
  if (incoming_types_attribute.empty() || edge_pages_attribute.empty()) {
    return ValidationError("graph schema: the incoming types and edge pages attributes need names");
  }
  {
    std::set<std::string> managed = {pk_attribute, sk_attribute, rank_attribute,
                                     edge_set_attribute, incoming_types_attribute,
                                     edge_pages_attribute};
    if (!type_attribute.empty()) managed.insert(type_attribute);
    if (managed.size() != (type_attribute.empty() ? 6u : 7u)) {
      return ValidationError("graph schema: the layer's attributes (keys, rank, edge set, edge "
                             "pages, incoming types, type) need distinct names");
    }
  }
  if (!type_index.empty() && type_attribute.empty()) {
    return ValidationError("graph schema: a type index needs a type attribute");
  }
  for (const auto& [type, o] : edge_types) DR_RETURN_IF_ERROR(ValidateEdgeType(type));
  // The layer's key attributes are strings.
  std::map<std::string, AttrType> types = {{pk_attribute, AttrType::kS},
                                           {sk_attribute, AttrType::kS},
                                           {rank_attribute, AttrType::kS}};
  if (!type_attribute.empty()) types[type_attribute] = AttrType::kS;
  std::set<std::string> names;
  for (const auto& d : indexes) {
    if (!names.insert(d.name).second) {
      return ValidationError("graph schema: index '" + d.name + "' declared twice");
    }
    DR_RETURN_IF_ERROR(ValidateDeclaration(*this, d, &types));
  }
  return Status::Ok();
}

Status Schema::ValidateNodeId(std::string_view node_id) const {
  std::string type;
  if (!SplitNodeId(node_id, &type, nullptr)) {
    return ValidationError("node id '" + std::string(node_id) + "' is not of the form TYPE" +
                           separator + "id");
  }
  return Status::Ok();
}

Status Schema::ValidateEdgeType(std::string_view type) const {
  if (type.empty()) return ValidationError("empty edge type");
  if (type.find(separator) != std::string_view::npos) {
    return ValidationError("edge type '" + std::string(type) + "' contains the separator '" +
                           separator + "'");
  }
  return Status::Ok();
}

bool Schema::IsReserved(std::string_view a) const {
  return a == pk_attribute || a == sk_attribute || a == rank_attribute ||
         a == edge_set_attribute || a == incoming_types_attribute || a == edge_pages_attribute ||
         (!type_attribute.empty() && a == type_attribute);
}

std::string EncodeNumberRank(std::string_view number) {
  auto parsed = ParseNumber(number);
  if (!parsed.ok()) return "";
  const Decimal& d = *parsed;
  if (d.is_zero()) return "1";
  auto three = [](int v) {
    std::string out = std::to_string(v);
    return std::string(3 - std::min<size_t>(3, out.size()), '0') + out;
  };
  // DynamoDB's exponents (-129..126) keep exponent + 200 and 799 - exponent
  // within three digits.
  if (!d.negative) return "2" + three(d.exponent + 200) + d.digits;
  std::string out = "0" + three(799 - d.exponent);
  for (char c : d.digits) out.push_back(static_cast<char>('9' - (c - '0')));
  out.push_back('~');  // a shorter negative mantissa is the larger number
  return out;
}

CreateTableRequest MakeCreateTableRequest(const Schema& s) {
  CreateTableRequest req;
  req.table_name = s.table_name;
  req.attribute_definitions.push_back({s.pk_attribute, AttrType::kS});
  req.attribute_definitions.push_back({s.sk_attribute, AttrType::kS});
  req.attribute_definitions.push_back({s.rank_attribute, AttrType::kS});
  req.key_schema.push_back({s.pk_attribute, KeyType::kHash});
  req.key_schema.push_back({s.sk_attribute, KeyType::kRange});
  GlobalSecondaryIndex inv;
  inv.index_name = s.inverted_index;
  inv.key_schema.push_back({s.sk_attribute, KeyType::kHash});
  inv.key_schema.push_back({s.rank_attribute, KeyType::kRange});
  inv.projection.projection_type = ProjectionType::kAll;
  req.global_secondary_indexes.push_back(std::move(inv));
  if (!s.type_index.empty()) {
    req.attribute_definitions.push_back({s.type_attribute, AttrType::kS});
    GlobalSecondaryIndex ti;
    ti.index_name = s.type_index;
    ti.key_schema.push_back({s.type_attribute, KeyType::kHash});
    ti.key_schema.push_back({s.pk_attribute, KeyType::kRange});
    ti.projection.projection_type = ProjectionType::kAll;
    req.global_secondary_indexes.push_back(std::move(ti));
  }
  for (const auto& d : s.indexes) {
    GlobalSecondaryIndex g;
    g.index_name = d.name;
    for (const auto* part : {&d.partition, &d.sort}) {
      for (const auto& a : *part) {
        g.key_schema.push_back({a.name, part == &d.partition ? KeyType::kHash : KeyType::kRange});
        bool defined = false;
        for (const auto& def : req.attribute_definitions) defined |= def.attribute_name == a.name;
        if (!defined) req.attribute_definitions.push_back({a.name, a.type});
      }
    }
    g.projection.projection_type = d.projection;
    g.projection.non_key_attributes = d.non_key_attributes;
    req.global_secondary_indexes.push_back(std::move(g));
  }
  req.billing_mode = "PAY_PER_REQUEST";
  return req;
}

namespace {

bool AllActive(const TableDescription& t) {
  if (t.table_status != "ACTIVE") return false;
  for (const IndexDescription& g : t.global_secondary_indexes) {
    if (!g.index_status.empty() && g.index_status != "ACTIVE") return false;
    if (g.backfilling.value_or(false)) return false;
  }
  return true;
}

// An index of `t` named `name` with exactly the key schema `want`.
Status CheckIndex(const TableDescription& t, const std::string& name,
                  const std::vector<KeySchemaElement>& want) {
  std::string key;
  for (const auto& e : want) {
    key += (key.empty() ? "" : ", ") + e.attribute_name +
           (e.key_type == KeyType::kHash ? " HASH" : " RANGE");
  }
  for (const IndexDescription& g : t.global_secondary_indexes) {
    if (g.index_name != name) continue;
    bool ok = g.key_schema.size() == want.size();
    for (size_t i = 0; ok && i < want.size(); ++i) {
      ok = g.key_schema[i].attribute_name == want[i].attribute_name &&
           g.key_schema[i].key_type == want[i].key_type;
    }
    if (!ok) {
      return ValidationError("table " + t.table_name + ": index " + name +
                             " does not have the key (" + key + ")");
    }
    return Status::Ok();
  }
  return ValidationError("table " + t.table_name + " has no global secondary index " + name +
                         " (" + key + "); add it or use another table name");
}

Status CheckIndex(const TableDescription& t, const std::string& name, const std::string& hash,
                  const std::string& range) {
  return CheckIndex(t, name, {{hash, KeyType::kHash}, {range, KeyType::kRange}});
}

}  // namespace

Status EnsureTable(client::Client* client, const Schema& schema) {
  DR_RETURN_IF_ERROR(schema.Validate());
  DescribeTableRequest dreq;
  dreq.table_name = schema.table_name;
  auto d = client->DescribeTable(dreq);
  if (!d.ok()) {
    if (d.status().type() != ErrorType::kResourceNotFound) return d.status();
    auto c = client->CreateTable(MakeCreateTableRequest(schema));
    if (!c.ok() && c.status().type() != ErrorType::kResourceInUse) return c.status();
    d = client->DescribeTable(dreq);
    if (!d.ok()) return d.status();
  }
  const TableDescription* t = &d->table;
  if (t->key_schema.size() != 2 || t->key_schema[0].attribute_name != schema.pk_attribute ||
      t->key_schema[1].attribute_name != schema.sk_attribute) {
    return ValidationError("table " + schema.table_name + " exists without the key (" +
                           schema.pk_attribute + ", " + schema.sk_attribute + ")");
  }
  DR_RETURN_IF_ERROR(
      CheckIndex(*t, schema.inverted_index, schema.sk_attribute, schema.rank_attribute));
  if (!schema.type_index.empty()) {
    DR_RETURN_IF_ERROR(
        CheckIndex(*t, schema.type_index, schema.type_attribute, schema.pk_attribute));
  }
  const CreateTableRequest wanted = MakeCreateTableRequest(schema);
  for (const auto& d : schema.indexes) {
    for (const auto& g : wanted.global_secondary_indexes) {
      if (g.index_name == d.name) DR_RETURN_IF_ERROR(CheckIndex(*t, d.name, g.key_schema));
    }
  }
  // Wait for ACTIVE (immediate on Dynarock; seconds on AWS), at most ~5 minutes.
  for (int i = 0; i < 600 && !AllActive(d->table); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(i < 20 ? 100 : 500));
    d = client->DescribeTable(dreq);
    if (!d.ok()) return d.status();
  }
  if (!AllActive(d->table)) {
    return InternalError("table " + schema.table_name + " did not become ACTIVE in time");
  }
  return Status::Ok();
}

}  // namespace dynarock::graph
