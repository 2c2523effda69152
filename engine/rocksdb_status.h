// File: engine/rocksdb_status.h
//
// The only mapping from rocksdb::Status to dynarock::Status. Busy and TryAgain
// mean a concurrent transaction holds the data (TransactionConflictException);
// everything else that is not OK is an internal error.

#ifndef DYNAROCK_ENGINE_ROCKSDB_STATUS_H_
#define DYNAROCK_ENGINE_ROCKSDB_STATUS_H_

#include <rocksdb/status.h>

#include "dynarock/status.h"

namespace dynarock {

inline Status FromRocksDB(const rocksdb::Status& s) {
  if (s.ok()) return Status();
  if (s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) {
    return TransactionConflict("Transaction is ongoing for the item");
  }
  return InternalError("Storage error: " + s.ToString());
}

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_ROCKSDB_STATUS_H_
