// File: engine/number.h
//
// DynamoDB's N type: an exact decimal of up to 38 significant digits, with a
// magnitude of 1E-130 to 9.9999999999999999999999999999999999999E+125 (or zero).
// Numbers travel as text and are kept as text in DynamoDB's normalised form:
//   "01.500" -> "1.5", "-0" -> "0", "1E+2" -> "100", "1.5e-3" -> "0.0015",
//   "-.5" -> "-0.5". Never an exponent in the output: plain decimal digits.
//
// Errors (ValidationException) as DynamoDB words them:
//   "The parameter cannot be converted to a numeric value: abc"
//   "Attempting to store more than 38 significant digits in a Number"
//   "Number overflow. Attempting to store a number with magnitude larger than supported range"
//   "Number underflow. Attempting to store a number with magnitude smaller than supported range"

#ifndef DYNAROCK_ENGINE_NUMBER_H_
#define DYNAROCK_ENGINE_NUMBER_H_

#include <string>
#include <string_view>

#include "dynarock/status.h"

namespace dynarock {

// A parsed decimal: value = (negative ? -1 : 1) * 0.d1d2d3... * 10^exponent,
// where `digits` has no leading or trailing zeros (empty for zero).
struct Decimal {
  bool negative = false;
  std::string digits;  // '1'..'9' first and last; at most 38 for a valid N
  int exponent = 0;    // meaningful only when digits is non-empty
  bool is_zero() const { return digits.empty(); }
};

// Parses DynamoDB number text (optional sign, digits with optional '.', optional
// e/E exponent with optional sign; leading/trailing zeros allowed). Enforces the
// 38-digit and magnitude limits with DynamoDB's messages.
StatusOr<Decimal> ParseNumber(std::string_view text);

// The normalised text of a Decimal (see the file comment).
std::string FormatNumber(const Decimal& d);

// ParseNumber + FormatNumber.
StatusOr<std::string> NormalizeNumber(std::string_view text);

// True when `text` is certainly a valid number already in its normalised form
// (NormalizeNumber(text) == text), checked without parsing or allocating: an
// integer or a decimal of at most 38 characters with no leading zero, no
// trailing zero after the point, no exponent and no "+" or "-0". False says
// only that the fast check does not know (NormalizeNumber then decides).
bool IsPlainNormalNumber(std::string_view text);

// Numeric comparison of two valid normalised numbers: <0, 0, >0.
int CompareNumbers(std::string_view a, std::string_view b);

// Exact a + b and a - b of normalised numbers; the result is normalised. Errors
// when the exact result needs more than 38 significant digits
// ("Number overflow. Attempting to store a number with magnitude larger than
// supported range" for magnitude, "Attempting to store more than 38 significant
// digits in a Number" for precision), as DynamoDB does for SET a = a + :v and ADD.
StatusOr<std::string> AddNumbers(std::string_view a, std::string_view b);
StatusOr<std::string> SubtractNumbers(std::string_view a, std::string_view b);

// Order-preserving encoding of a normalised number: memcmp order of the outputs
// equals numeric order; equal numbers encode equally. Used as the last component
// of a key (AppendNumberKey) and, with a terminator, inside index keys.
void AppendNumberKey(std::string_view normalized, std::string* out);
// Decodes what AppendNumberKey wrote at the start of `in`, advancing it. False on
// malformed input.
bool ConsumeNumberKey(std::string_view* in, std::string* normalized);

}  // namespace dynarock

#endif  // DYNAROCK_ENGINE_NUMBER_H_
