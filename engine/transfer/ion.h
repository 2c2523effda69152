// File: engine/transfer/ion.h
//
// The subset of Amazon Ion text that DynamoDB's exports write and its imports
// read, with DynamoDB's type mapping (developer guide, "DynamoDB table export
// output format", Ion):
//
//   S -> string "..."           N -> decimal (103. 1.5 6d2)    B -> blob {{base64}}
//   BOOL -> true/false          NULL -> null                    L -> list [...]
//   M -> struct {name:value}    SS/NS/BS -> $dynamodb_SS::[...], $dynamodb_NS::[...],
//                                            $dynamodb_BS::[...]
//
// A record is `$ion_1_0 {Item:{...}}` on a line of its own. The reader also
// takes Ion ints and floats as N, symbols as S, clobs as B, typed nulls
// (null.string) as NULL, comments, and records spread over several lines; it
// refuses timestamps, S-expressions and other annotations. Internal to
// engine/transfer.

#ifndef DYNAROCK_TRANSFER_ION_H_
#define DYNAROCK_TRANSFER_ION_H_

#include <string>
#include <string_view>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock::transfer {

void AppendIonValue(const AttributeValue& v, std::string* out);
// {name:value,...}
void AppendIonStruct(const Item& item, std::string* out);
// A struct field name: bare when it is an identifier, else a quoted symbol.
void AppendIonFieldName(std::string_view name, std::string* out);

// Parses the first top-level value of `text` (after an optional $ion_1_0
// marker), which must be a struct, into *out (its fields as an M value's
// members). *incomplete is set when the text ends inside the value (more
// lines may complete it); otherwise errors are ValidationExceptions naming
// the problem. Text after the value other than whitespace, comments or
// another version marker is an error.
Status ParseIonRecord(std::string_view text, Item* out, bool* incomplete);

}  // namespace dynarock::transfer

#endif  // DYNAROCK_TRANSFER_ION_H_
