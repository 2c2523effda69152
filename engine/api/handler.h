// File: engine/api/handler.h
//
// One DynamoDB API call in, one HTTP reply out: the operation name (the part of
// X-Amz-Target after "DynamoDB_20120810.") and the JSON body are decoded
// (json_decode.h), run against a DB, and the response or error is encoded
// (json_encode.h). No HTTP here: the server, the CLI and tests drive it in-process.
//
//   api::Handler handler(db.get());
//   api::ApiReply reply = handler.Handle("GetItem", R"({"TableName":"t","Key":{...}})");
//   // reply.http_status == 200, reply.body == R"({"Item":{...}})"
//
// Every operation DB has (tables, items, reads, batches, transactions, time to
// live, continuous backups, tags, and the DynamoDB Streams operations, named by
// their whole target "DynamoDBStreams_20120810.<Op>") goes to the DB; the
// Handler answers two itself: DescribeLimits (the default account limits) and
// DescribeEndpoints (this endpoint). Any other name gives
// UnknownOperationException.
//
// Thread-safe: Handle may be called from many threads at once (DB is thread-safe).

#ifndef DYNAROCK_API_HANDLER_H_
#define DYNAROCK_API_HANDLER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dynarock/db.h"
#include "dynarock/status.h"

namespace dynarock::api {

// The X-Amz-Target prefix of the DynamoDB Streams operations.
inline constexpr std::string_view kStreamsTargetPrefix = "DynamoDBStreams_20120810.";

struct ApiReply {
  int http_status = 200;
  std::string body;
  // kBeforeReply: a fault rule (faults.h) says the connection drops instead of
  // this reply; the HTTP server closes it without a word. `http_status` and
  // `body` then hold an InternalServerError saying so, for callers without a
  // connection to drop (the C ABI, Python, the shell).
  enum class Drop : uint8_t { kNone, kBeforeReply };
  Drop drop = Drop::kNone;
  // Handle(..., explain = true): the request log's line for this request
  // (request_log.h: operation, index, items scanned and returned, why the page
  // ended, capacity by table and index, latency), which the endpoint returns
  // in the X-Dynarock-Explain header (the console's explain panel).
  std::string explain;
};

class CapacityLimits;
class FaultInjector;
class RequestLog;

namespace internal {
struct HandlerState;
}

class Handler {
 public:
  // `db` must outlive the Handler.
  explicit Handler(dynarock::DB* db);
  ~Handler();
  Handler(const Handler&) = delete;
  Handler& operator=(const Handler&) = delete;

  // operation: the part after "DynamoDB_20120810." in X-Amz-Target, e.g.
  // "PutItem"; for DynamoDB Streams the whole target, e.g.
  // "DynamoDBStreams_20120810.GetRecords" (kStreamsTargetPrefix).
  ApiReply Handle(std::string_view operation, std::string_view body);
  // The same, and with `explain` the reply's `explain` holds the request
  // log's line for the request (capacity computed by index, as for the log).
  ApiReply Handle(std::string_view operation, std::string_view body, bool explain);
  // The same for a caller: an IAM principal ARN ("arn:aws:iam::ACCOUNT:user/KEY",
  // serve --require-auth), whom the tables' resource-based policies may deny
  // the request (policy_evaluation.h); empty: no caller, no evaluation.
  ApiReply Handle(std::string_view operation, std::string_view body, bool explain,
                  std::string_view principal);

  // The ARN prefix of this database's resources ("arn:aws:dynamodb:REGION:ACCOUNT:"),
  // for the policies a caller is evaluated against. Call before serving.
  void SetResourceArnPrefix(std::string prefix);

  // The HTTP status (ErrorHttpStatus) and JSON body (EncodeErrorBody) of an error.
  static ApiReply ErrorReply(const dynarock::Status& status);

  // Whether Handle() knows `operation` (as Handle takes it).
  static bool IsOperation(std::string_view operation);

  // The database requests go to (the constructor's, when not null). Call before
  // serving (not synchronised with Handle), and with null before the database
  // closes: running exports and imports stop.
  void SetDatabase(DB* db);

  // The folder that stands for S3 in exports and imports: bucket B is the
  // folder <dir>/B (engine/transfer/transfers.h). Call before serving.
  void SetS3Root(std::string dir);

  // Delivers the database's Kinesis streaming destination records to `dir`
  // (engine/api/kinesis_sink.h) from now on, until SetDatabase(nullptr) or
  // the handler goes; empty: not delivered.
  void SetKinesisSink(std::string dir);

  // Global tables (version 2019.11.21): replicas are tables in other regions,
  // which only the endpoint holding every region can make. `update` serves an
  // UpdateTable with ReplicaUpdates, GlobalTableWitnessUpdates or
  // MultiRegionConsistency (UpdateTableRequest::global(); after the
  // request is decoded, checked against policies and faults, as any other);
  // `deleted` hears of each table DeleteTable deleted. Without them a DB
  // answers such an UpdateTable with a ValidationException. Call before serving.
  struct GlobalTableHooks {
    std::function<StatusOr<UpdateTableResponse>(DB& db, const UpdateTableRequest& req)> update;
    std::function<void(DB& db, const std::string& table)> deleted;
    // Multi-Region strong consistency (MRSC): whether `table` is such a
    // replica (asked before every item write, so cheap); and, for a write to
    // one, `claim` claims its items before anything else happens to the
    // request (a ReplicatedWriteConflictException, and no write, when another
    // region's write holds one); the claim copies them to the other replicas
    // (Copy, after the write, before the reply) and is released when dropped.
    // `keys`: each item's table and key.
    struct Claim {
      virtual ~Claim() = default;
      virtual Status Copy() = 0;
    };
    std::function<bool(DB& db, std::string_view table)> is_strong;
    // The handler's own region (its namespace's), which replica
    // descriptions list first; empty: the table ARN's.
    std::string region;
    std::function<StatusOr<std::unique_ptr<Claim>>(DB& db, const std::vector<std::pair<std::string, Item>>& keys)>
        claim;
  };
  void SetGlobalTableHooks(GlobalTableHooks hooks);

  // The "host:port" DescribeEndpoints reports; "localhost:8000" until set. Call
  // before serving (not synchronised with Handle).
  void SetEndpointAddress(std::string address);

  // Called once per Handle() (after the reply is built, on the calling thread)
  // with the operation name as given, the outcome (OK, or the error replied), the
  // seconds Handle() took and the capacity the request consumed, one entry per
  // table (empty for operations that consume none; for a failed request, what
  // DynamoDB bills anyway: a failed condition, a cancelled transaction).
  // With an observer set, every operation that takes ReturnConsumedCapacity is
  // run with at least TOTAL so that its capacity is known; the reply carries
  // ConsumedCapacity only when the client asked for it. Call before serving (not
  // synchronised with Handle); an empty function removes the observer.
  using Observer = std::function<void(std::string_view operation, const dynarock::Status& status,
                                      double seconds,
                                      const std::vector<dynarock::ConsumedCapacity>& consumed)>;
  void SetObserver(Observer observer);

  // Fault rules consulted for every request after it is decoded and before it
  // runs (faults.h); null removes them. The injector may be shared by several
  // Handlers and changed while serving. Call before serving.
  void SetFaults(std::shared_ptr<FaultInjector> faults);
  const std::shared_ptr<FaultInjector>& faults() const;

  // Throttles requests that outrun their tables' throughput
  // (capacity_limits.h); null stops. With limits set, every operation that
  // takes ReturnConsumedCapacity runs with INDEXES, the reply carrying what the
  // client asked for. Call before serving.
  void SetCapacityLimits(std::shared_ptr<CapacityLimits> limits);
  const std::shared_ptr<CapacityLimits>& capacity_limits() const;

  // Writes one line per request to `log` (request_log.h), alongside the
  // observer (the same record: with a log set, capacity is computed as with an
  // observer, by index where the client did not ask for TOTAL); null stops.
  // May be shared by several Handlers. Call before serving.
  void SetRequestLog(std::shared_ptr<RequestLog> log);

 private:
  ApiReply HandleOperation(std::string_view operation, std::string_view body);

  std::unique_ptr<internal::HandlerState> state_;
};

}  // namespace dynarock::api

#endif  // DYNAROCK_API_HANDLER_H_
