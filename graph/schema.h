// File: graph/schema.h
//
// The key conventions of the graph layer (the seeds' adjacency-list pattern),
// all configurable:
//
//   item            PK (pk_attribute)      SK (sk_attribute)         other attributes
//   node            TYPE#id                TYPE#id                   properties, edge set,
//                                                                    incoming types
//   edge            source node id         EDGETYPE#target node id   properties, rank
//
//   inverted index  (GSI `inverted_index`)  partition key = SK, sort key = rank_attribute
//                   "who points at X with an edge of type T": Query SK = "T#X";
//                   ranked ranges ("rank >= 400-CONTRIBUTOR") on the sort key.
//   type index      (optional GSI `type_index`) partition key = type_attribute,
//                   sort key = PK: every node (and edge) of a type (seed 004).
//
// Every edge carries a rank so that it is in the inverted index: the value of the
// edge type's rank function when it has one (seed 001's gsi0 = "500-LEAD"; seed
// 000's createdDate), the source node id otherwise.
//
// The edge set (seed 001) is a string set attribute on the source node with one
// entry per outgoing edge: "EDGETYPE#target" (the edge's sort key), followed by
// edge_set_rank_separator and the rank for edge types with a rank function
// ("GOALMEMBERSHIP-USER-U1|500-LEAD"). It is written in the same transaction as
// the edge. Edge types opted out of it (relationships nobody expands through
// the set) are left out. A set that would not fit in its node (DynamoDB's
// 400 KB item limit) spills into edge pages: items in the node's partition with
// sort key SEP "edges" SEP label (edge_pages_attribute on the node lists the
// labels), each holding the entries whose hash begins with its label's bits
// (graph/edge_pages.cc). Readers merge the pages back; no rank, so pages stay
// out of the inverted index.
//
// The incoming types (incoming_types_attribute) are a string set on the target
// node: every edge type that has pointed at it, ADDed in the same transaction
// as the edge (never removed: a type without edges left costs DeleteNode one
// empty query). DeleteNode queries the inverted index for each of them, so it
// finds incoming edges of every type, registered in the schema or not.
//
// Numeric ranks: RankByAttribute on an N value ranks by EncodeNumberRank (below),
// so that the S-typed index key sorts numerically.
//
//   Schema s;
//   s.table_name = "records";
//   s.separator = "-";
//   s.rank_attribute = "gsi0";
//   s.RankByProperty("GOALMEMBERSHIP", "memberRole",
//                    {{"LEAD", "500-LEAD"}, {"CONTRIBUTOR", "400-CONTRIBUTOR"}, {"TEAM", "300-TEAM"}});
//   s.OptOutOfEdgeSet("GOALSUBSCRIBER");
//   Status st = EnsureTable(&client, s);

#ifndef DYNAROCK_GRAPH_SCHEMA_H_
#define DYNAROCK_GRAPH_SCHEMA_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::graph {

// One entry of an edge set, parsed: an edge from the node that holds the set.
struct EdgeRef {
  std::string type;
  std::string target;
  std::string rank;  // empty for edge types without a rank function
  friend bool operator==(const EdgeRef&, const EdgeRef&) = default;
};

struct EdgeTypeOptions {
  // The rank (inverted-index sort key) of an edge of this type, from its
  // properties. Unset: the source node id. An empty result also means the source id.
  std::function<std::string(const Item& properties)> rank;
  // Whether edges of this type are entered in their source node's edge set.
  bool in_edge_set = true;
  // When set, AddEdge writes the reverse edge (target -[reverse_type]-> source) in
  // the same transaction by default, and RemoveEdge / DeleteNode remove it. A
  // symmetric relationship (FRIEND) names itself.
  std::string reverse_type;
};

// A secondary index an application declares over node and edge attributes, for
// its own access patterns: up to four partition and four sort attributes, each
// of its own type (DynamoDB's multi-attribute GSI keys), so that e.g. people by
// (country, city) ordered by (age, name) need no concatenated key attribute.
// EnsureTable creates it with the table and checks it on an existing one;
// query it with the Client (QueryRequest.index_name = name).
struct IndexDeclaration {
  struct Attribute {
    std::string name;
    AttrType type = AttrType::kS;  // kS, kN or kB
  };
  std::string name;
  std::vector<Attribute> partition;  // 1 to 4
  std::vector<Attribute> sort;       // 0 to 4
  ProjectionType projection = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;  // for kInclude
};

class Schema {
 public:
  std::string table_name = "graph";
  std::string pk_attribute = "PK";
  std::string sk_attribute = "SK";
  // Between a node type and its id, and between an edge type and its target.
  std::string separator = "#";
  // The inverted GSI: partition key = sk_attribute, sort key = rank_attribute.
  std::string inverted_index = "inverted";
  std::string rank_attribute = "rank";
  // The edge set (a String Set on the source node).
  std::string edge_set_attribute = "edges";
  std::string edge_set_rank_separator = "|";
  // On a node whose edge set spilled into pages: the pages' labels (a String Set).
  std::string edge_pages_attribute = "edgePages";
  // The edge types pointing at a node (a String Set on the target node).
  std::string incoming_types_attribute = "inTypes";
  // Edge types not configured below are in the edge set when this is true.
  bool edge_sets_by_default = true;
  // Optional type index (seed 004): when type_attribute is non-empty, nodes get
  // type_attribute = their type and edges their edge type; when type_index is
  // non-empty too, EnsureTable creates the GSI (type_attribute, pk_attribute).
  std::string type_attribute;
  std::string type_index;
  // Validity intervals (seed 004): N attributes, seconds since the epoch; an edge
  // without valid_to_attribute is current.
  std::string valid_from_attribute = "validFrom";
  std::string valid_to_attribute = "validTo";

  std::map<std::string, EdgeTypeOptions, std::less<>> edge_types;

  // The application's own indexes (IndexDeclaration).
  std::vector<IndexDeclaration> indexes;

  // ---- Configuration helpers
  EdgeTypeOptions& Edge(const std::string& type) { return edge_types[type]; }
  // Rank = the property's value — seed 000's createdDate ordering. S values rank
  // as they are; N values as EncodeNumberRank(value), which sorts numerically
  // (query rank conditions with EncodeNumberRank("1000") too).
  Schema& RankByAttribute(const std::string& type, const std::string& attribute);
  // Rank = a table lookup of an S property (seed 001: memberRole LEAD -> "500-LEAD");
  // values missing from the table rank as `fallback`.
  Schema& RankByProperty(const std::string& type, const std::string& attribute,
                         std::map<std::string, std::string> ranks, std::string fallback = "000");
  Schema& OptOutOfEdgeSet(const std::string& type);
  // type's reverse is reverse_type and reverse_type's reverse is type.
  Schema& Reverse(const std::string& type, const std::string& reverse_type);
  // Declares an index (projection ALL); returns *this for chaining.
  Schema& DeclareIndex(std::string name, std::vector<IndexDeclaration::Attribute> partition,
                       std::vector<IndexDeclaration::Attribute> sort = {});

  // ---- Keys
  std::string NodeId(std::string_view type, std::string_view id) const;
  // "USER#Frodo" -> ("USER", "Frodo"); false without a separator.
  bool SplitNodeId(std::string_view node_id, std::string* type, std::string* id) const;
  std::string NodeType(std::string_view node_id) const;
  std::string EdgeSortKey(std::string_view edge_type, std::string_view target) const;
  bool SplitEdgeSortKey(std::string_view sk, std::string* edge_type, std::string* target) const;
  Item NodeKey(std::string_view node_id) const;
  Item EdgeKey(std::string_view source, std::string_view type, std::string_view target) const;
  // An edge page of `node`: sort key SEP "edges" SEP label. It starts with the
  // separator, which neither a node id nor an edge sort key can (their type
  // comes first), so pages never match a node or an edge type's prefix.
  std::string EdgePageSortKey(std::string_view label) const;
  bool IsEdgePageSortKey(std::string_view sk) const;
  Item EdgePageKey(std::string_view node_id, std::string_view label) const;

  // ---- Per edge type
  const EdgeTypeOptions* Find(std::string_view type) const;
  bool InEdgeSet(std::string_view type) const;
  bool HasRank(std::string_view type) const;
  std::string Rank(std::string_view type, std::string_view source, const Item& properties) const;
  std::string ReverseType(std::string_view type) const;  // empty: none

  // ---- Edge set entries
  std::string EdgeSetEntry(std::string_view type, std::string_view target,
                           std::string_view rank) const;
  bool ParseEdgeSetEntry(std::string_view entry, EdgeRef* out) const;
  // The edge an entry names, without its rank (the same for every version
  // of the edge): a view into `entry`.
  std::string_view EdgeSetEntryEdge(std::string_view entry) const;

  // ---- Validation (ValidationError with a message naming the problem)
  Status Validate() const;
  Status ValidateNodeId(std::string_view node_id) const;
  Status ValidateEdgeType(std::string_view type) const;
  // True for the attributes the layer manages (keys, rank, edge set, edge pages,
  // type, incoming types).
  bool IsReserved(std::string_view attribute) const;
};

// A DynamoDB number (N text) as a string whose byte order is the numeric order,
// for ranks (the inverted index's sort key is a string):
//   zero      "1"
//   positive  "2" + 3 digits (exponent + 200) + the significant digits
//   negative  "0" + 3 digits (799 - exponent) + each digit d as 9-d + "~"
// where value = ±0.d1d2...dn x 10^exponent (no leading or trailing zero digits).
// 999 -> "2203999", 1000 -> "22041", 0.5 -> "22005", -3 -> "07986~". Equal
// numbers encode equally ("1E3" = "1000"). Empty for text that is not a number.
std::string EncodeNumberRank(std::string_view number);

// The CreateTable request for `schema`: PK/SK strings, the inverted GSI (projection
// ALL), when configured the type index, and the declared indexes; on-demand billing.
CreateTableRequest MakeCreateTableRequest(const Schema& schema);

// Creates the table with its indexes when it does not exist, then waits (bounded)
// until the table and its indexes are ACTIVE (AWS creates tables asynchronously).
// An existing table must have the schema's keys and indexes; otherwise a
// ValidationError names what is missing.
Status EnsureTable(client::Client* client, const Schema& schema);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_SCHEMA_H_
