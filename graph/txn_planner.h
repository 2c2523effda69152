// File: graph/txn_planner.h
//
// TxnPlanner: packs edge writes into TransactWriteItems (not a public header;
// used by graph_writes.cc).
//
// A write of many edges is cut into "units", one per edge: the edge item, its
// edge-set update on the source node (or on the edge page its entry hashes to,
// when the node's set has spilled: graph/edge_pages.cc), the incoming-type
// update on the target node, the reverse edge with its updates, plus condition
// checks that the nodes exist. Units are packed, in order, into transactions of
// at most 100 items and 4 MB (DynamoDB's two limits of TransactWriteItems); the
// set updates of several units on one item merge into one Update (one ADD or
// DELETE of several entries), since a transaction may touch an item only once.
// A unit is never split, so every edge stays consistent with its edge sets.
//
// Sizes are counted by DynamoDB's item size rules (dynarock/item_size.h): a Put
// counts its item, a Delete or ConditionCheck its key, an Update its key plus
// the values it adds or removes (the set entries, the incoming types).

#ifndef DYNAROCK_GRAPH_TXN_PLANNER_H_
#define DYNAROCK_GRAPH_TXN_PLANNER_H_

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dynarock/requests.h"
#include "dynarock/status.h"
#include "graph/graph.h"

namespace dynarock::graph {

class TxnPlanner {
 public:
  struct SetOp {  // an edge-set entry ADDed to / DELETEd from `node`'s set
    std::string node;
    std::string entry;
    std::string type;
    std::string page;  // set by Route: the edge page holding the entry ("": the node)
  };
  struct TypeOp {  // an incoming edge type ADDed to `node`
    std::string node;
    std::string type;
  };
  struct Unit {
    std::vector<TransactWriteItem> items;  // edge puts / deletes
    std::vector<SetOp> set_ops;
    std::vector<TypeOp> type_ops;
    bool add = true;                       // set ops are ADDs (else DELETEs)
    std::vector<std::string> must_exist;   // nodes that must exist
    bool routed = false;                   // set ops routed (by the first Fits or Add)
  };

  struct Result {
    Status status;
    bool edge_condition_failed = false;  // an edge item's condition (rank guard) failed
    // A node's edge set spilled, or one of its pages split or filled, since the
    // transaction was planned (it was not written): plan its units again.
    bool replan = false;
  };

  explicit TxnPlanner(Graph* g) : g_(g) {}

  bool empty() const { return edge_items_.empty() && targets_.empty(); }

  // Whether `u` can join the open transaction (routing its set ops to pages
  // first). A unit always fits an empty one.
  bool Fits(Unit& u) const;
  void Add(Unit u);
  // Adds make(*next), make(*next + 1), ... up to `end` while they fit (the
  // first always does); each index added goes to `taken`, *next past it.
  void AddWhileFits(size_t* next, size_t end, const std::function<Unit(size_t)>& make,
                    std::vector<size_t>* taken);
  // Writes the transaction: retried on conflicts and for nodes that vanished;
  // reorganises edge sets that spilled or pages that filled (then `replan`).
  Result Commit();

  int64_t transactions() const { return transactions_; }

 private:
  // The item a set or type op lands on: a node, or one of its edge pages.
  struct Target {
    std::string node;
    std::string page;
    auto operator<=>(const Target&) const = default;
  };
  struct TargetOp {
    std::set<std::string> entries;   // edge-set entries ADDed (add) or DELETEd
    std::set<std::string> types;     // their edge types (for error messages)
    std::set<std::string> in_types;  // incoming types ADDed (nodes only)
    bool add = true;
    bool must_exist = false;
    bool tolerate_missing = false;
  };

  void Route(Unit* u) const;
  TargetOp& Op(const Target& t);
  TransactWriteItem Write(const Target& t, const TargetOp& op) const;
  static const Item& ItemKey(const TransactWriteItem& t);
  // A Put's item; a Delete's key (its condition values are not item data).
  static size_t ItemBytes(const TransactWriteItem& t);
  size_t TargetKeyBytes(const Target& t) const;
  Status SizeError(const std::string& node) const;
  std::string KeyString(const Item& item) const;
  // After a set op's condition failed on `t`: spills, splits or re-reads what
  // changed. Ok: plan again.
  Status Reorganise(const Target& t, bool size_exceeded);

  Graph* g_;
  std::vector<TransactWriteItem> edge_items_;
  std::set<std::string> edge_keys_;
  std::map<Target, TargetOp> targets_;
  size_t bytes_ = 0;
  int64_t transactions_ = 0;
};

}  // namespace dynarock::graph

#endif  // DYNAROCK_GRAPH_TXN_PLANNER_H_
