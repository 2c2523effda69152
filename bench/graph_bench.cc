// File: bench/graph_bench.cc
//
// The graph layer on a synthetic power-law graph: a seeded R-MAT generator
// (a=0.57, b=0.19, c=0.19, d=0.05; 2^scale nodes with 16 edges per node on
// average), 1M edges by default (GRAPH_BENCH_SIZE=<edges> for quick runs). The
// graph is loaded once with BulkLoader (BatchWriteItem from 2 threads) into an
// on-disk database in a temporary directory; every read benchmark then runs
// embedded and over HTTP (an in-process HttpServer on the same database, reached
// through HttpClient on loopback).
//
// Counters per iteration: requests (DynamoDB calls), items_read (items evaluated by
// queries + items returned by gets), and the result sizes.
//
//   GRAPH_BENCH_SIZE=100000 build/bench/graph_bench
//   build/bench/graph_bench --benchmark_filter=Expand

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "client/embedded_client.h"
#include "client/http_client.h"
#include "dynarock/db.h"
#include "engine/api/handler.h"
#include "graph/graph.h"
#include "graph/paths.h"
#include "tools/server/http_server.h"

namespace dynarock::graph {

using client::EmbeddedClient;
using client::HttpClient;
using client::HttpClientOptions;
namespace {

struct World {
  std::string dir;
  std::unique_ptr<DB> db;
  std::unique_ptr<EmbeddedClient> embedded;
  std::unique_ptr<api::Handler> handler;
  std::unique_ptr<server::HttpServer> server;
  std::unique_ptr<HttpClient> http;
  std::unique_ptr<Graph> g_embedded, g_http;
  Schema schema;
  int64_t edges = 0, nodes = 0, max_out_degree = 0;
  double load_seconds = 0;
  double load_cpu_seconds = 0;  // the process's, all threads
  std::string node100;    // a node with (about) 100 out-edges
  std::string in_target;  // a node with about 50 in-edges
  int64_t node100_degree = 0, in_target_degree = 0;
};

std::string Id(uint64_t n) { return "N#" + std::to_string(n); }

World* Get() {
  static World* w = [] {
    auto* w = new World();
    int64_t target = 1000000;
    if (const char* env = std::getenv("GRAPH_BENCH_SIZE")) target = std::atoll(env);
    target = std::max<int64_t>(target, 1000);
    int scale = std::max(4, static_cast<int>(std::ceil(std::log2(target / 16.0))));
    const uint64_t n_nodes = uint64_t{1} << scale;

    char tmpl[] = "/tmp/graph_bench_XXXXXX";
    w->dir = mkdtemp(tmpl);
    Options o;
    o.block_cache_bytes = 256u << 20;
    auto db = DB::Open(o, w->dir);
    if (!db.ok()) {
      std::fprintf(stderr, "open: %s\n", db.status().ToString().c_str());
      std::abort();
    }
    w->db = std::move(*db);
    w->embedded = std::make_unique<EmbeddedClient>(w->db.get());
    w->schema.table_name = "rmat";
    w->g_embedded = std::make_unique<Graph>(w->embedded.get(), w->schema);

    // R-MAT edges, de-duplicated, no self-loops: generated first, then loaded
    // (only the load is timed).
    const auto generating = std::chrono::steady_clock::now();
    std::mt19937_64 rng(20240601);
    std::uniform_real_distribution<double> u(0, 1);
    std::set<std::pair<uint64_t, uint64_t>> seen;
    std::vector<std::pair<uint64_t, uint64_t>> edges;
    std::vector<int64_t> out_degree(n_nodes, 0), in_degree(n_nodes, 0);
    while (static_cast<int64_t>(seen.size()) < target) {
      uint64_t src = 0, dst = 0;
      for (int bit = 0; bit < scale; ++bit) {
        double r = u(rng);
        int q = r < 0.57 ? 0 : r < 0.76 ? 1 : r < 0.95 ? 2 : 3;
        src = (src << 1) | (q >> 1);
        dst = (dst << 1) | (q & 1);
      }
      if (src == dst || !seen.insert({src, dst}).second) continue;
      ++out_degree[src];
      ++in_degree[dst];
      edges.emplace_back(src, dst);
    }
    // GRAPH_BENCH_LOAD=batch: through the client (BatchWriteItem from 2
    // threads), as over a network; default: LoadNewGraph (table files).
    const char* how = std::getenv("GRAPH_BENCH_LOAD");
    const bool batch = how != nullptr && std::string(how) == "batch";
    int64_t items_written = 0;
    auto fill = [&](BulkLoader& loader) -> Status {
      for (uint64_t i = 0; i < n_nodes; ++i) {
        DR_RETURN_IF_ERROR(loader.AddNode(Id(i), {{"n", AttributeValue::N(std::to_string(i))}}));
      }
      for (const auto& [src, dst] : edges) {
        DR_RETURN_IF_ERROR(loader.AddEdge({Id(src), "LINK", Id(dst), {{"w", AttributeValue::N("1")}}}));
      }
      return Status::Ok();
    };
    // The generation's time: a yardstick of the machine's speed at the moment
    // (a shared VM's varies by half from one hour to the next).
    const double generated_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - generating).count();
    auto cpu_seconds = [] {
      rusage u;
      getrusage(RUSAGE_SELF, &u);
      return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    };
    const double cpu_start = cpu_seconds();
    auto start = std::chrono::steady_clock::now();
    Status s;
    if (batch) {
      s = w->g_embedded->EnsureTable();
      BulkLoader loader(w->g_embedded.get(), 2);
      if (s.ok()) s = fill(loader);
      if (s.ok()) s = loader.Finish();
      items_written = loader.items_written();
    } else {
      auto loaded = LoadNewGraph(w->db.get(), w->schema, [&](BulkLoader& loader) {
        Status f = fill(loader);
        if (f.ok()) f = loader.Finish();
        items_written = loader.items_written();
        return f;
      });
      s = loaded.status();
    }
    if (!s.ok()) {
      std::fprintf(stderr, "load: %s\n", s.ToString().c_str());
      std::abort();
    }
    w->load_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    w->load_cpu_seconds = cpu_seconds() - cpu_start;
    w->edges = static_cast<int64_t>(seen.size());
    w->nodes = static_cast<int64_t>(n_nodes);
    int64_t best = -1;
    int64_t best_in = -1;
    for (uint64_t i = 0; i < n_nodes; ++i) {
      w->max_out_degree = std::max(w->max_out_degree, out_degree[i]);
      if (best < 0 || std::llabs(out_degree[i] - 100) < std::llabs(out_degree[best] - 100)) {
        best = static_cast<int64_t>(i);
      }
      if (best_in < 0 || std::llabs(in_degree[i] - 50) < std::llabs(in_degree[best_in] - 50)) {
        best_in = static_cast<int64_t>(i);
      }
    }
    w->node100 = Id(static_cast<uint64_t>(best));
    w->node100_degree = out_degree[best];
    w->in_target = Id(static_cast<uint64_t>(best_in));
    w->in_target_degree = in_degree[best_in];
    std::fprintf(stderr,
                 "graph_bench: R-MAT scale %d: %lld nodes, %lld edges loaded (%s) in %.1f s "
                 "(%.0f edges/s, %.2f s of CPU: %.1f us per edge; %lld items written); max out-degree "
                 "%lld; %s has %lld out-edges; %s has %lld in-edges; generating the edges took %.2f s\n",
                 scale, static_cast<long long>(w->nodes), static_cast<long long>(w->edges),
                 batch ? "BatchWriteItem" : "LoadNewGraph", w->load_seconds, w->edges / w->load_seconds,
                 w->load_cpu_seconds, w->load_cpu_seconds * 1e6 / w->edges,
                 static_cast<long long>(items_written),
                 static_cast<long long>(w->max_out_degree), w->node100.c_str(),
                 static_cast<long long>(w->node100_degree), w->in_target.c_str(),
                 static_cast<long long>(w->in_target_degree), generated_seconds);

    // HTTP: an in-process server on the same database.
    w->handler = std::make_unique<api::Handler>(w->db.get());
    server::HttpServerOptions so;
    so.port = 0;
    so.threads = 2;
    w->server = std::make_unique<server::HttpServer>(so, w->handler.get());
    uint16_t port = 0;
    s = w->server->Start(&port);
    if (!s.ok()) std::abort();
    HttpClientOptions ho;
    ho.endpoint = "http://127.0.0.1:" + std::to_string(port);
    auto c = HttpClient::Create(ho);
    if (!c.ok()) std::abort();
    w->http = std::move(*c);
    w->g_http = std::make_unique<Graph>(w->http.get(), w->schema);
    std::atexit([] {
      World* w = Get();
      w->g_http.reset();
      w->http.reset();
      w->server.reset();
      w->handler.reset();
      w->g_embedded.reset();
      w->embedded.reset();
      w->db.reset();
      std::error_code ec;
      std::filesystem::remove_all(w->dir, ec);
    });
    return w;
  }();
  return w;
}

Graph* G(int backend) { return backend == 0 ? Get()->g_embedded.get() : Get()->g_http.get(); }
const char* Label(int backend) { return backend == 0 ? "embedded" : "http"; }

void Report(benchmark::State& state, Graph* g, GraphStats before) {
  GraphStats after = g->stats();
  state.counters["requests"] = benchmark::Counter(
      static_cast<double>(after.requests - before.requests), benchmark::Counter::kAvgIterations);
  state.counters["items_read"] =
      benchmark::Counter(static_cast<double>(after.items_read - before.items_read),
                         benchmark::Counter::kAvgIterations);
}

void BM_Load(benchmark::State& state) {
  World* w = Get();
  for (auto _ : state) benchmark::DoNotOptimize(w);
  state.counters["edges"] = static_cast<double>(w->edges);
  state.counters["nodes"] = static_cast<double>(w->nodes);
  state.counters["load_s"] = w->load_seconds;
  state.counters["load_cpu_s"] = w->load_cpu_seconds;
  state.counters["edges_per_s"] = w->edges / w->load_seconds;
  state.counters["max_out_degree"] = static_cast<double>(w->max_out_degree);
}
BENCHMARK(BM_Load)->Iterations(1)->Unit(benchmark::kMillisecond);

// Out-neighbours of a node with ~100 edges (one query, all pages).
void BM_OutNeighbours(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  state.SetLabel(Label(static_cast<int>(state.range(0))));
  const std::string node = Get()->node100;
  GraphStats before = g->stats();
  size_t n = 0;
  for (auto _ : state) {
    auto r = g->AllOutEdges(node, "LINK");
    if (!r.ok()) state.SkipWithError(r.status().ToString().c_str());
    n = r.ok() ? r->size() : 0;
  }
  Report(state, g, before);
  state.counters["edges"] = static_cast<double>(n);
}
BENCHMARK(BM_OutNeighbours)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// 2-hop traversal, fan-out 50 per node; range(1): 0 = one query per node,
// 1 = edge sets (one batch get per 100 frontier nodes).
void BM_TwoHop(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  const bool sets = state.range(1) == 1;
  state.SetLabel(std::string(Label(static_cast<int>(state.range(0)))) +
                 (sets ? "/edge-sets" : "/queries"));
  TraversalRequest t;
  t.start = {Get()->node100};
  Hop h;
  h.edge_types = {"LINK"};
  h.fan_out = 50;
  h.use_edge_sets = sets;
  t.hops = {h, h};
  GraphStats before = g->stats();
  size_t visited = 0;
  for (auto _ : state) {
    auto r = g->Traverse(t);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    visited = 0;
    for (const auto& l : r->levels) visited += l.size();
  }
  Report(state, g, before);
  state.counters["visited"] = static_cast<double>(visited);
}
BENCHMARK(BM_TwoHop)
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);

// Seed 001's question on the synthetic graph: the (up to 50) nodes linking to X,
// and all of their out-neighbours. Edge-set expansion: GSI query + batch get of
// the roots + batch gets of the neighbours their edge sets name.
void BM_ExpandEdgeSets(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  state.SetLabel(std::string(Label(static_cast<int>(state.range(0)))) +
                 (state.range(1) == 2 ? "/ids" : state.range(1) == 1 ? "/projected" : "/whole"));
  ExpandRequest x;
  x.node = Get()->in_target;
  x.edge_type = "LINK";
  x.limit = 50;
  x.expand_types = {"LINK"};
  // /1: the neighbours' own attribute only, not their (large) edge sets;
  // /2: the neighbours' ids only (the roots' edge sets), no neighbour read.
  if (state.range(1) == 1) x.neighbour_attributes = {"n"};
  if (state.range(1) == 2) x.read_neighbours = false;
  GraphStats before = g->stats();
  size_t roots = 0, neighbours = 0;
  for (auto _ : state) {
    auto r = g->Expand(x);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    roots = r->roots.size();
    std::set<std::string> ids;
    for (const auto& [root, refs] : r->refs)
      for (const EdgeRef& ref : refs) ids.insert(ref.target);
    neighbours = ids.size();
  }
  Report(state, g, before);
  state.counters["roots"] = static_cast<double>(roots);
  state.counters["neighbours"] = static_cast<double>(neighbours);
}
BENCHMARK(BM_ExpandEdgeSets)
    ->Args({0, 0})->Args({0, 1})->Args({0, 2})->Args({1, 0})->Args({1, 1})->Args({1, 2})
    ->Unit(benchmark::kMillisecond);

// The same answer through the N+1 pattern: GSI query, batch get of the roots,
// then one adjacency query per root, then batch gets of the neighbours.
void BM_ExpandNPlusOne(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  state.SetLabel(std::string(Label(static_cast<int>(state.range(0)))) +
                 (state.range(1) == 2 ? "/ids" : "/whole"));
  const std::string target = Get()->in_target;
  GraphStats before = g->stats();
  size_t roots = 0, neighbours = 0;
  for (auto _ : state) {
    EdgeQuery q;
    q.limit = 50;
    auto in = g->InEdges(target, "LINK", q);
    if (!in.ok()) {
      state.SkipWithError(in.status().ToString().c_str());
      break;
    }
    std::vector<std::string> root_ids;
    for (const Edge& e : in->edges) root_ids.push_back(e.source);
    auto root_nodes = g->GetNodes(root_ids);
    std::vector<std::string> ids;
    for (const std::string& r : root_ids) {
      auto out = g->AllOutEdges(r, "LINK");
      if (!out.ok()) break;
      for (const Edge& e : *out) ids.push_back(e.target);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    roots = root_nodes.ok() ? root_nodes->size() : 0;
    if (state.range(1) == 2) {  // the neighbours' ids only
      neighbours = ids.size();
      continue;
    }
    auto nodes = g->GetNodes(ids);
    neighbours = nodes.ok() ? nodes->size() : 0;
  }
  Report(state, g, before);
  state.counters["roots"] = static_cast<double>(roots);
  state.counters["neighbours"] = static_cast<double>(neighbours);
}
BENCHMARK(BM_ExpandNPlusOne)
    ->Args({0, 0})->Args({0, 2})->Args({1, 0})->Args({1, 2})
    ->Unit(benchmark::kMillisecond);

// A shortest path between the node with ~100 out-edges and the node with ~50
// in-edges (bidirectional breadth-first search, graph/paths.h), out-edges only.
void BM_ShortestPath(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  state.SetLabel(Label(static_cast<int>(state.range(0))));
  PathRequest p;
  p.from = Get()->node100;
  p.to = Get()->in_target;
  p.types = {"LINK"};
  GraphStats before = g->stats();
  size_t hops = 0, visited = 0;
  for (auto _ : state) {
    auto r = ShortestPath(*g, p);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    hops = r->found ? r->edges.size() : 0;
    visited = static_cast<size_t>(r->visited);
  }
  Report(state, g, before);
  state.counters["hops"] = static_cast<double>(hops);
  state.counters["visited"] = static_cast<double>(visited);
}
BENCHMARK(BM_ShortestPath)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A composed walk with its plan and cost: the nodes linking to the ~50-in-edge
// node, then (by edge sets) everything they link to, 100 results a page.
void BM_Walk(benchmark::State& state) {
  Graph* g = G(static_cast<int>(state.range(0)));
  state.SetLabel(Label(static_cast<int>(state.range(0))));
  TraversalRequest t;
  t.start = {Get()->in_target};
  Hop in;
  in.direction = Direction::kIn;
  in.edge_types = {"LINK"};
  Hop out;
  out.edge_types = {"LINK"};
  t.hops = {in, out};
  t.limit = 100;
  GraphStats before = g->stats();
  size_t results = 0;
  double units = 0;
  for (auto _ : state) {
    auto r = g->Traverse(t);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    results = r->levels.back().size();
    units = 0;
    for (const TraversalStep& st : r->steps) units += st.read_units;
  }
  Report(state, g, before);
  state.counters["reached"] = static_cast<double>(results);
  state.counters["rcu"] = units;
}
BENCHMARK(BM_Walk)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dynarock::graph
