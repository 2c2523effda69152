// File: engine/api/json_backups.h
//
// DynamoDB JSON <-> the backup and restore requests of dynarock/backups.h.

#ifndef DYNAROCK_API_JSON_BACKUPS_H_
#define DYNAROCK_API_JSON_BACKUPS_H_

#include <string>
#include <string_view>

#include "dynarock/backups.h"
#include "dynarock/status.h"

namespace dynarock::api {

StatusOr<CreateBackupRequest> DecodeCreateBackupRequest(std::string_view body);
StatusOr<DescribeBackupRequest> DecodeDescribeBackupRequest(std::string_view body);
StatusOr<DeleteBackupRequest> DecodeDeleteBackupRequest(std::string_view body);
StatusOr<ListBackupsRequest> DecodeListBackupsRequest(std::string_view body);
StatusOr<RestoreTableFromBackupRequest> DecodeRestoreTableFromBackupRequest(std::string_view body);
StatusOr<RestoreTableToPointInTimeRequest> DecodeRestoreTableToPointInTimeRequest(
    std::string_view body);

std::string EncodeCreateBackupResponse(const CreateBackupResponse& r);
std::string EncodeDescribeBackupResponse(const DescribeBackupResponse& r);
std::string EncodeDeleteBackupResponse(const DeleteBackupResponse& r);
std::string EncodeListBackupsResponse(const ListBackupsResponse& r);
std::string EncodeRestoreTableFromBackupResponse(const RestoreTableFromBackupResponse& r);
std::string EncodeRestoreTableToPointInTimeResponse(const RestoreTableToPointInTimeResponse& r);

}  // namespace dynarock::api

#endif  // DYNAROCK_API_JSON_BACKUPS_H_
