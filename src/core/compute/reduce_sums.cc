// sum and mean over a set of dims (src/core/compute/reduce.h): integers and
// bool summed in uint64 (wrapping), the rest in their computing type, in
// reduce_order.h's fixed order.
#include "reduce_order.h"

namespace dlnode {
namespace reduction {
namespace {

template <class T>
void SumsOf(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  using V = ValueOf<T>;
  if (op == ReduceOp::kSum || op == ReduceOp::kMean) {
    using A = SumAcc<T>;
    if constexpr (std::is_integral<V>::value) {
      ReduceTyped<T, A, Add>(in, reduced, out, 8, [](char* p, A acc, int64_t) {
        Put<int64_t>(p, static_cast<int64_t>(acc));  // two's complement: the wrapped sum
      });
    } else if (op == ReduceOp::kSum) {
      ReduceTyped<T, A, Add>(in, reduced, out, sizeof(T),
                             [](char* p, A acc, int64_t) { Store<T>(p, acc); });
    } else {
      // torch's mean: the sum rounded to the dtype, then divided in the
      // computing type and rounded again (at::sum(...).div_(n)).
      ReduceTyped<T, A, Add>(in, reduced, out, sizeof(T), [](char* p, A acc, int64_t n) {
        if constexpr (std::is_same<T, element::Half>::value ||
                      std::is_same<T, element::Bf16>::value) {
          Store<T>(p, acc);
          acc = Load<T>(p);
        }
        // No elements: 0 / 0, NaN (torch).
        Store<T>(p, acc / static_cast<typename RealOf<A>::type>(n));
      });
    }
    return;
  }
}

}  // namespace

void ReduceSums(ReduceOp op, const StridedInput& in, int reduced, char* out) {
  Dispatch(in.type, [&](auto tag) { SumsOf<typename decltype(tag)::type>(op, in, reduced, out); });
}

}  // namespace reduction
}  // namespace dlnode
