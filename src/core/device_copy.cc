#include "device_copy.h"

#include "strided_loop.h"

namespace dlnode {

CopyPlan MakeCopyPlan(int ndim, const int64_t* shape, const int64_t* dst_strides,
                      const int64_t* src_strides) {
  CopyPlan p;
  p.count = 1;
  for (int i = 0; i < ndim; ++i) p.count *= shape[i];
  if (p.count == 0) return p;
  // strided::Coalesce, the host loops' rule (size-1 dims dropped, a dim
  // merged into the one outside it when both views step over the two as
  // one); on element strides here, which the rule does not depend on.
  strided::Plan c;
  c.ndim = ndim;
  c.n = 2;
  for (int i = 0; i < ndim; ++i) {
    c.shape[i] = shape[i];
    c.strides[0][i] = dst_strides[i];
    c.strides[1][i] = src_strides[i];
  }
  strided::Coalesce(&c);
  p.ndim = c.ndim;
  for (int i = 0; i < c.ndim; ++i) {
    p.shape[i] = c.shape[i];
    p.dst_strides[i] = c.strides[0][i];
    p.src_strides[i] = c.strides[1][i];
  }
  return p;
}

bool IsConvertible(ElementType t) {
  switch (t.code) {
    case kDLBool:
      return t.bits == 8;
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    case kDLComplex:
      return t.bits == 64 || t.bits == 128;
    default:
      return false;
  }
}

void ConvertStrided(const CopyPlan& plan, ElementType dst_type, char* dst, ElementType src_type,
                    const char* src) {
  // The kernels' choice: 32-bit indices where the plan allows.
  const int64_t dst_item = dst_type.bits / 8;
  const int64_t src_item = src_type.bits / 8;
  CopyPlan32 narrow;
  const bool use32 = MakeCopyPlan32(plan, &narrow);
  const bool aligned = ElementsAligned(dst, dst_type) && ElementsAligned(src, src_type);
  for (int64_t i = 0; i < plan.count; ++i) {
    int64_t d = 0;
    int64_t s = 0;
    if (use32)
      PlanOffsets(narrow, static_cast<uint32_t>(i), &d, &s);
    else
      PlanOffsets(plan, i, &d, &s);
    if (SameType(dst_type, src_type))
      memcpy(dst + d * dst_item, src + s * src_item, static_cast<size_t>(dst_item));
    else
      ConvertElement(dst + d * dst_item, dst_type, src + s * src_item, src_type, aligned);
  }
}

}  // namespace dlnode
