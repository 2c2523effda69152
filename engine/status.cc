#include "dynarock/status.h"

namespace dynarock {

std::string_view ErrorTypeName(ErrorType type) {
  switch (type) {
    case ErrorType::kOk: return "OK";
    case ErrorType::kValidation: return "ValidationException";
    case ErrorType::kSerialization: return "SerializationException";
    case ErrorType::kResourceNotFound: return "ResourceNotFoundException";
    case ErrorType::kResourceInUse: return "ResourceInUseException";
    case ErrorType::kConditionalCheckFailed: return "ConditionalCheckFailedException";
    case ErrorType::kTransactionCanceled: return "TransactionCanceledException";
    case ErrorType::kTransactionConflict: return "TransactionConflictException";
    case ErrorType::kTransactionInProgress: return "TransactionInProgressException";
    case ErrorType::kIdempotentParameterMismatch: return "IdempotentParameterMismatchException";
    case ErrorType::kItemCollectionSizeLimitExceeded:
      return "ItemCollectionSizeLimitExceededException";
    case ErrorType::kProvisionedThroughputExceeded:
      return "ProvisionedThroughputExceededException";
    case ErrorType::kRequestLimitExceeded: return "RequestLimitExceeded";
    case ErrorType::kThrottling: return "ThrottlingException";
    case ErrorType::kLimitExceeded: return "LimitExceededException";
    case ErrorType::kUnknownOperation: return "UnknownOperationException";
    case ErrorType::kMissingAuthenticationToken: return "MissingAuthenticationTokenException";
    case ErrorType::kUnrecognizedClient: return "UnrecognizedClientException";
    case ErrorType::kInvalidSignature: return "InvalidSignatureException";
    case ErrorType::kIncompleteSignature: return "IncompleteSignatureException";
    case ErrorType::kAccessDenied: return "AccessDeniedException";
    case ErrorType::kTableNotFound: return "TableNotFoundException";
    case ErrorType::kExpiredIterator: return "ExpiredIteratorException";
    case ErrorType::kTrimmedDataAccess: return "TrimmedDataAccessException";
    case ErrorType::kDuplicateItem: return "DuplicateItemException";
    case ErrorType::kInternalServerError: return "InternalServerError";
    case ErrorType::kBackupNotFound: return "BackupNotFoundException";
    case ErrorType::kBackupInUse: return "BackupInUseException";
    case ErrorType::kTableAlreadyExists: return "TableAlreadyExistsException";
    case ErrorType::kTableInUse: return "TableInUseException";
    case ErrorType::kContinuousBackupsUnavailable: return "ContinuousBackupsUnavailableException";
    case ErrorType::kPointInTimeRecoveryUnavailable:
      return "PointInTimeRecoveryUnavailableException";
    case ErrorType::kInvalidRestoreTime: return "InvalidRestoreTimeException";
    case ErrorType::kExportNotFound: return "ExportNotFoundException";
    case ErrorType::kExportConflict: return "ExportConflictException";
    case ErrorType::kInvalidExportTime: return "InvalidExportTimeException";
    case ErrorType::kImportNotFound: return "ImportNotFoundException";
    case ErrorType::kImportConflict: return "ImportConflictException";
    case ErrorType::kServiceUnavailable: return "ServiceUnavailable";
    case ErrorType::kPolicyNotFound: return "PolicyNotFoundException";
    case ErrorType::kGlobalTableNotFound: return "GlobalTableNotFoundException";
    case ErrorType::kReplicatedWriteConflict: return "ReplicatedWriteConflictException";
  }
  return "InternalServerError";
}

std::string ErrorWireType(ErrorType type) {
  std::string name(ErrorTypeName(type));
  switch (type) {
    case ErrorType::kValidation:
      return "com.amazon.coral.validate#" + name;
    case ErrorType::kSerialization:
    case ErrorType::kUnknownOperation:
    case ErrorType::kMissingAuthenticationToken:
    case ErrorType::kIncompleteSignature:
    case ErrorType::kInvalidSignature:
    case ErrorType::kUnrecognizedClient:
    case ErrorType::kAccessDenied:
      return "com.amazon.coral.service#" + name;
    case ErrorType::kThrottling:
      return "com.amazon.coral.availability#" + name;
    default:
      return "com.amazonaws.dynamodb.v20120810#" + name;
  }
}

int ErrorHttpStatus(ErrorType type) {
  switch (type) {
    case ErrorType::kOk: return 200;
    case ErrorType::kInternalServerError: return 500;
    case ErrorType::kServiceUnavailable: return 503;
    default: return 400;  // AccessDeniedException too (API reference, Common Errors)
  }
}

Status::Status(ErrorType type, std::string message)
    : rep_(type == ErrorType::kOk ? nullptr
                                  : std::make_shared<Rep>(Rep{type, std::move(message), {}, {}, {}, {}})) {}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

const std::optional<Item>& Status::item() const {
  static const std::optional<Item> kNone;
  return rep_ ? rep_->item : kNone;
}

const std::vector<CancellationReason>& Status::cancellation_reasons() const {
  static const std::vector<CancellationReason> kNone;
  return rep_ ? rep_->reasons : kNone;
}

const std::vector<BilledCapacity>& Status::billed() const {
  static const std::vector<BilledCapacity> kNone;
  return rep_ ? rep_->billed : kNone;
}

Status& Status::WithBilled(std::vector<BilledCapacity> billed) {
  if (rep_) rep_->billed = std::move(billed);
  return *this;
}

Status& Status::WithItem(Item item) {
  if (rep_) rep_->item = std::move(item);
  return *this;
}

const std::vector<ThrottlingReason>& Status::throttling_reasons() const {
  static const std::vector<ThrottlingReason> kNone;
  return rep_ ? rep_->throttling : kNone;
}

Status& Status::WithThrottlingReasons(std::vector<ThrottlingReason> reasons) {
  if (rep_) rep_->throttling = std::move(reasons);
  return *this;
}

Status& Status::WithCancellationReasons(std::vector<CancellationReason> reasons) {
  if (rep_) rep_->reasons = std::move(reasons);
  return *this;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(ErrorTypeName(type())) + ": " + message();
}

Status ValidationError(std::string message) {
  return Status(ErrorType::kValidation, std::move(message));
}
Status SerializationError(std::string message) {
  return Status(ErrorType::kSerialization, std::move(message));
}
Status ResourceNotFound(std::string message) {
  return Status(ErrorType::kResourceNotFound, std::move(message));
}
Status ResourceInUse(std::string message) {
  return Status(ErrorType::kResourceInUse, std::move(message));
}
Status ConditionalCheckFailed(std::string message) {
  return Status(ErrorType::kConditionalCheckFailed, std::move(message));
}
Status TransactionConflict(std::string message) {
  return Status(ErrorType::kTransactionConflict, std::move(message));
}
Status InternalError(std::string message) {
  return Status(ErrorType::kInternalServerError, std::move(message));
}

}  // namespace dynarock
