// fromBuffer's numbers (CheckBufferView): one test per rule, and the doubles
// JavaScript could hand over that are not plain integers.
#include "buffer_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "layout.h"

namespace {

using dlnode::CheckBufferView;
using dlnode::ViewFailure;
using dlnode::ViewResult;

constexpr double kSafe = 9007199254740991.0;  // 2^53 - 1
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ViewFailure FailureOf(double length, double base, double item, double offset, double count) {
  return CheckBufferView(length, base, item, offset, count).failure;
}

TEST(CheckBufferView, CountMinusOneTakesTheRest) {
  const ViewResult r = CheckBufferView(16, 0, 4, 4, -1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.count, 3u);
}

TEST(CheckBufferView, ExplicitCountThatFitsExactly) {
  const ViewResult r = CheckBufferView(16, 0, 2, 6, 5);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.count, 5u);
  EXPECT_EQ(FailureOf(16, 0, 2, 6, 6), ViewFailure::kCount);
}

TEST(CheckBufferView, EmptyBufferAndZeroCount) {
  EXPECT_EQ(CheckBufferView(0, 0, 8, 0, -1).count, 0u);
  EXPECT_TRUE(CheckBufferView(0, 0, 8, 0, -1).ok());
  EXPECT_TRUE(CheckBufferView(16, 0, 8, 16, 0).ok());
}

TEST(CheckBufferView, NegativeZeroIsZero) {
  const ViewResult r = CheckBufferView(16, 0, 4, -0.0, -0.0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.count, 0u);
  EXPECT_EQ(CheckBufferView(16, 0, 4, -0.0, -1).count, 4u);
}

TEST(CheckBufferView, OffsetOutsideTheBytes) {
  EXPECT_EQ(FailureOf(8, 0, 1, 9, -1), ViewFailure::kOffset);
  EXPECT_EQ(FailureOf(8, 0, 1, -1, -1), ViewFailure::kOffset);
  EXPECT_TRUE(CheckBufferView(8, 0, 1, 8, -1).ok());
}

TEST(CheckBufferView, OffsetThatIsNoSafeInteger) {
  for (double offset : {kNaN, kInf, -kInf, 0.5, 1e300, kSafe + 1, 18446744073709551616.0}) {
    EXPECT_EQ(FailureOf(kSafe, 0, 1, offset, -1), ViewFailure::kOffset) << offset;
  }
}

TEST(CheckBufferView, AlignmentCountsTheViewBase) {
  EXPECT_EQ(FailureOf(16, 0, 4, 2, -1), ViewFailure::kMisaligned);
  EXPECT_EQ(FailureOf(13, 1, 2, 0, -1), ViewFailure::kMisaligned);
  const ViewResult r = CheckBufferView(13, 1, 2, 1, -1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.count, 6u);
}

TEST(CheckBufferView, MinusOneNeedsWholeElements) {
  EXPECT_EQ(FailureOf(10, 0, 4, 0, -1), ViewFailure::kRemainder);
  EXPECT_EQ(FailureOf(10, 0, 4, 0, 2), ViewFailure::kNone);
}

TEST(CheckBufferView, CountThatIsNoFittingInteger) {
  for (double count : {-2.0, -kSafe, -kInf, kInf, kNaN, 0.5, -0.5, 3.0, kSafe, kSafe + 1, 1e300}) {
    EXPECT_EQ(FailureOf(16, 0, 8, 0, count), ViewFailure::kCount) << count;
  }
}

TEST(CheckBufferView, CountTimesItemSizeMayOverflow) {
  // 2^52 elements of 2^13 bytes: the product is 2^65.
  EXPECT_EQ(FailureOf(kSafe, 0, 8192, 0, 4503599627370496.0), ViewFailure::kCount);
}

TEST(CheckBufferView, LargestBuffer) {
  const ViewResult r = CheckBufferView(kSafe, 0, 1, 0, kSafe);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.count, dlnode::kMaxSafeInteger);
}

TEST(CheckBufferView, RefusesSourceNumbersJavaScriptNeverGives) {
  EXPECT_EQ(FailureOf(16, 0, 0, 0, -1), ViewFailure::kSource);  // item size 0
  EXPECT_EQ(FailureOf(16, 0, 1.5, 0, -1), ViewFailure::kSource);
  EXPECT_EQ(FailureOf(-1, 0, 1, 0, -1), ViewFailure::kSource);
  EXPECT_EQ(FailureOf(kNaN, 0, 1, 0, -1), ViewFailure::kSource);
  EXPECT_EQ(FailureOf(16, kInf, 1, 0, -1), ViewFailure::kSource);
  EXPECT_EQ(FailureOf(kSafe, 1, 1, 0, -1), ViewFailure::kSource);  // base + length > 2^53 - 1
  EXPECT_EQ(FailureOf(kSafe - 1, 1, 1, 0, -1), ViewFailure::kNone);
}

TEST(CheckBufferView, FailuresComeInTheDocumentedOrder) {
  // Everything wrong; fixing one thing at a time walks the list.
  EXPECT_EQ(FailureOf(10, 1, 0, 99, -7), ViewFailure::kSource);
  EXPECT_EQ(FailureOf(10, 1, 4, 99, -7), ViewFailure::kOffset);
  EXPECT_EQ(FailureOf(10, 1, 4, 2, -7), ViewFailure::kMisaligned);
  EXPECT_EQ(FailureOf(10, 1, 4, 3, -7), ViewFailure::kCount);
  EXPECT_EQ(FailureOf(10, 1, 4, 3, -1), ViewFailure::kRemainder);
  EXPECT_EQ(FailureOf(11, 1, 4, 3, -1), ViewFailure::kNone);
}

}  // namespace
