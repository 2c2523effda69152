// File: tools/patterns/builtin.h
//
// The built-in comparisons of `dynarock patterns`, one Suite each, from the data
// modelling articles in /work/shared/seeds (see docs/patterns.md):
//
//   adjacency   adjacency-list edge items (Query PK=USER#x, begins_with(SK, "FRIEND#"))
//               vs one item holding a nested friends list (GetItem), reading and
//               adding a friend (seeds 000 and 003)
//   edge-set    a node's edge set (GetItem, then one BatchGetItem of the neighbours)
//               vs N+1 requests (Query of the node's partition, then a GetItem per
//               neighbour) (seed 001)
//   type-index  Query of the Type GSI vs Scan with a FilterExpression on Type
//               (seeds 003 and 004)
//   hierarchy   a composite sort key "COUNTRY#STATE#CITY#STORE" read with
//               begins_with vs one GSI per level, reading and writing (seed 002)

#ifndef DYNAROCK_TOOLS_PATTERNS_BUILTIN_H_
#define DYNAROCK_TOOLS_PATTERNS_BUILTIN_H_

#include <cstdint>
#include <vector>

#include "tools/patterns/runner.h"

namespace dynarock::patterns {

struct BuiltinOptions {
  // Entities per data set: users (adjacency, edge-set), persons (type-index; as
  // many addresses and twice as many person-address links), stores (hierarchy).
  int64_t size = 1000;
  // Friends per user (adjacency), members per goal (edge-set).
  int64_t fanout = 50;
};

std::vector<Suite> BuiltinSuites(const BuiltinOptions& options);

}  // namespace dynarock::patterns

#endif  // DYNAROCK_TOOLS_PATTERNS_BUILTIN_H_
