// File: client/client.h
//
// The DynamoDB operations the graph layer, the document API and the
// replicator use, as an interface with two implementations:
//   - EmbeddedClient (client/embedded_client.h): calls a dynarock::DB in-process;
//   - HttpClient (client/http_client.h): any DynamoDB-compatible endpoint over
//     HTTP (Dynarock's own server, AWS DynamoDB, ScyllaDB Alternator), SigV4-signed.
// The graph code (graph/graph.h) only ever talks to a Client, so moving a graph
// from an embedded database to a DynamoDB service is a change of one object.
//
// Requests and responses are the structs of dynarock/requests.h, exactly those of
// dynarock::DB; errors are the DynamoDB error types of dynarock/status.h.
// Implementations are safe for concurrent use from many threads.

#ifndef DYNAROCK_CLIENT_CLIENT_H_
#define DYNAROCK_CLIENT_CLIENT_H_

#include "dynarock/requests.h"
#include "dynarock/status.h"

namespace dynarock::client {

class Client {
 public:
  virtual ~Client() = default;

  virtual StatusOr<CreateTableResponse> CreateTable(const CreateTableRequest& req) = 0;
  virtual StatusOr<DescribeTableResponse> DescribeTable(const DescribeTableRequest& req) = 0;
  virtual StatusOr<DeleteTableResponse> DeleteTable(const DeleteTableRequest& req) = 0;
  virtual StatusOr<PutItemResponse> PutItem(const PutItemRequest& req) = 0;
  virtual StatusOr<GetItemResponse> GetItem(const GetItemRequest& req) = 0;
  virtual StatusOr<UpdateItemResponse> UpdateItem(const UpdateItemRequest& req) = 0;
  virtual StatusOr<DeleteItemResponse> DeleteItem(const DeleteItemRequest& req) = 0;
  virtual StatusOr<QueryResponse> Query(const QueryRequest& req) = 0;
  virtual StatusOr<ScanResponse> Scan(const ScanRequest& req) = 0;
  virtual StatusOr<BatchGetItemResponse> BatchGetItem(const BatchGetItemRequest& req) = 0;
  virtual StatusOr<BatchWriteItemResponse> BatchWriteItem(const BatchWriteItemRequest& req) = 0;
  virtual StatusOr<TransactWriteItemsResponse> TransactWriteItems(
      const TransactWriteItemsRequest& req) = 0;

  // A short name for logs and benchmark labels ("embedded", "http://host:port").
  virtual std::string Describe() const = 0;
  // True when each call is a round trip over a network: independent requests
  // are then worth sending concurrently (Graph::set_max_concurrent_requests).
  virtual bool remote() const { return false; }
};

}  // namespace dynarock::client

#endif  // DYNAROCK_CLIENT_CLIENT_H_
