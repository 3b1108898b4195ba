// One shape for every failure src/core reports (docs/development.md "Native
// failures"): a Result<Failure> holds which row of a failure table applied and
// the message, worded here in src/core where the failure is found; the row's
// code comes from the table's code column. The addon turns any Result into a
// coded JS error with one generic throw (src/addon/errors.h ThrowIfFailed) and
// adds no text of its own.
//
// A failure table is an X-macro of rows X(Constant, code, ...): the first row
// is kNone with a null code, the others name an error_codes.h code; further
// columns are the table's own (a JS name where lib/ reads the table).
// DLNODE_DEFINE_FAILURES(Name, TABLE) declares `enum class Name` and the
// CodeOf(Name) that Result::code() finds by argument-dependent lookup.
#ifndef DLPACK_NODE_CORE_RESULT_H_
#define DLPACK_NODE_CORE_RESULT_H_

#include <string>
#include <utility>

#include "error_codes.h"

#define DLNODE_FAILURE_CONSTANT(constant, code, ...) constant,
#define DLNODE_FAILURE_CODE(constant, code, ...) code,

// NOLINTBEGIN(bugprone-macro-parentheses): `Name` is a type being declared
#define DLNODE_DEFINE_FAILURES(Name, TABLE)                               \
  enum class Name { TABLE(DLNODE_FAILURE_CONSTANT) };                     \
  inline const char* CodeOf(Name failure) {                               \
    static constexpr const char* kCodes[] = {TABLE(DLNODE_FAILURE_CODE)}; \
    return kCodes[static_cast<int>(failure)];                             \
  }
// NOLINTEND(bugprone-macro-parentheses)

namespace dlnode {

template <typename Failure>
struct Result {
  Failure failure = Failure::kNone;
  std::string message = {};  // names what was expected and what was found
  std::string detail = {};   // CUDA failures: the cudaError name (CudaError.cudaError)
  bool ok() const { return failure == Failure::kNone; }
  // The table's code for this failure (nullptr for kNone).
  const char* code() const { return CodeOf(failure); }
};

// A failed Result.
template <typename Failure>
Result<Failure> Failed(Failure failure, std::string message, std::string detail = {}) {
  return Result<Failure>{failure, std::move(message), std::move(detail)};
}

}  // namespace dlnode

#endif  // DLPACK_NODE_CORE_RESULT_H_
