// DtypeTable: lookup of (code, bits, lanes) and bytes per element.
#include "dtype.h"

#include <gtest/gtest.h>

#include "test_dtypes.h"

namespace {

using dlnode::DtypeEntry;
using dlnode::Dtypes;
using dlnode::DtypeTable;
using dlnode_test::Dtype;

TEST(DtypeTable, FindsEveryEntryAtItsIndex) {
  const DtypeTable& table = Dtypes();
  ASSERT_EQ(table.size(), dlnode::dtype::kCount);
  for (int i = 0; i < table.size(); ++i) {
    const DtypeEntry e = table.at(i);
    EXPECT_EQ(table.Find(Dtype(e.code, e.bits)), i) << "code " << +e.code << " bits " << +e.bits;
  }
}

TEST(DtypeTable, RejectsLanesOtherThanOne) {
  const DtypeTable& table = Dtypes();
  EXPECT_EQ(table.Find(Dtype(kDLFloat, 32, 0)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLFloat, 32, 2)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLFloat, 32, 4)), -1);
}

TEST(DtypeTable, RejectsUnknownCodesAndBits) {
  const DtypeTable& table = Dtypes();
  EXPECT_EQ(table.Find(Dtype(kDLFloat, 8)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLBool, 16)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLBool, 1)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLOpaqueHandle, 64)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLBfloat, 32)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLComplex, 32)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLInt, 128)), -1);
  EXPECT_EQ(table.Find(Dtype(kDLFloat8_e4m3fn, 8)), -1);
}

TEST(DtypeTable, EmptyTableFindsNothing) {
  const DtypeTable table;
  EXPECT_EQ(table.size(), 0);
  EXPECT_EQ(table.Find(Dtype(kDLFloat, 32)), -1);
}

TEST(DtypeTable, ItemSizeRoundsBitsUpToBytes) {
  EXPECT_EQ(DtypeTable::ItemSize({kDLBool, 8}), 1u);
  EXPECT_EQ(DtypeTable::ItemSize({kDLFloat, 16}), 2u);
  EXPECT_EQ(DtypeTable::ItemSize({kDLComplex, 64}), 8u);
  EXPECT_EQ(DtypeTable::ItemSize({kDLComplex, 128}), 16u);
  EXPECT_EQ(DtypeTable::ItemSize({kDLFloat4_e2m1fn, 4}), 1u);
  EXPECT_EQ(DtypeTable::ItemSize({kDLFloat6_e2m3fn, 6}), 1u);
}

}  // namespace
