// File: tools/data_dir.h
//
// Which database a command's `--data DIR` means. `dynarock serve` keeps each
// access key's and region's tables in DIR/namespaces/KEY_REGION (as DynamoDB
// Local does, unless --shared-db) and the shared namespace in DIR itself
// (tools/server/namespaces.h). A command on DIR opens the shared namespace,
// unless it holds no table and DIR has exactly one other namespace, which it
// then opens: the common case of one developer with one set of credentials
// needs no flag. DYNAROCK_NAMESPACE=KEY_REGION (or "shared") chooses one.

#ifndef DYNAROCK_TOOLS_DATA_DIR_H_
#define DYNAROCK_TOOLS_DATA_DIR_H_

#include <memory>
#include <string>

#include "dynarock/db.h"

namespace dynarock::tools {

// Opens the database `data_dir` means (above) with `options`.
StatusOr<std::unique_ptr<DB>> OpenDataDir(const std::string& data_dir, Options options);

}  // namespace dynarock::tools

#endif  // DYNAROCK_TOOLS_DATA_DIR_H_
