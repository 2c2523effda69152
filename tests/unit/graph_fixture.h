// File: tests/unit/graph_fixture.h
//
// An in-memory database with an embedded graph client: the fixture the graph
// layer's embedded-only tests start from.

#ifndef DYNAROCK_TESTS_UNIT_GRAPH_FIXTURE_H_
#define DYNAROCK_TESTS_UNIT_GRAPH_FIXTURE_H_

#include <gtest/gtest.h>

#include <memory>

#include "client/embedded_client.h"
#include "dynarock/db.h"

namespace dynarock::graph {

using client::EmbeddedClient;

class EmbeddedGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.in_memory = true;
    auto db = DB::Open(o, "");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    client_ = std::make_unique<EmbeddedClient>(db_.get());
  }

  std::unique_ptr<DB> db_;
  std::unique_ptr<EmbeddedClient> client_;
};

}  // namespace dynarock::graph

#endif  // DYNAROCK_TESTS_UNIT_GRAPH_FIXTURE_H_
