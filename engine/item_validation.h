// File: engine/item_validation.h
//
// Validation and normalisation of attribute values arriving from a client
// (PutItem items, update values, expression values), with DynamoDB's messages
// (ValidationException):
//
//   N, NS elements       number.h's messages ("The parameter cannot be converted
//                        to a numeric value: x", 38 digits, overflow, underflow);
//                        valid ones are rewritten in normalised form and NS is
//                        re-sorted.
//   empty SS / NS / BS   "One or more parameter values were invalid: An string set  may not be empty"
//                        "One or more parameter values were invalid: An number set  may not be empty"
//                        "One or more parameter values were invalid: Binary sets should not be empty"
//   duplicate elements   SS: "One or more parameter values were invalid: Input collection [a, a] contains duplicates."
//                        BS: "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates."
//                            (elements in base64, no space before "of": DynamoDB's wording)
//                        NS: "Input collection contains duplicates" (also for
//                            elements equal only after normalisation: "1.0", "1")
//   attribute names      top-level names must be 1 byte to less than 64 KB long
//                        ("Attribute names must be at least one character long and
//                        less than 64 KB", the developer guide's naming rules)
//   nesting > 32 levels  "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
//
// The wording was taken from DynamoDB-compatibility test suites checked against
// DynamoDB (dynalite's validation tests; captures quoted in emulator issues).
// Sets are rendered in the (sorted) order AttributeValue keeps, not the
// client's order, which DynamoDB's message would show.
//
// Not checked here (the engine's job, it knows the schema): key attribute types
// and lengths, empty key values, item size.

#ifndef DYNAROCK_ENGINE_ITEM_VALIDATION_H_
#define DYNAROCK_ENGINE_ITEM_VALIDATION_H_

#include <optional>

#include "dynarock/attribute_value.h"
#include "dynarock/status.h"

namespace dynarock {

// NormalizeAndValidateValue(): validates `*v`, whose nesting level is `depth`
// (a top-level attribute value is level 1, its elements level 2, ...), and
// rewrites numbers in place. On error `*v` may be partly normalised.
Status NormalizeAndValidateValue(AttributeValue* v, int depth);

// NormalizeAndValidateItem(): NormalizeAndValidateValue(value, 1) for every
// attribute; the first error wins (attributes in name order).
Status NormalizeAndValidateItem(Item* item);
// The same, setting `*size` to the normalised item's ItemSize() on the same walk.
Status NormalizeAndValidateItem(Item* item, size_t* size);

// ValidateItem(): the same checks on an item left as it is. When a number in
// it is not in its normal form, `*normalized` is set to a normalised copy
// (what gets stored); otherwise it is left empty and the item itself is
// stored as it is, without a copy. `*size` is set to the size of what gets
// stored (ItemSize(), taken on the same walk as the checks).
Status ValidateItem(const Item& item, std::optional<Item>* normalized, size_t* size);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_ITEM_VALIDATION_H_
