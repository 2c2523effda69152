// File: dynarock/status.h
//
// The one error model of Dynarock. Every layer, from the expression lexer to the
// HTTP reply, reports failure as a Status carrying the DynamoDB error type, the
// message DynamoDB would give, and any payload the error carries on the wire
// (the item on a failed condition, the cancellation reasons of a transaction).
// An OK Status is a null pointer, so success costs nothing.
//
//   Status s = db->PutItem(req).status();
//   if (s.type() == ErrorType::kConditionalCheckFailed) { ... }

#ifndef DYNAROCK_STATUS_H_
#define DYNAROCK_STATUS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "dynarock/attribute_value.h"

namespace dynarock {

// DynamoDB's error types. The wire name is ErrorTypeName(); the HTTP status is
// ErrorHttpStatus().
enum class ErrorType : uint8_t {
  kOk = 0,
  kValidation,
  kSerialization,
  kResourceNotFound,
  kResourceInUse,
  kConditionalCheckFailed,
  kTransactionCanceled,
  kTransactionConflict,
  kTransactionInProgress,
  kIdempotentParameterMismatch,
  kItemCollectionSizeLimitExceeded,
  kProvisionedThroughputExceeded,
  kRequestLimitExceeded,
  kThrottling,  // ThrottlingException: an on-demand maximum throughput reached (api/capacity_limits.h)
  kLimitExceeded,
  kUnknownOperation,
  kMissingAuthenticationToken,
  kUnrecognizedClient,
  kInvalidSignature,
  kIncompleteSignature,
  kAccessDenied,
  kTableNotFound,  // the backup operations' "no such table"
  kExpiredIterator,     // DynamoDB Streams: a shard iterator older than 15 minutes
  kTrimmedDataAccess,   // DynamoDB Streams: records past their retention
  kDuplicateItem,       // PartiQL INSERT of an item that exists
  kInternalServerError,
  // Appended after kInternalServerError so that the values above never change.
  kBackupNotFound,                    // backups
  kBackupInUse,                       // a backup being created or deleted
  kTableAlreadyExists,                // a restore or import target that exists
  kTableInUse,                        // a restore's source table being changed
  kContinuousBackupsUnavailable,      // backups of a table that is not ACTIVE
  kPointInTimeRecoveryUnavailable,    // PITR not enabled for the table
  kInvalidRestoreTime,                // outside the restorable window
  kExportNotFound,
  kExportConflict,                    // the same ClientToken, other parameters
  kInvalidExportTime,
  kImportNotFound,
  kImportConflict,
  // Appended after kImportConflict: the values above never change.
  kServiceUnavailable,  // HTTP 503; sent only by fault injection (engine/api/faults.h)
  kPolicyNotFound,      // resource-based policies: none, or not the revision expected
  kGlobalTableNotFound,  // global tables, version 2017.11.29
  kReplicatedWriteConflict,  // MRSC global tables: an item is being written in another region
};

// "ValidationException", "ResourceNotFoundException", ...
std::string_view ErrorTypeName(ErrorType type);
// The full "__type" on the wire, e.g.
// "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException" and
// "com.amazon.coral.validate#ValidationException".
std::string ErrorWireType(ErrorType type);
// 400 for client errors, 500 for kInternalServerError, 503 for kServiceUnavailable.
int ErrorHttpStatus(ErrorType type);

// One entry of TransactionCanceledException's CancellationReasons.
struct CancellationReason {
  std::string code;     // "None", "ConditionalCheckFailed", "TransactionConflict", ...
  std::string message;  // empty for "None"
  std::optional<Item> item;  // with ReturnValuesOnConditionCheckFailure=ALL_OLD
};

// Capacity a request consumed although it failed: DynamoDB bills a write whose
// condition failed, and a cancelled transaction, but does not report it in the
// error. Dynarock carries it here for metrics and `dynarock patterns`.
struct BilledCapacity {
  std::string table_name;
  double read_units = 0;
  double write_units = 0;
};

// One entry of a throttling error's ThrottlingReasons: why the request was
// throttled ("TableWriteProvisionedThroughputExceeded": resource type, Read or
// Write, limit type) and the ARN of the table or index.
struct ThrottlingReason {
  std::string reason;
  std::string resource;
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorType type, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  ErrorType type() const { return rep_ ? rep_->type : ErrorType::kOk; }
  const std::string& message() const;

  // Payloads.
  const std::optional<Item>& item() const;  // ConditionalCheckFailed with ALL_OLD
  const std::vector<CancellationReason>& cancellation_reasons() const;
  const std::vector<BilledCapacity>& billed() const;  // not sent on the wire
  const std::vector<ThrottlingReason>& throttling_reasons() const;
  Status& WithItem(Item item);
  Status& WithCancellationReasons(std::vector<CancellationReason> reasons);
  Status& WithBilled(std::vector<BilledCapacity> billed);
  Status& WithThrottlingReasons(std::vector<ThrottlingReason> reasons);

  // "ValidationException: <message>", for logs and test failures.
  std::string ToString() const;

 private:
  struct Rep {
    ErrorType type;
    std::string message;
    std::optional<Item> item;
    std::vector<CancellationReason> reasons;
    std::vector<BilledCapacity> billed;
    std::vector<ThrottlingReason> throttling;
  };
  std::shared_ptr<Rep> rep_;
};

// Factories, one per type DynamoDB uses (Alternator's api_error, as a Status).
Status ValidationError(std::string message);
Status SerializationError(std::string message);
Status ResourceNotFound(std::string message);
Status ResourceInUse(std::string message);
Status ConditionalCheckFailed(std::string message = "The conditional request failed");
Status TransactionConflict(std::string message);
Status InternalError(std::string message);

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : v_(std::move(value)) {}         // NOLINT
  bool ok() const { return v_.index() == 1; }
  Status status() const { return ok() ? Status() : std::get<0>(v_); }
  T& value() & { return std::get<1>(v_); }
  const T& value() const& { return std::get<1>(v_); }
  T&& value() && { return std::get<1>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

#define DR_CONCAT_INNER_(a, b) a##b
#define DR_CONCAT_(a, b) DR_CONCAT_INNER_(a, b)

#define DR_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::dynarock::Status dr_status_ = (expr);   \
    if (!dr_status_.ok()) return dr_status_; \
  } while (0)

#define DR_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

#define DR_ASSIGN_OR_RETURN(lhs, expr) \
  DR_ASSIGN_OR_RETURN_IMPL_(DR_CONCAT_(dr_statusor_, __LINE__), lhs, expr)

}  // namespace dynarock

#endif  // DYNAROCK_STATUS_H_
