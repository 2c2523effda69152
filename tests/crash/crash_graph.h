// File: tests/crash/crash_graph.h
//
// The graph part of the kill -9 crash test's workload (tests/crash/crash_writer.cc):
// writes numbered like the others, through the graph layer (graph/graph.h) on table
// "crash_graph" (with a NEW_AND_OLD_IMAGES stream), and their verification.
//
// The graph: 12 nodes "N#0".."N#11"; edge types LINK (plain), RATED (ranked by
// its N property `score`, so rewriting an edge with another score takes the
// rank-change path), FOLLOWS with its reverse FOLLOWED_BY (both edges in one
// transaction), SEES (opted out of the edge set). Writes: AddEdge (require_nodes
// = false: missing nodes become stubs), RemoveEdge, AddEdges of 2-4 unranked edges
// (one transaction), PutNode (sets `color`), DeleteNode (until done; not atomic).
//
// Verification (VerifyGraph), on one scan of the table:
//   - the model: every node and every possible edge (12 x 11 x 5) is in a state
//     that the acknowledged writes, in order, and the in-flight ones (each either
//     applied or not; a DeleteNode in part) can leave; an in-flight atomic write
//     (AddEdge, RemoveEdge, AddEdges) is wholly applied or wholly not, on the
//     edges no later write touched;
//   - edge sets: each node's edge set names exactly its edges of the types in the
//     edge set, with their ranks (also through Graph::VerifyEdgeSet); only a node
//     whose DeleteNode was interrupted and not resumed may keep stale entries
//     (DeleteNode leaves the dying node's set alone);
//   - each edge's rank is its type's rank of its properties; FOLLOWS a->b exists
//     iff FOLLOWED_BY b->a does, with the same properties; each edge's target
//     exists and lists the edge's type among its incoming types; the source of an
//     edge of an edge-set type exists;
//   - the stream chains from absent to each item's state (crash::CheckStream).
// The inverted index itself is checked against the table by DB::CheckConsistency
// and `dynarock check`.

#ifndef DYNAROCK_TESTS_CRASH_CRASH_GRAPH_H_
#define DYNAROCK_TESTS_CRASH_CRASH_GRAPH_H_

#include <cstdint>
#include <string>

#include "dynarock/db.h"
#include "graph/graph.h"
#include "tests/crash/crash_workload.h"

namespace crash {

constexpr char kGraphTable[] = "crash_graph";

dynarock::graph::Schema GraphSchema();

// Creates table "crash_graph" with its indexes and a stream, when absent.
dynarock::Status EnsureGraph(dynarock::DB* db, dynarock::graph::Graph* g);

// Runs graph write n (IsGraphWrite(KindOf(n))); a DeleteNode runs until done.
dynarock::Status DoGraphWrite(dynarock::graph::Graph* g, int64_t n);

// Deletes one LINK edge item through the engine, leaving its entry in its
// source's edge set: a torn graph edit, for the test that shows the verifier
// notices one. Sets `which` to the edge.
dynarock::Status TearOneEdge(dynarock::DB* db, std::string* which);

// Checks the graph as described above; `trimmed`: stream records may have been
// trimmed (CheckStream). Returns a one-line summary.
std::string VerifyGraph(dynarock::DB* db, const History& history, bool trimmed, Problems* p);

}  // namespace crash

#endif  // DYNAROCK_TESTS_CRASH_CRASH_GRAPH_H_
