#include "linalg.h"

#include <memory>

#include "../core/compute/matmul.h"
#include "../core/compute/norms.h"
#include "../core/compute/stats.h"
#include "../core/layout.h"
#include "async_op.h"
#include "compute_operands.h"
#include "convention.h"
#include "env_state.h"
#include "errors.h"

namespace dlnode {
namespace {

using Role = JobMemory::Role;

// A family's call read from its arguments on the JS thread (every check
// there); Run() computes on either thread and throws the core's failure as
// its coded Error (async_op.h rejects with it). Not movable: the views point
// into the job's arrays.
struct MatmulJob final : AsyncJob {
  int64_t out_shape[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t a_shape[kMaxDims] = {};
  int64_t a_strides[kMaxDims] = {};
  int64_t b_shape[kMaxDims] = {};
  int64_t b_strides[kMaxDims] = {};
  int64_t bias_shape[1] = {};
  int64_t bias_strides[1] = {};
  compute::View bias;
  compute::MatmulArgs args;

  void Read(const Napi::CallbackInfo& info) {
    const double* scratch = EnvState::Of(info.Env()).scratch();
    const int ndim = ScratchNdim(scratch);
    if (ndim < 2) throw Error{code::kUnsupported, "Expected a matmul result of rank 2 or more"};
    ScratchShape(scratch, ndim, out_shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, out_strides);
    ScratchInts(scratch, slot::kSourceStrides, ndim, false, a_strides);
    ScratchInts(scratch, slot::kOperandStrides, ndim, false, b_strides);
    const int64_t k =
        static_cast<int64_t>(ByteOffsetOf(info[10].As<Napi::Number>().DoubleValue(), "k"));
    for (int d = 0; d < ndim; ++d) a_shape[d] = b_shape[d] = out_shape[d];
    a_shape[ndim - 1] = k;
    b_shape[ndim - 2] = k;
    const Scalar type = ScalarArg(info[0]);
    if (!compute::MatmulTakes(type))
      throw Error{code::kUnsupported, "Expected a dtype matmul takes"};
    args.place = PlaceAt(info, 11);
    const auto view = [&](int arg, const int64_t* shape, const int64_t* strides, Role role,
                          const char* which) {
      compute::View v;
      v.type = type;
      v.ndim = ndim;
      v.shape = shape;
      v.strides = strides;
      v.first =
          ComputeOperand(info, &memory, args.place, arg, ndim, shape, strides, type, role, which);
      return v;
    };
    args.a = view(1, a_shape, a_strides, Role::kInput, "input");
    args.b = view(3, b_shape, b_strides, Role::kInput, "other");
    args.bias = nullptr;
    if (!info[5].IsNull()) {
      bias_shape[0] = out_shape[ndim - 1];
      bias_strides[0] = static_cast<int64_t>(info[7].As<Napi::Number>().Int64Value());
      bias.type = type;
      bias.ndim = 1;
      bias.shape = bias_shape;
      bias.strides = bias_strides;
      bias.first = ComputeOperand(info, &memory, args.place, 5, 1, bias_shape, bias_strides, type,
                                  Role::kInput, "bias");
      args.bias = &bias;
    }
    args.out = view(8, out_shape, out_strides, Role::kOutput, "result");
  }

  bool Run() const override {
    ThrowIfFailed(compute::Matmul(args));
    return true;
  }
  const char* Refused() const override { return "Expected a matmul the engine takes"; }
};

struct StatsJob final : AsyncJob {
  int64_t in_shape[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t mean_strides[kMaxDims] = {};
  compute::StatsArgs args;

  void Read(const Napi::CallbackInfo& info) {
    const double* scratch = EnvState::Of(info.Env()).scratch();
    const int op = info[0].As<Napi::Number>().Int32Value();
    if (op < 0 || op > static_cast<int>(compute::StatsOp::kVectorNorm)) {
      throw Error{code::kUnsupported, "Expected a statistic of the table"};
    }
    args.op = static_cast<compute::StatsOp>(op);
    const Scalar type = ScalarArg(info[1]);
    const int ndim = ScratchNdim(scratch);
    ScratchShape(scratch, ndim, in_shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, in_strides);
    args.reduced = info[4].As<Napi::Number>().Int32Value();
    if (args.reduced < 0 || args.reduced > ndim) {
      throw Error{code::kUnsupported, "Expected at most the input's rank of reduced dims"};
    }
    const int kept = ndim - args.reduced;
    ScratchInts(scratch, slot::kSourceStrides, kept, false, out_strides);
    ScratchInts(scratch, slot::kOperandStrides, kept, false, mean_strides);
    args.correction = info[5].As<Napi::Number>().DoubleValue();
    args.ord = info[6].As<Napi::Number>().DoubleValue();
    args.in = compute::View{nullptr, type, ndim, in_shape, in_strides};
    args.in.first = ComputeOperand(info, &memory, args.place, 2, ndim, in_shape, in_strides, type,
                                   Role::kInput, "input");
    args.out = compute::View{nullptr, type, kept, in_shape, out_strides};
    args.out.first = ComputeOperand(info, &memory, args.place, 7, kept, in_shape, out_strides, type,
                                    Role::kOutput, "result");
    const bool with_mean =
        args.op == compute::StatsOp::kVarMean || args.op == compute::StatsOp::kStdMean;
    if (with_mean != !info[9].IsNull()) {
      throw Error{code::kUnsupported, "Expected a mean result for varMean and stdMean only"};
    }
    if (with_mean) {
      args.mean = compute::View{nullptr, type, kept, in_shape, mean_strides};
      args.mean.first = ComputeOperand(info, &memory, args.place, 9, kept, in_shape, mean_strides,
                                       type, Role::kOutput, "mean");
    }
  }

  bool Run() const override {
    ThrowIfFailed(compute::Stats(args));
    return true;
  }
  const char* Refused() const override { return "Expected a statistic the engine takes"; }
};

enum class NormKind { kLayerNorm = 0, kCosine = 1, kLp = 2 };

struct NormsJob final : AsyncJob {
  NormKind kind = NormKind::kLayerNorm;
  int64_t x_shape[kMaxDims] = {};
  int64_t x_strides[kMaxDims] = {};
  int64_t out_strides[kMaxDims] = {};
  int64_t y_strides[kMaxDims] = {};
  int64_t z_strides[kMaxDims] = {};
  compute::View weight;
  compute::View bias;
  compute::LayerNormArgs layer;
  compute::CosineArgs cosine;
  compute::LpNormalizeArgs lp;

  void Read(const Napi::CallbackInfo& info) {
    const double* scratch = EnvState::Of(info.Env()).scratch();
    const int k = info[0].As<Napi::Number>().Int32Value();
    if (k < 0 || k > 2) throw Error{code::kUnsupported, "Expected a normalisation of the table"};
    kind = static_cast<NormKind>(k);
    const Scalar type = ScalarArg(info[1]);
    const int ndim = ScratchNdim(scratch);
    ScratchShape(scratch, ndim, x_shape);
    ScratchInts(scratch, slot::kStrides, ndim, false, x_strides);
    const int out_ndim = kind == NormKind::kCosine ? ndim - 1 : ndim;
    if (out_ndim < 0 || (kind != NormKind::kLayerNorm && ndim < 1)) {
      throw Error{code::kUnsupported, "Expected an input of rank 1 or more"};
    }
    ScratchInts(scratch, slot::kSourceStrides, out_ndim, false, out_strides);
    const double p = info[11].As<Napi::Number>().DoubleValue();
    const double eps = info[12].As<Napi::Number>().DoubleValue();
    const compute::Place place;  // host: the families compute on the CPU
    const auto view = [&](int arg, int n, const int64_t* shape, const int64_t* strides, Role role,
                          const char* which) {
      compute::View v{nullptr, type, n, shape, strides};
      v.first = ComputeOperand(info, &memory, place, arg, n, shape, strides, type, role, which);
      return v;
    };
    const compute::View x = view(2, ndim, x_shape, x_strides, Role::kInput, "input");
    switch (kind) {
      case NormKind::kLayerNorm: {
        const int normalized = info[10].As<Napi::Number>().Int32Value();
        if (normalized < 0 || normalized > ndim) {
          throw Error{code::kUnsupported, "Expected at most the input's rank of normalized dims"};
        }
        const int64_t* trailing = x_shape + (ndim - normalized);
        layer.in = x;
        layer.normalized = normalized;
        layer.eps = eps;
        if (!info[4].IsNull()) {
          ScratchInts(scratch, slot::kOperandStrides, normalized, false, y_strides);
          weight = view(4, normalized, trailing, y_strides, Role::kInput, "weight");
          layer.weight = &weight;
        }
        if (!info[6].IsNull()) {
          ScratchInts(scratch, slot::kOperandStrides + kMaxDims, normalized, false, z_strides);
          bias = view(6, normalized, trailing, z_strides, Role::kInput, "bias");
          layer.bias = &bias;
        }
        layer.out = view(8, ndim, x_shape, out_strides, Role::kOutput, "result");
        break;
      }
      case NormKind::kCosine:
        ScratchInts(scratch, slot::kOperandStrides, ndim, false, y_strides);
        cosine.a = x;
        cosine.b = view(4, ndim, x_shape, y_strides, Role::kInput, "x2");
        cosine.eps = eps;
        cosine.out = view(8, out_ndim, x_shape, out_strides, Role::kOutput, "result");
        break;
      case NormKind::kLp:
        lp.in = x;
        lp.p = p;
        lp.eps = eps;
        lp.out = view(8, ndim, x_shape, out_strides, Role::kOutput, "result");
        break;
    }
  }

  bool Run() const override {
    switch (kind) {
      case NormKind::kLayerNorm:
        ThrowIfFailed(compute::LayerNorm(layer));
        break;
      case NormKind::kCosine:
        ThrowIfFailed(compute::CosineSimilarity(cosine));
        break;
      case NormKind::kLp:
        ThrowIfFailed(compute::LpNormalize(lp));
        break;
    }
    return true;
  }
  const char* Refused() const override { return "Expected a normalisation the engine takes"; }
};

// The synchronous and asynchronous entries of a job type.
template <class Job>
Napi::Value RunNow(const Napi::CallbackInfo& info) {
  Job job;
  job.Read(info);
  job.Run();
  return info.Env().Undefined();
}

template <class Job>
Napi::Value Queue(const Napi::CallbackInfo& info, const char* name) {
  auto job = std::make_unique<Job>();
  job->memory.Async(StageMask(info));
  job->Read(info);
  return QueueJob(info, std::move(job), name);
}

}  // namespace

Napi::Value MatmulFamily(const Napi::CallbackInfo& info) { return RunNow<MatmulJob>(info); }
Napi::Value MatmulFamilyAsync(const Napi::CallbackInfo& info) {
  return Queue<MatmulJob>(info, "dlpack:matmul");
}
Napi::Value StatisticsFamily(const Napi::CallbackInfo& info) { return RunNow<StatsJob>(info); }
Napi::Value StatisticsFamilyAsync(const Napi::CallbackInfo& info) {
  return Queue<StatsJob>(info, "dlpack:stats");
}
Napi::Value NormsFamily(const Napi::CallbackInfo& info) { return RunNow<NormsJob>(info); }
Napi::Value NormsFamilyAsync(const Napi::CallbackInfo& info) {
  return Queue<NormsJob>(info, "dlpack:norms");
}

Napi::Value StatisticsTable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ops = Napi::Object::New(env);
#define DLNODE_STATS_OP_NAME(js, constant) \
  ops.Set(#js, Napi::Number::New(env, static_cast<int>(compute::StatsOp::constant)));
  DLNODE_STATS_OPS(DLNODE_STATS_OP_NAME)
#undef DLNODE_STATS_OP_NAME
  Napi::Object result = Napi::Object::New(env);
  result.Set("ops", ops);
  return result;
}

}  // namespace dlnode
