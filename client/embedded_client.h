// File: client/embedded_client.h
//
// A client::Client over an embedded dynarock::DB (no network, no JSON).
//
//   auto db = dynarock::DB::Open(dynarock::Options{.in_memory = true}, "");
//   dynarock::client::EmbeddedClient client(db->get());
//   dynarock::graph::Graph graph(&client, schema);

#ifndef DYNAROCK_CLIENT_EMBEDDED_CLIENT_H_
#define DYNAROCK_CLIENT_EMBEDDED_CLIENT_H_

#include "client/client.h"
#include "dynarock/db.h"

namespace dynarock::client {

class EmbeddedClient final : public Client {
 public:
  // `db` is not owned and must outlive the client.
  explicit EmbeddedClient(DB* db) : db_(db) {}

  StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& req) override;
  StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& req) override;
  StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& req) override;
  StatusOr<PutItemResponse> PutItem(const PutItemRequest& req) override;
  StatusOr<GetItemResponse> GetItem(const GetItemRequest& req) override;
  StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& req) override;
  StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& req) override;
  StatusOr<QueryResponse> Query(const QueryRequest& req) override;
  StatusOr<ScanResponse> Scan(const ScanRequest& req) override;
  StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& req) override;
  StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& req) override;
  StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& req) override;
  std::string Describe() const override { return "embedded"; }

 private:
  DB* db_;
};

}  // namespace dynarock::client

#endif  // DYNAROCK_CLIENT_EMBEDDED_CLIENT_H_
