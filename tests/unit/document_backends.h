// File: tests/unit/document_backends.h
//
// The document API's tests run the same app code on both backends: embedded
// (EmbeddedClient over an in-memory DB) and over HTTP (HttpClient against an
// in-process endpoint on a loopback port). The parameter: over HTTP?
// Every test starts with the table "todos" (user S, due N).

#ifndef DYNAROCK_TESTS_UNIT_DOCUMENT_BACKENDS_H_
#define DYNAROCK_TESTS_UNIT_DOCUMENT_BACKENDS_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "client/embedded_client.h"
#include "client/http_client.h"
#include "dynarock/db.h"
#include "engine/api/handler.h"
#include "tools/server/http_server.h"

namespace dynarock::document {

// One backend: a DB, and a client of it (embedded, or HTTP through an
// in-process endpoint), with the table "todos" made.
class Backend {
 public:
  explicit Backend(bool http) {
    Options o;
    o.in_memory = true;
    db_ = std::move(DB::Open(o, "").value());
    if (http) {
      handler_ = std::make_unique<api::Handler>(db_.get());
      server::HttpServerOptions so;
      so.port = 0;
      so.threads = 1;
      server_ = std::make_unique<server::HttpServer>(so, handler_.get());
      uint16_t port = 0;
      if (!server_->Start(&port).ok()) return;
      client::HttpClientOptions ho;
      ho.endpoint = "http://127.0.0.1:" + std::to_string(port);
      client_ = std::move(client::HttpClient::Create(ho).value());
    } else {
      client_ = std::make_unique<client::EmbeddedClient>(db_.get());
    }
    CreateTableRequest c;
    c.table_name = "todos";
    c.billing_mode = "PAY_PER_REQUEST";
    c.attribute_definitions = {{"user", AttrType::kS}, {"due", AttrType::kN}};
    c.key_schema = {{"user", KeyType::kHash}, {"due", KeyType::kRange}};
    ok_ = client_->CreateTable(c).ok();
  }
  ~Backend() {
    client_.reset();
    server_.reset();
    handler_.reset();
    db_.reset();
  }
  bool ok() const { return ok_; }
  client::Client* client() const { return client_.get(); }
  api::Handler* handler() const { return handler_.get(); }  // HTTP only

 private:
  std::unique_ptr<DB> db_;
  std::unique_ptr<api::Handler> handler_;
  std::unique_ptr<server::HttpServer> server_;
  std::unique_ptr<client::Client> client_;
  bool ok_ = false;
};

class DocumentBackendTest : public ::testing::TestWithParam<bool> {  // over HTTP?
 protected:
  void SetUp() override {
    backend_ = std::make_unique<Backend>(GetParam());
    ASSERT_TRUE(backend_->ok());
    client_ = backend_->client();
  }
  void TearDown() override { backend_.reset(); }

  std::unique_ptr<Backend> backend_;
  client::Client* client_ = nullptr;
};

}  // namespace dynarock::document

#endif  // DYNAROCK_TESTS_UNIT_DOCUMENT_BACKENDS_H_
