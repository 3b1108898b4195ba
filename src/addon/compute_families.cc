#include "compute_families.h"

#include "../core/compute/boxes.h"
#include "../core/compute/index.h"
#include "../core/compute/interpolate.h"
#include "../core/compute/random.h"
#include "../core/compute/scan.h"
#include "../core/compute/sort.h"
#include "compute_view.h"
#include "errors.h"

namespace dlnode {
namespace {

using Role = JobMemory::Role;

// Each operand takes four arguments (compute_view.h).
constexpr int kView = 4;

bool FlagAt(const Napi::CallbackInfo& info, int at) { return info[at].ToBoolean().Value(); }
double NumberAt(const Napi::CallbackInfo& info, int at) {
  return info[at].As<Napi::Number>().DoubleValue();
}

}  // namespace

Napi::Value SortLanes(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg in;
  ViewArg values;
  ViewArg indices;
  ReadView(info, 0, &memory, Role::kInput, "input", &in);
  ReadView(info, kView + 1, &memory, Role::kOutput, "values", &values);
  ReadView(info, 2 * kView + 1, &memory, Role::kOutput, "indices", &indices);
  compute::SortArgs args;
  args.in = in.view;
  args.descending = FlagAt(info, kView);
  args.values = values.view;
  args.indices = indices.view;
  ThrowIfFailed(compute::Sort(args));
  return info.Env().Undefined();
}

Napi::Value ScanLanes(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg in;
  ViewArg out;
  ReadView(info, 1, &memory, Role::kInput, "input", &in);
  ReadView(info, 1 + kView, &memory, Role::kOutput, "result", &out);
  compute::ScanArgs args;
  args.product = FlagAt(info, 0);
  args.in = in.view;
  args.out = out.view;
  ThrowIfFailed(compute::Scan(args));
  return info.Env().Undefined();
}

Napi::Value IndexGather(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg in;
  ViewArg index;
  ViewArg out;
  const int kind = info[0].As<Napi::Number>().Int32Value();
  ReadView(info, 1, &memory, Role::kInput, "input", &in);
  const int dim = info[1 + kView].As<Napi::Number>().Int32Value();
  ReadView(info, 2 + kView, &memory, Role::kInput, "index", &index);
  ReadView(info, 2 + 2 * kView, &memory, Role::kOutput, "result", &out);
  if (kind != 2 && (dim < 0 || dim >= (in.view.ndim == 0 ? 1 : in.view.ndim))) {
    throw Error{code::kOutOfRange, "Expected a dim of the input"};
  }
  switch (kind) {
    case 0:
      ThrowIfFailed(compute::Gather({in.view, dim, index.view, out.view, {}}));
      break;
    case 1:
      ThrowIfFailed(compute::IndexSelect({in.view, dim, index.view, out.view, {}}));
      break;
    case 2:
      ThrowIfFailed(compute::Take({in.view, index.view, out.view, {}}));
      break;
    default:
      throw Error{code::kUnsupported, "Expected gather, indexSelect or take"};
  }
  return info.Env().Undefined();
}

Napi::Value IndexNonzero(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg in;
  ViewArg out;
  ReadView(info, 0, &memory, Role::kInput, "input", &in);
  ReadView(info, kView, &memory, Role::kOutput, "result", &out);
  int64_t count = 0;
  ThrowIfFailed(compute::NonzeroCount(in.view, {}, &count));
  if (out.view.first != nullptr) {
    if (out.view.ndim != 2 || out.view.shape[0] != count || out.view.shape[1] != in.view.ndim) {
      throw Error{code::kUnsupported, "Expected a result of [count, ndim]"};
    }
    ThrowIfFailed(compute::Nonzero(in.view, out.view, {}));
  }
  return Napi::Number::New(info.Env(), static_cast<double>(count));
}

Napi::Value RandomFill(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg out;
  const int op = info[0].As<Napi::Number>().Int32Value();
  compute::RandomArgs args;
  switch (op) {
#define DLNODE_RANDOM_CASE(js, constant)              \
  case static_cast<int>(compute::RandomOp::constant): \
    args.op = compute::RandomOp::constant;            \
    break;
    DLNODE_RANDOM_OPS(DLNODE_RANDOM_CASE)
#undef DLNODE_RANDOM_CASE
    default:
      throw Error{code::kUnsupported, "Expected a random op of the table"};
  }
  args.seed = Uint64At(info, 1, "a seed");
  args.offset = Uint64At(info, 2, "a counter offset");
  args.low = Int64At(info, 3, "low");
  args.high = Int64At(info, 4, "high");
  ReadView(info, 5, &memory, Role::kOutput, "result", &out);
  args.out = out.view;
  uint64_t used = 0;
  ThrowIfFailed(compute::Random(args, &used));
  return Napi::BigInt::New(info.Env(), used);
}

Napi::Value RandomMultinomial(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg probs;
  ViewArg out;
  ReadView(info, 0, &memory, Role::kInput, "probs", &probs);
  compute::MultinomialArgs args;
  args.probs = probs.view;
  args.samples = static_cast<int64_t>(NumberAt(info, kView));
  args.replacement = FlagAt(info, kView + 1);
  args.seed = Uint64At(info, kView + 2, "a seed");
  args.offset = Uint64At(info, kView + 3, "a counter offset");
  ReadView(info, kView + 4, &memory, Role::kOutput, "result", &out);
  args.out = out.view;
  uint64_t used = 0;
  ThrowIfFailed(compute::Multinomial(args, &used));
  return Napi::BigInt::New(info.Env(), used);
}

Napi::Value BoxesIou(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg a;
  ViewArg b;
  ViewArg out;
  ReadView(info, 0, &memory, Role::kInput, "boxes1", &a);
  ReadView(info, kView, &memory, Role::kInput, "boxes2", &b);
  ReadView(info, 2 * kView, &memory, Role::kOutput, "result", &out);
  ThrowIfFailed(compute::BoxIou({a.view, b.view, out.view, {}}));
  return info.Env().Undefined();
}

Napi::Value BoxesNms(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg boxes;
  ViewArg scores;
  ViewArg idxs;
  ViewArg keep;
  ReadView(info, 0, &memory, Role::kInput, "boxes", &boxes);
  ReadView(info, kView, &memory, Role::kInput, "scores", &scores);
  ReadView(info, 2 * kView, &memory, Role::kInput, "idxs", &idxs);
  ReadView(info, 3 * kView + 1, &memory, Role::kOutput, "result", &keep);
  // keep: room for one int64 index a box, contiguous (lib/ allocates it).
  const int64_t n = boxes.view.ndim == 2 ? boxes.view.shape[0] : -1;
  if (keep.view.type != Scalar::kInt64 || keep.view.ndim != 1 || keep.view.shape[0] != n ||
      (n > 1 && keep.view.strides[0] != 1) || (n > 0 && keep.view.first == nullptr)) {
    throw Error{code::kUnsupported, "Expected room for one int64 index a box"};
  }
  compute::NmsArgs args;
  args.boxes = boxes.view;
  args.scores = scores.view;
  args.idxs = idxs.view.first == nullptr ? nullptr : &idxs.view;
  args.iou_threshold = NumberAt(info, 3 * kView);
  args.keep = reinterpret_cast<int64_t*>(keep.view.first);
  int64_t kept = 0;
  ThrowIfFailed(compute::Nms(args, &kept));
  return Napi::Number::New(info.Env(), static_cast<double>(kept));
}

Napi::Value InterpolateNchw(const Napi::CallbackInfo& info) {
  JobMemory memory;
  ViewArg in;
  ViewArg out;
  ReadView(info, 0, &memory, Role::kInput, "input", &in);
  ReadView(info, kView + 4, &memory, Role::kOutput, "result", &out);
  compute::InterpolateArgs args;
  args.in = in.view;
  args.bilinear = FlagAt(info, kView);
  args.align_corners = FlagAt(info, kView + 1);
  args.scale_h = NumberAt(info, kView + 2);
  args.scale_w = NumberAt(info, kView + 3);
  args.out = out.view;
  ThrowIfFailed(compute::Interpolate(args));
  return info.Env().Undefined();
}

Napi::Value ComputeTable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object random = Napi::Object::New(env);
#define DLNODE_RANDOM_NAME(js, constant) \
  random.Set(#js, Napi::Number::New(env, static_cast<int>(compute::RandomOp::constant)));
  DLNODE_RANDOM_OPS(DLNODE_RANDOM_NAME)
#undef DLNODE_RANDOM_NAME
  Napi::Object result = Napi::Object::New(env);
  result.Set("random", random);
  return result;
}

}  // namespace dlnode
