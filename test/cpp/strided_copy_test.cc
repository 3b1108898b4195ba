// StridedCopy against a naive element-by-element reference, over whole
// buffers with guard bytes: the copy must write every destination element and
// nothing else.
#include "strided_copy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using dlnode::StridedCopy;
using dlnode::StridedView;

constexpr size_t kGuard = 64;  // bytes before and after each view's extent
constexpr unsigned char kSentinel = 0xEE;

struct Case {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int64_t> dst_strides;
  std::vector<int64_t> src_strides;
};

// gtest prints parameters of failing tests with this.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string Describe(const Case& c, uint64_t item_size) {
  std::ostringstream out;
  out << c.name << " item " << item_size << " shape [";
  for (int64_t d : c.shape) out << d << ' ';
  out << "] dst [";
  for (int64_t s : c.dst_strides) out << s << ' ';
  out << "] src [";
  for (int64_t s : c.src_strides) out << s << ' ';
  out << ']';
  return out.str();
}

bool IsEmpty(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d == 0) return true;
  }
  return false;
}

// Bytes below and from element 0 that a view touches.
void Extent(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
            uint64_t item_size, size_t* below, size_t* from) {
  *below = 0;
  *from = 0;
  if (IsEmpty(shape)) return;
  int64_t lo = 0;
  int64_t hi = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t step = (shape[i] - 1) * strides[i];
    (step < 0 ? lo : hi) += step;
  }
  *below = static_cast<size_t>(-lo) * item_size;
  *from = static_cast<size_t>(hi) * item_size + item_size;
}

// A buffer holding one strided view, with guard bytes on both sides.
struct Buffer {
  std::vector<unsigned char> bytes;
  size_t first_offset = 0;

  Buffer(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
         uint64_t item_size) {
    size_t below = 0;
    size_t from = 0;
    Extent(shape, strides, item_size, &below, &from);
    bytes.assign(kGuard + below + from + kGuard, kSentinel);
    first_offset = kGuard + below;
  }
  char* first() { return reinterpret_cast<char*>(bytes.data() + first_offset); }
};

// Visit every multi-index in row-major order.
template <typename Visit>
void ForEachIndex(const std::vector<int64_t>& shape, Visit visit) {
  if (IsEmpty(shape)) return;
  std::vector<int64_t> index(shape.size(), 0);
  for (;;) {
    visit(index);
    size_t axis = shape.size();
    while (axis > 0) {
      --axis;
      if (++index[axis] < shape[axis]) break;
      index[axis] = 0;
      if (axis == 0) return;
    }
    if (shape.empty()) return;
  }
}

int64_t Offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t i = 0; i < index.size(); ++i) off += index[i] * strides[i];
  return off;
}

void ReferenceCopy(const Case& c, uint64_t item_size, char* dst, const char* src) {
  const auto isz = static_cast<int64_t>(item_size);
  ForEachIndex(c.shape, [&](const std::vector<int64_t>& index) {
    std::memcpy(dst + Offset(index, c.dst_strides) * isz, src + Offset(index, c.src_strides) * isz,
                item_size);
  });
}

// Runs StridedCopy and the reference on identical buffers and compares them
// byte for byte, guards included.
void ExpectCopyMatchesReference(const Case& c, uint64_t item_size) {
  SCOPED_TRACE(Describe(c, item_size));
  ASSERT_EQ(c.shape.size(), c.dst_strides.size());
  ASSERT_EQ(c.shape.size(), c.src_strides.size());
  Buffer src(c.shape, c.src_strides, item_size);
  // Distinct bytes everywhere, so a misplaced element shows.
  for (size_t i = 0; i < src.bytes.size(); ++i) {
    src.bytes[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
  }
  const std::vector<unsigned char> src_before = src.bytes;
  Buffer actual(c.shape, c.dst_strides, item_size);
  Buffer expected(c.shape, c.dst_strides, item_size);

  const int ndim = static_cast<int>(c.shape.size());
  StridedCopy(ndim, c.shape.data(), item_size, StridedView{actual.first(), c.dst_strides.data()},
              StridedView{src.first(), c.src_strides.data()});
  ReferenceCopy(c, item_size, expected.first(), src.first());

  EXPECT_EQ(src.bytes, src_before) << "the source was written";
  ASSERT_EQ(actual.bytes.size(), expected.bytes.size());
  for (size_t i = 0; i < actual.bytes.size(); ++i) {
    if (actual.bytes[i] != expected.bytes[i]) {
      ADD_FAILURE() << "first difference at byte " << i << " of " << actual.bytes.size()
                    << " (element 0 at byte " << actual.first_offset << "): got "
                    << +actual.bytes[i] << ", expected " << +expected.bytes[i];
      return;
    }
  }
}

std::vector<Case> Cases() {
  return {
      {"contiguous 1-D", {10}, {1}, {1}},
      {"contiguous 3-D", {2, 3, 4}, {12, 4, 1}, {12, 4, 1}},
      {"transposed source", {3, 5}, {5, 1}, {1, 3}},
      {"transposed destination", {3, 5}, {1, 3}, {5, 1}},
      {"both transposed", {4, 6}, {1, 4}, {1, 4}},
      {"reversed source", {4, 6}, {6, 1}, {-6, -1}},
      {"reversed inner axis", {4, 6}, {6, 1}, {6, -1}},
      {"reversed destination", {7}, {-1}, {1}},
      {"reversed both", {3, 4}, {-4, -1}, {-4, -1}},
      {"broadcast row", {4, 5}, {5, 1}, {0, 1}},
      {"broadcast column", {4, 5}, {5, 1}, {1, 0}},
      {"broadcast scalar", {3, 4, 2}, {8, 2, 1}, {0, 0, 0}},
      {"broadcast middle", {2, 3, 4}, {12, 4, 1}, {4, 0, 1}},
      {"every other element", {3, 4}, {4, 1}, {16, 2}},
      {"padded rows", {3, 4}, {6, 1}, {4, 1}},
      {"padded rows both", {3, 4}, {6, 1}, {5, 1}},
      {"size 0 leading", {0, 4}, {4, 1}, {4, 1}},
      {"size 0 middle", {3, 0, 2}, {2, 2, 1}, {1, 3, 1}},
      {"size 0 trailing", {1, 8, 0}, {0, 0, 1}, {0, 0, 1}},
      {"0-d", {}, {}, {}},
      {"all size 1", {1, 1, 1}, {7, -3, 100}, {1, 1, 1}},
      {"size-1 dims in 3-D", {1, 4, 1}, {99, 1, -5}, {1, 1, 1}},
      {"size-1 dims among strided", {2, 1, 3, 1}, {3, 1000, 1, 0}, {1, -7, 2, 42}},
      {"size-1 dim between mergeable axes", {2, 1, 3}, {3, 77, 1}, {3, 5, 1}},
      {"4-D mixed", {2, 3, 2, 5}, {30, 10, 5, 1}, {-1, 10, 30, -2}},
  };
}

class StridedCopyTest : public ::testing::TestWithParam<std::tuple<Case, uint64_t>> {};

TEST_P(StridedCopyTest, MatchesReference) {
  ExpectCopyMatchesReference(std::get<0>(GetParam()), std::get<1>(GetParam()));
}

std::string ParamName(const ::testing::TestParamInfo<std::tuple<Case, uint64_t>>& info) {
  std::string name;
  for (char ch : std::get<0>(info.param).name) {
    name += (std::isalnum(static_cast<unsigned char>(ch)) != 0) ? ch : '_';
  }
  return name + "_item" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cases, StridedCopyTest,
                         ::testing::Combine(::testing::ValuesIn(Cases()),
                                            ::testing::Values(1u, 2u, 4u, 8u, 16u)),
                         ParamName);

TEST(StridedCopy, ZeroDimCopiesExactlyOneItem) {
  const unsigned char src[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  unsigned char dst[20];
  std::memset(dst, kSentinel, sizeof(dst));
  StridedCopy(0, nullptr, 16, StridedView{reinterpret_cast<char*>(dst) + 2, nullptr},
              StridedView{const_cast<char*>(reinterpret_cast<const char*>(src)), nullptr});
  EXPECT_EQ(dst[0], kSentinel);
  EXPECT_EQ(dst[1], kSentinel);
  EXPECT_EQ(std::memcmp(dst + 2, src, 16), 0);
  EXPECT_EQ(dst[18], kSentinel);
  EXPECT_EQ(dst[19], kSentinel);
}

TEST(StridedCopy, SizeZeroTouchesNothingEvenThroughNullPointers) {
  const int64_t shape[] = {4, 0};
  const int64_t strides[] = {1, 1};
  StridedCopy(2, shape, 8, StridedView{nullptr, strides}, StridedView{nullptr, strides});
}

TEST(StridedCopy, TransposesAFloatMatrix) {
  // A readable case next to the byte-level ones: [[0 1 2] [3 4 5]] read
  // column-major into a row-major [3, 2].
  const float src[6] = {0, 1, 2, 3, 4, 5};
  float dst[6] = {};
  const int64_t shape[] = {3, 2};
  const int64_t dst_strides[] = {2, 1};
  const int64_t src_strides[] = {1, 3};
  StridedCopy(2, shape, sizeof(float), StridedView{reinterpret_cast<char*>(dst), dst_strides},
              StridedView{const_cast<char*>(reinterpret_cast<const char*>(src)), src_strides});
  const float expected[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(dst[i], expected[i]) << "index " << i;
}

// Random shapes up to 5-D with permuted, sliced, reversed and broadcast source
// axes into destinations that are either contiguous or themselves permuted.
TEST(StridedCopy, RandomViewsMatchReference) {
  std::mt19937 rng(20240611);
  auto uniform = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 400; ++round) {
    Case c;
    c.name = "random " + std::to_string(round);
    const int ndim = uniform(0, 5);
    for (int i = 0; i < ndim; ++i) c.shape.push_back(uniform(round % 50 == 0 ? 0 : 1, 4));
    auto make_strides = [&](bool allow_broadcast) {
      // Row-major over a padded, permuted layout, then per-axis sign/step.
      std::vector<int> order(ndim);
      for (int i = 0; i < ndim; ++i) order[i] = i;
      if (uniform(0, 1) == 1) std::shuffle(order.begin(), order.end(), rng);
      std::vector<int64_t> strides(ndim, 0);
      int64_t running = uniform(1, 2);
      for (int k = ndim - 1; k >= 0; --k) {
        const int axis = order[k];
        strides[axis] = running;
        running *= c.shape[axis] + uniform(0, 1);
      }
      for (int i = 0; i < ndim; ++i) {
        const int roll = uniform(0, 9);
        if (roll == 0) strides[i] = -strides[i];
        if (roll == 1 && allow_broadcast) strides[i] = 0;
      }
      return strides;
    };
    c.dst_strides = make_strides(/*allow_broadcast=*/false);
    c.src_strides = make_strides(/*allow_broadcast=*/true);
    const uint64_t item_sizes[] = {1, 2, 4, 8, 16};
    ExpectCopyMatchesReference(c, item_sizes[uniform(0, 4)]);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
