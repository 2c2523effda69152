// File: client/http_client.h
//
// A client::Client for any DynamoDB-compatible endpoint: Dynarock's own
// `dynarock serve`, AWS DynamoDB (https://dynamodb.<region>.amazonaws.com),
// ScyllaDB Alternator, DynamoDB Local.
//
// Each call is one POST / with X-Amz-Target: DynamoDB_20120810.<Op>, Content-Type
// application/x-amz-json-1.0 and a SigV4 signature (service "dynamodb"), over
// HTTP/1.1 keep-alive connections kept in a small pool (one per concurrent
// caller). Bodies are written and read with the project's protocol codec
// (engine/api), the same code the server uses.
//
// TLS: https:// endpoints use OpenSSL. The peer's certificate is verified
// against the system's default CA store (plus `ca_file` when given), the host
// name is checked against the certificate (DNS names; IP literals against IP
// SANs) and sent as SNI.
//
// Timeouts: every attempt (connect, TLS handshake, sending the request, reading
// the response) must finish within `timeout`; an attempt that does not is
// abandoned (its connection closed) and counts as a retryable failure.
//
// Retries: ProvisionedThroughputExceeded, RequestLimitExceeded, ThrottlingException,
// InternalServerError / 5xx, connection failures, timeouts and responses whose
// body does not match their x-amz-crc32 header are retried up to max_attempts
// times in all, with exponential backoff and full jitter (base_backoff *
// 2^attempt, capped by max_backoff). A certificate that fails verification is
// not retried. Every other error is returned as the DynamoDB error it is.
//
// Region (SigV4 credential scope): `region` when set; else the region in an AWS
// endpoint's host name (dynamodb.<region>.amazonaws.com, dynamodb-fips.<region>.
// amazonaws.com, dynamodb.<region>.api.aws, ...amazonaws.com.cn); else
// AWS_REGION, else AWS_DEFAULT_REGION from the environment; else us-east-1.
//
//   HttpClientOptions o;
//   o.endpoint = "https://dynamodb.eu-west-1.amazonaws.com";   // region eu-west-1
//   auto client = HttpClient::Create(o);
//   if (!client.ok()) ...
//   Graph g(client->get(), schema);

#ifndef DYNAROCK_CLIENT_HTTP_CLIENT_H_
#define DYNAROCK_CLIENT_HTTP_CLIENT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "client/client.h"
#include "client/sigv4_signer.h"

namespace dynarock::client {

struct HttpClientOptions {
  // "http://host[:port][/]" (port 80 by default) or "https://host[:port][/]"
  // (port 443 by default). IPv6 literals in brackets: "http://[::1]:8000".
  std::string endpoint = "http://127.0.0.1:8000";
  // SigV4 region. Empty: derived (see the file comment).
  std::string region;
  // When the access key is empty: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
  // AWS_SESSION_TOKEN from the environment, else the shared credentials file's
  // profile (AwsCredentials::FromProfile), else the placeholder "dynarock" /
  // "dynarock" (accepted by endpoints that do not check, such as `dynarock serve`
  // without --require-auth and DynamoDB Local).
  AwsCredentials credentials;
  int max_attempts = 8;
  std::chrono::milliseconds base_backoff{25};
  std::chrono::milliseconds max_backoff{2000};
  // Deadline of one attempt: connect + TLS handshake + request + response.
  std::chrono::milliseconds timeout{60000};
  // https only: a PEM file of CA certificates trusted in addition to the
  // system's default ones (a private CA, or a test server's self-signed cert).
  std::string ca_file;
};

struct HttpClientStats {
  int64_t requests = 0;  // operations called
  int64_t attempts = 0;  // HTTP requests sent (requests + retries)
  int64_t retries = 0;
  int64_t timeouts = 0;  // attempts abandoned at the deadline
  int64_t bytes_sent = 0;
  int64_t bytes_received = 0;
};

// The region named by an AWS DynamoDB endpoint ("https://dynamodb.eu-west-1.
// amazonaws.com" -> "eu-west-1"); empty for other endpoints.
std::string RegionFromEndpoint(std::string_view endpoint);

class HttpClient final : public Client {
 public:
  static StatusOr<std::unique_ptr<HttpClient>> Create(HttpClientOptions options);
  ~HttpClient() override;

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
  std::string Describe() const override;
  bool remote() const override { return true; }

  HttpClientStats stats() const;
  // The SigV4 region in use (given or derived).
  const std::string& region() const;

  // One operation: the JSON body in, the JSON response body out (errors decoded
  // into a Status). Public for tools that send operations the Client lacks.
  StatusOr<std::string> Call(std::string_view operation, const std::string& body);

  struct Impl;  // implementation detail (http_client.cc)

 private:
  explicit HttpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dynarock::client

#endif  // DYNAROCK_CLIENT_HTTP_CLIENT_H_
