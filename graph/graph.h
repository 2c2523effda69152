// File: graph/graph.h
//
// A property graph in one DynamoDB table (the seeds' adjacency-list pattern; key
// conventions in graph/schema.h), over any client::Client: embedded or any
// DynamoDB-compatible endpoint. See docs/graph.md.
//
//   client::EmbeddedClient client(db.get());
//   Schema schema;                         // PK/SK, "TYPE#id", "EDGETYPE#target"
//   schema.RankByAttribute("FRIEND", "createdDate");
//   Graph g(&client, schema);
//   g.EnsureTable();
//   g.PutNode("USER#Frodo", {{"firstName", AttributeValue::S("Frodo")}});
//   g.AddEdge({"USER#Frodo", "FRIEND", "USER#Gandalf", {{"createdDate", S("3004")}}});
//   auto friends = g.OutEdges("USER#Frodo", "FRIEND");          // Frodo's friends
//   auto fans = g.InEdges("USER#Gandalf", "FRIEND");            // who befriends Gandalf
//
// Consistency: an edge, its edge-set entry, the edge type in its target's set of
// incoming types and (optionally) its reverse edge with its entry are written in
// ONE TransactWriteItems. Calls that write many edges (AddEdges, RemoveEdges,
// DeleteNode) pack whole edges into transactions of at most 100 items and 4 MB:
// each edge is atomic, the call as a whole is not (see WriteReport and
// docs/graph.md, "Transaction splitting").
//
// Thread-safe: a Graph holds no mutable state besides its statistics counters.

#ifndef DYNAROCK_GRAPH_GRAPH_H_
#define DYNAROCK_GRAPH_GRAPH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "client/client.h"
#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "graph/schema.h"

namespace dynarock {
class DB;
class TableLoader;
}  // namespace dynarock

namespace dynarock::graph {

namespace internal {
struct EdgePageCache;
}  // namespace internal

struct Node {
  std::string id;    // "USER#Frodo"
  std::string type;  // "USER"
  Item attributes;   // without the layer's attributes (keys, edge set, type, ...)
  std::vector<EdgeRef> edge_set;
  // Edge types that have pointed at this node (Schema::incoming_types_attribute).
  std::vector<std::string> incoming_types;
};

struct Edge {
  std::string source;
  std::string type;
  std::string target;
  std::string rank;
  Item properties;  // without the keys, the rank and the type attribute
};

// A condition on a sort key: for OutEdges the target node id, for InEdges the rank.
enum class KeyOp : uint8_t { kEq, kLt, kLe, kGt, kGe, kBetween, kBeginsWith };
struct KeyCondition {
  KeyOp op = KeyOp::kEq;
  std::string value;
  std::string value2;  // kBetween's upper bound
  static KeyCondition Eq(std::string v) { return {KeyOp::kEq, std::move(v), {}}; }
  static KeyCondition Lt(std::string v) { return {KeyOp::kLt, std::move(v), {}}; }
  static KeyCondition Le(std::string v) { return {KeyOp::kLe, std::move(v), {}}; }
  static KeyCondition Gt(std::string v) { return {KeyOp::kGt, std::move(v), {}}; }
  static KeyCondition Ge(std::string v) { return {KeyOp::kGe, std::move(v), {}}; }
  static KeyCondition Between(std::string a, std::string b) {
    return {KeyOp::kBetween, std::move(a), std::move(b)};
  }
  static KeyCondition BeginsWith(std::string v) { return {KeyOp::kBeginsWith, std::move(v), {}}; }
};

// A FilterExpression on edge properties, with its own #names and :values. The
// graph layer's own placeholders start with "#g_" and ":g_"; do not use those.
struct Filter {
  std::string expression;
  NameMap names;
  ValueMap values;
};

// Paging: `limit` counts results after the filter. With a filter the layer reads
// full pages (DynamoDB's Limit would count items evaluated, not matches) and
// keeps the first `limit` matches; the page token then resumes right after the
// last result returned, so no match is skipped or repeated across pages.
struct EdgeQuery {
  std::optional<KeyCondition> key;
  std::optional<Filter> filter;
  int64_t limit = 0;        // edges returned (after the filter); 0 = all
  std::string page_token;   // from a previous EdgePage
  bool forward = true;      // ascending sort key
  bool consistent_read = false;  // ignored for InEdges (GSIs are eventually consistent)
};

struct EdgePage {
  std::vector<Edge> edges;
  std::string next_page_token;  // empty when there is nothing more
};

struct NodePage {
  std::vector<Node> nodes;
  std::string next_page_token;
};

struct EdgeSpec {
  std::string source;
  std::string type;
  std::string target;
  Item properties;
};

struct AddEdgeOptions {
  // Write the reverse edge too (of the schema's reverse type, else of the same
  // type). Default: when the schema names a reverse type.
  std::optional<bool> reverse;
  // Fail when the source (or target) node does not exist, instead of creating a
  // stub node that holds only the layer's attributes (edge set, incoming types).
  bool require_nodes = true;
};

struct RemoveEdgeOptions {
  // Remove the reverse edge too, as AddEdgeOptions::reverse wrote it. Default:
  // when the schema names a reverse type.
  std::optional<bool> reverse;
};

// What a multi-edge write did. On an error, the edges of `edges_committed` are
// written (whole transactions), the rest are not: resume from edges_committed.
struct WriteReport {
  int64_t edges_committed = 0;
  int64_t transactions = 0;
};

struct NodeUpdate {
  std::string update_expression;  // "SET #n = :n REMOVE #old"
  std::optional<std::string> condition_expression;
  NameMap names;
  ValueMap values;
};

struct DeleteNodeOptions {
  // Edges deleted per call at most (bounded work); call again to resume.
  int64_t max_edges = 1000;
  // Incoming edges are found through the inverted index, one query per edge type:
  // the types recorded on the node (Schema::incoming_types_attribute, written
  // with every edge) and every type configured in the schema. List more types
  // here for edges written without the layer (or before it recorded types).
  std::vector<std::string> in_edge_types;
};

struct DeleteProgress {
  bool done = false;  // the node and all its edges are gone
  int64_t edges_deleted = 0;
  int64_t transactions = 0;
};

// Seed 001's three steps: (1) the edges of `edge_type` pointing at `node`,
// through the inverted index (optionally a rank range), give the roots; (2) one
// batch get of the roots; (3) one batch get of the neighbours their edge sets name.
struct ExpandRequest {
  std::string node;
  std::string edge_type;
  std::optional<KeyCondition> rank;
  int64_t limit = 0;
  std::string page_token;
  // Edge-set entries to follow (empty: all), and an optional finer choice.
  std::vector<std::string> expand_types;
  std::function<bool(const EdgeRef&)> expand_filter;
  // The neighbours' attributes to read (empty: whole items, their own edge
  // sets included, which for well-connected nodes are most of the bytes).
  std::vector<std::string> neighbour_attributes;
  // false: stop at the roots' edge sets (Expansion::refs, the neighbours' ids):
  // two requests in all, for up to 100 roots.
  bool read_neighbours = true;
};

struct Expansion {
  std::vector<Node> roots;                         // in index order
  std::map<std::string, std::vector<EdgeRef>> refs;  // root id -> followed entries
  std::map<std::string, Node> neighbours;          // by id (missing nodes left out)
  std::string next_page_token;
};

enum class Direction : uint8_t { kOut, kIn };

// One step of a traversal (Graph::Traverse): from every node of the frontier,
// along edges of some types in one direction (out: the adjacency list, one
// Query per node, or the nodes' edge sets; in: the inverted index, one Query
// per node), to the nodes not visited yet.
struct Hop {
  std::vector<std::string> edge_types;  // required for kIn; empty = every type for kOut
  Direction direction = Direction::kOut;
  // On edge properties: sent as the Query's FilterExpression.
  std::optional<Filter> filter;
  // A key condition, with one edge type: out, on the target node id
  // (BeginsWith("USER#")); in, on the rank (rank ranges: Ge("400-CONTRIBUTOR")).
  // Sent as part of the KeyConditionExpression.
  std::optional<KeyCondition> key;
  // Only edges valid at this time (validity intervals, seed 004; seconds since
  // the epoch): valid_from <= at and no valid_to or valid_to >= at. Sent as part
  // of the FilterExpression.
  std::optional<int64_t> valid_at;
  // On the attributes of the nodes the step reaches: the others are left out
  // and not followed. BatchGetItem has no filter, so those nodes are read whole
  // and the condition evaluated here, by DynamoDB's rules for a
  // FilterExpression.
  std::optional<Filter> node_filter;
  int64_t fan_out = 0;                  // neighbours taken per node; 0 = all
  // Read out-neighbours from the frontier's edge sets (one batch get per 100
  // nodes, projected to the edge set) instead of one query per node, when every
  // type is in the edge set and there is no filter, key or valid_at.
  bool use_edge_sets = true;
};

struct TraversalRequest {
  std::vector<std::string> start;  // nodes that must exist
  std::vector<Hop> hops;
  int64_t max_visited = 100000;  // stop discovering once this many nodes are known
  bool fetch_nodes = false;      // fill TraversalResult::nodes (every node visited)
  // Results: the nodes the last hop reaches, in the order found, `limit` at a
  // time (0: all at once). `cursor`: a previous result's next_cursor, for the
  // same traversal (another traversal's cursor is refused); the traversal runs
  // again and its answer continues where that page ended.
  int64_t limit = 0;
  std::string cursor;
};

// What a step did and cost, as `dynarock patterns` reports an access pattern.
// The figures are the Graph's counters over the step: they include any other
// request made through the same Graph meanwhile.
struct TraversalStep {
  std::string plan;        // how the step reads ("Query <table> per node: ...")
  int64_t frontier = 0;    // nodes it started from
  int64_t reached = 0;     // nodes it added
  int64_t requests = 0;
  int64_t items_read = 0;  // items evaluated by queries, returned by gets
  double read_units = 0;   // read capacity consumed
};

struct TraversalResult {
  std::vector<std::vector<std::string>> levels;  // levels[0] = start; levels[k] = new at hop k
  std::map<std::string, Node> nodes;
  bool truncated = false;  // max_visited reached
  std::vector<std::string> results;  // this page of the last level
  std::string next_cursor;           // empty: no more results
  // steps[0]: checking the start nodes; steps[k]: hop k; then reading the nodes
  // (fetch_nodes), when asked.
  std::vector<TraversalStep> steps;
};

struct EdgeSetReport {
  std::string node;
  std::vector<std::string> missing;  // edges without an entry (entries as they should be)
  std::vector<std::string> stale;    // entries without an edge (or with a wrong rank)
  bool repaired = false;
  bool ok() const { return missing.empty() && stale.empty(); }
};

struct GraphStats {
  int64_t requests = 0;
  int64_t items_read = 0;     // items evaluated by queries, returned by gets
  int64_t items_written = 0;  // items in write requests and transactions
  double read_units = 0;      // read capacity the reads consumed (as DynamoDB reports it)
};

class Graph {
 public:
  // `client` is not owned and must outlive the Graph.
  Graph(client::Client* client, Schema schema);

  const Schema& schema() const { return schema_; }
  client::Client* client() const { return client_; }

  // How many independent requests a call may have in flight at once: the
  // batch gets of more than 100 keys, and a traversal step's queries (one per
  // node of its frontier). Results come in the same order either way. Default:
  // 4 for a remote client (Client::remote()), 1 embedded, where a request is
  // a function call. From 1 to 64.
  void set_max_concurrent_requests(int n) { max_concurrent_ = n < 1 ? 1 : n > 64 ? 64 : n; }
  int max_concurrent_requests() const { return max_concurrent_; }

  // Creates the table and its indexes when absent (graph::EnsureTable).
  Status EnsureTable();

  // ---- Nodes
  // Creates the node, or sets the given attributes on an existing one (others,
  // and the edge set, are kept).
  Status PutNode(const std::string& id, const Item& attributes = {});
  StatusOr<std::optional<Node>> GetNode(const std::string& id, bool consistent_read = false);
  // An UpdateItem on an existing node (ConditionalCheckFailed when it does not
  // exist). The update expression may not name the layer's attributes (keys, edge
  // set, rank, type, incoming types): ValidationError. Conditions may read them.
  Status UpdateNode(const std::string& id, const NodeUpdate& update);
  // Batch get, chunked to 100 keys, UnprocessedKeys retried with backoff. The
  // result is aligned with `ids` (nullopt for missing nodes).
  StatusOr<std::vector<std::optional<Node>>> GetNodes(const std::vector<std::string>& ids);
  // Deletes the node's outgoing edges (with their reverse edges), its incoming
  // edges of every type (with their entries in their sources' edge sets) and
  // finally the node, at most max_edges edges per call. Resumable: call again
  // until done.
  StatusOr<DeleteProgress> DeleteNode(const std::string& id, const DeleteNodeOptions& options = {});
  // Nodes of a type through the type index (schema.type_index).
  StatusOr<NodePage> NodesByType(const std::string& type, const EdgeQuery& query = {});

  // ---- Edges
  Status AddEdge(const EdgeSpec& edge, const AddEdgeOptions& options = {});
  StatusOr<WriteReport> AddEdges(const std::vector<EdgeSpec>& edges,
                                 const AddEdgeOptions& options = {});
  // Removes the edge, its edge-set entry and its reverse edge (see
  // RemoveEdgeOptions::reverse) with its entry. Removing a missing edge is not an
  // error. For ranked edge types the stored rank is read first and the delete is
  // conditioned on it, re-read and retried (bounded) when it changed meanwhile.
  Status RemoveEdge(const std::string& source, const std::string& type,
                    const std::string& target, const RemoveEdgeOptions& options = {});
  StatusOr<WriteReport> RemoveEdges(const std::vector<EdgeSpec>& edges,
                                    const RemoveEdgeOptions& options = {});
  StatusOr<std::optional<Edge>> GetEdge(const std::string& source, const std::string& type,
                                        const std::string& target, bool consistent_read = false);

  // Out-neighbours: edges source -> *, of one type (empty: all types), key
  // condition on the target id.
  StatusOr<EdgePage> OutEdges(const std::string& node, const std::string& type,
                              const EdgeQuery& query = {});
  // In-neighbours: edges * -> node of one type, through the inverted index, key
  // condition on the rank ("rank >= 400-CONTRIBUTOR").
  StatusOr<EdgePage> InEdges(const std::string& node, const std::string& type,
                             const EdgeQuery& query = {});
  // Every page of OutEdges / InEdges.
  StatusOr<std::vector<Edge>> AllOutEdges(const std::string& node, const std::string& type,
                                          EdgeQuery query = {});
  StatusOr<std::vector<Edge>> AllInEdges(const std::string& node, const std::string& type,
                                         EdgeQuery query = {});

  // ---- Validity intervals (seed 004)
  // Edges valid at `at`: valid_from <= at and (no valid_to or valid_to >= at).
  StatusOr<std::vector<Edge>> EdgesValidAt(const std::string& node, const std::string& type,
                                           int64_t at, const std::optional<Filter>& filter = {});
  // Edges valid now and open-ended: valid_from <= now and no valid_to (seed 004's
  // "current address"; a future-dated edge is not current yet).
  StatusOr<std::vector<Edge>> CurrentEdges(const std::string& node, const std::string& type,
                                           const std::optional<Filter>& filter = {});

  // ---- Reads over many nodes
  StatusOr<Expansion> Expand(const ExpandRequest& request);
  StatusOr<TraversalResult> Traverse(const TraversalRequest& request);
  // Nodes both a and b have an edge of `type` to (kOut) or from (kIn), sorted.
  // Out-neighbours come from the two edge sets (one batch get) when the type is
  // in the edge set, from two queries otherwise.
  StatusOr<std::vector<std::string>> MutualNeighbours(const std::string& a, const std::string& b,
                                                      const std::string& type,
                                                      Direction direction = Direction::kOut);

  // ---- Edge sets
  // Compares the node's edge set with its edge items; with `repair`, rewrites the
  // set (conditionally on it not having changed meanwhile).
  StatusOr<EdgeSetReport> VerifyEdgeSet(const std::string& node, bool repair = false);

  // ---- Statistics (cumulative; for benchmarks and tests)
  GraphStats stats() const;
  void ResetStats();

  // Converts items read from the table.
  Node ToNode(const Item& item) const;
  Edge ToEdge(const Item& item) const;

  // ---- Internal, used by BulkLoader and the implementation
  struct Counters {
    std::atomic<int64_t> requests{0}, items_read{0}, items_written{0};
    std::atomic<double> read_units{0};
    void Add(const std::optional<ConsumedCapacity>& c) {
      if (c) read_units += c->capacity_units;
    }
  };
  Counters& counters() const { return counters_; }

 private:
  friend class TxnPlanner;
  friend class BulkLoader;
  // Runs `req` page by page, handing each item to `take` (true: kept) until
  // query.limit items are kept; returns the next page token. `key_attributes`
  // are the table's and the index's key attributes (a token resuming after the
  // last item kept). `dropped_per_page`: items `take` may refuse without a filter.
  StatusOr<std::string> PagedQuery(QueryRequest req, const EdgeQuery& query,
                                   const std::vector<std::string>& key_attributes,
                                   int64_t dropped_per_page,
                                   const std::function<bool(const Item&)>& take);
  StatusOr<EdgePage> QueryEdges(QueryRequest req, const EdgeQuery& query, bool skip_nodes,
                                const std::vector<std::string>& key_attributes,
                                const std::string& exclude_attr = "",
                                const std::optional<std::string>& exclude = std::nullopt);
  // BatchGetItem of `keys` in requests of 100, unprocessed keys retried with
  // backoff; `each` sees every item returned. `attributes` (not empty): only
  // those attributes are read (a ProjectionExpression).
  Status BatchGetEach(const std::vector<Item>& keys, bool consistent_read,
                      const std::function<void(Item&)>& each,
                      const std::vector<std::string>& attributes = {});
  StatusOr<std::map<std::string, Item>> BatchGetByPk(const std::vector<std::string>& ids,
                                                     const std::vector<std::string>& attributes = {});
  // GetNodes reading only `attributes` of each node (its id always).
  StatusOr<std::vector<std::optional<Node>>> GetNodesWith(const std::vector<std::string>& ids,
                                                          const std::vector<std::string>& attributes);
  Status ValidateEdges(const std::vector<EdgeSpec>& edges) const;
  StatusOr<WriteReport> AddEdgesImpl(const std::vector<EdgeSpec>& edges,
                                     const AddEdgeOptions& options);
  // Removes edges (and reverse edges); no edge-set update on `dying_node` (the
  // node DeleteNode is deleting; empty for none).
  StatusOr<WriteReport> RemoveEdgesImpl(const std::vector<EdgeSpec>& edges,
                                        std::optional<bool> reverse,
                                        const std::string& dying_node);
  // The stored ranks of edges (keys "source\0sort key"), by consistent batch gets.
  Status ReadRanks(const std::vector<Item>& keys, std::map<std::string, std::string>* ranks);
  Status AddEdgeRankChanged(const EdgeSpec& edge, bool reverse, bool require_nodes);
  StatusOr<std::vector<std::string>> OutNeighbourIds(const std::string& node,
                                                     const std::vector<std::string>& types,
                                                     const Hop& hop,
                                                     std::map<std::string, Node>* cache);

  // ---- Edge pages (graph/edge_pages.cc): edge sets too large for their node.
  // The page labels of `node` as this Graph last saw them (empty: not known to
  // have spilled). A hint only: every write is conditioned on what it assumes.
  std::vector<std::string> KnownEdgePages(const std::string& node) const;
  void RememberEdgePages(const std::string& node, std::vector<std::string> labels);
  // The node's page labels, read consistently (empty: not spilled); nullopt
  // for a missing node.
  StatusOr<std::optional<std::vector<std::string>>> ReadEdgePages(const std::string& node);
  // Moves the node's edge set into pages (nothing to do when it spilled already
  // or the node is gone).
  Status SpillEdgeSet(const std::string& node);
  // Replaces page `label` of `node` by smaller pages (nothing to do when it
  // was split meanwhile).
  Status SplitEdgePage(const std::string& node, const std::string& label);
  // Node items listing edge pages get the pages' entries as their edge set
  // (and lose the list), as if they had never spilled.
  Status MergeEdgePages(const std::vector<Item*>& items, bool consistent_read);
  // Removes the node's page list, then every page item of its partition.
  Status DropEdgePages(const std::string& node);
  // Writes a spill's or split's transaction: true when it committed (the node's
  // labels are then `labels`), false when to read and try again.
  StatusOr<bool> CommitEdgePages(const TransactWriteItemsRequest& req, const std::string& node,
                                 std::vector<std::string> labels);

  client::Client* client_;
  Schema schema_;
  int max_concurrent_ = 1;
  mutable Counters counters_;
  std::shared_ptr<internal::EdgePageCache> page_cache_;
};

// Fast loading for large graphs (benchmarks, imports): BatchWriteItem (25 items
// per request, UnprocessedItems retried) from several threads, or straight into
// a new table's files (LoadNewGraph); edge sets and incoming types built in
// memory and written with their nodes at Finish(). No transactions: load into a
// graph nobody else writes meanwhile. An edge added twice is written in its
// last version. At Finish() the nodes already in the table are read first (one
// BatchGetItem per 100): a node keeps its attributes unless AddNode gave new
// ones, and its edge set and incoming types keep their entries beside the new
// ones. Nodes named by edges and not in the table are created with only the
// layer's attributes. A node whose edge set would pass 400 KB is written with
// it in edge pages (as AddEdge would have spilled it).
class BulkLoader {
 public:
  // Items go through the graph's client: BatchWriteItem from `threads` threads.
  explicit BulkLoader(Graph* graph, int threads = 4);
  // Items go into `target`, a table being created by DB::LoadTable (on disk:
  // sorted table files, ingested; see LoadNewGraph).
  BulkLoader(Graph* graph, TableLoader* target);
  ~BulkLoader();
  Status AddNode(const std::string& id, Item attributes = {});
  Status AddEdge(EdgeSpec edge, bool with_reverse = false);
  // An edge as it was stored (read by graph::Explore or WholeGraph, written by
  // `graph export`): its rank as given, and in its source's edge set or not
  // as given, whatever this schema's rank functions and opt-outs say; a rank
  // other than the source id goes into the edge-set entry, as the layer
  // writes ranked types' entries.
  Status AddStoredEdge(const Edge& edge, bool in_edge_set);
  Status Finish();
  int64_t items_written() const { return items_written_; }
  // The first failure to write a batch (through the client, or into the
  // target): once set, every later call returns it, and items added since may
  // not be written. A refusal of one edge or node by its own checks (an id, a
  // type, a size) is not a failure: the call returns it and the load goes on.
  const Status& failed() const { return failed_; }
  // Through the client: called after each batch of items is written (a
  // resumable import records how far it got).
  void OnBatchWritten(std::function<void()> f) { on_written_ = std::move(f); }
  // While set, AddEdge and AddStoredEdge record the edge's edge-set entry and
  // incoming type but do not write the edge's item: an import resumed past
  // edges an earlier run wrote.
  void set_edge_items_written(bool written) { edge_items_written_ = written; }

 private:
  // Writes what is pending; a failure is kept in failed_.
  Status Drain();
  Status DrainBatch();
  // Finish's node items (edge sets, incoming types, merged with the table's).
  Status FinishNodes();
  // The items of node `id` given `item` (its attributes), and its item in the
  // table (`old`, or null) with the labels of its edge pages there
  // (`old_labels`, or null): appended to `out` (the node, and its pages if
  // its set spills); pages it no longer lists are appended to `stale_pages`.
  void BuildNodeItems(const std::string& id, Item item, Item* old,
                      const std::set<std::string>* old_labels, std::vector<Item>* out,
                      std::vector<Item>* stale_pages);
  // Refuses an edge whose item would pass 400 KB.
  Status CheckEdgeItem(const std::string& src, const std::string& type, const std::string& tgt,
                       const Item& properties, const std::string& rank) const;
  // Queues the edge item; `entry` (empty: none) goes into the source's edge set.
  Status Queue(const std::string& src, const std::string& type, const std::string& tgt,
               const Item& properties, const std::string& rank, std::string entry);
  Graph* graph_;
  int threads_;
  TableLoader* target_ = nullptr;
  std::vector<Item> pending_;
  std::unordered_map<std::string, Item> nodes_;
  std::unordered_set<std::string> added_;  // nodes given by AddNode (not only by edges)
  // Per node named by an edge: its edge-set entries and incoming types, found
  // through edge_slots_ (open addressing: a slot holds the id's hash in its
  // high half and its index in edges_ plus one in its low half; 0 is empty).
  struct NodeEdges {
    std::string id;
    std::vector<std::string> entries;
    std::vector<std::string> in_types;
  };
  std::vector<NodeEdges> edges_;
  std::vector<uint64_t> edge_slots_;
  std::string encoded_;  // an edge's item for the table being loaded, reused
  NodeEdges& EdgesOf(std::string_view id);             // added if new
  const NodeEdges* FindEdges(std::string_view id) const;  // or null
  int64_t items_written_ = 0;
  std::function<void()> on_written_;
  bool edge_items_written_ = false;
  Status failed_;
};

// Creates the graph's table (MakeCreateTableRequest(schema)) in `db` and
// fills it through a BulkLoader writing straight into it (DB::LoadTable): the
// table is invisible until `fill` and the loader have finished, and is gone
// again if either fails. Embedded only; the table must not exist. `fill` may
// call Finish itself (to read items_written()): a second Finish writes nothing.
StatusOr<TableDescription> LoadNewGraph(DB* db, const Schema& schema,
                                        const std::function<Status(BulkLoader&)>& fill);

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_GRAPH_H_
