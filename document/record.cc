// File: document/record.cc
//
// The messages of typed records' conversions (document/record.h).

#include "document/record.h"

namespace dynarock::document::record_internal {

Status WrongKind(const std::string& path, std::string_view wanted, const Value& found) {
  return ValidationError(path + ": expected a " + std::string(wanted) + ", found a " +
                         std::string(KindName(found.kind())));
}

Status DoesNotFit(const std::string& path, const Number& n, std::string_view member) {
  return ValidationError(path + ": the number " + n.text() + " does not fit its " + std::string(member) +
                         " member");
}

}  // namespace dynarock::document::record_internal
