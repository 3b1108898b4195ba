{
  "variables": {
    "dlpack_test_targets%": "<!(node -p \"process.env.DLPACK_BUILD_TESTS === '0' || !require('fs').existsSync('test/native/producer.cc') ? 0 : 1\")",
    "dlpack_cuda%": "<!(node scripts/cuda-config.js enabled)"
  },
  "target_defaults": {
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"],
    # -falign-loops=32: a hot loop of a few instructions that crosses a 32-byte
    # boundary is fetched in two windows an iteration; on this project's AMD EPYC
    # VM such a loop ran at half speed (x.sub_(s) over 4.8 MB: 0.23 -> 0.12 ms once
    # aligned; which op was slow moved with the code layout). bench/README.md.
    # -ffp-contract=off: GCC's default for C++ fuses a * b + c into one FMA wherever
    # the target has one (arm64 always), which rounds once instead of twice; that made
    # arm64's exp, sigmoid, tanh and normalize give other bits than x64's, and a
    # vector body other bits than its scalar tail. test/bits.test.js.
    "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Wno-unused-parameter", "-fvisibility=hidden",
                  "-falign-loops=32", "-ffp-contract=off"],
    "defines": [
      "NAPI_EXPERIMENTAL",
      "NAPI_CPP_EXCEPTIONS",
      "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS",
      "NODE_ADDON_API_DISABLE_DEPRECATED"
    ],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
    # Eigen 3.4, header-only, under the host GEMM (src/core/compute/gemm.h):
    # a system include, so that its own warnings are not ours.
    "cflags": ["-isystem", "<!(node -p \"process.env.DLPACK_EIGEN_INCLUDE || '/usr/include/eigen3'\")"]
  },
  "targets": [
    {
      "target_name": "dlpack",
      "sources": [
        "<!@(node -p \"const s = require('./src/sources.json'); s.core.concat(s.addon).join(' ')\")"
      ],
      "conditions": [
        # Never unmapped: host callbacks (Stream.done()) and the thread pool
        # (src/core/parallel.cc) may run this code after the last environment
        # that loaded it has ended. (macOS never unloads a bundle of Node's.)
        ["OS != 'mac' and OS != 'win'", { "ldflags": ["-Wl,-z,nodelete"] }],
        ["dlpack_cuda == 1", {
          "defines": ["DLPACK_WITH_CUDA=1"],
          "include_dirs": ["<!(node scripts/cuda-config.js include)"],
          "libraries": ["<!@(node scripts/cuda-config.js libs)"],
          "ldflags": ["-Wl,--exclude-libs,libcudart_static.a"],
          "sources": ["<!@(node -p \"require('./src/sources.json').cuda.join(' ')\")"],
          "rules": [{
            "rule_name": "nvcc",
            "extension": "cu",
            "inputs": ["src/core/device_copy.h", "src/core/cuda_kernels.h", "src/core/cuda_launch.h",
                       "src/core/cuda_api.h", "src/core/cuda_runtime.h", "src/core/cuda_ops.h",
                       "src/core/compute/elementwise_math.h", "src/core/compute/elementwise.h",
                       "src/core/host_device.h"],
            "outputs": ["<(INTERMEDIATE_DIR)/<(RULE_INPUT_ROOT).o"],
            "action": ["<!(node scripts/cuda-config.js nvcc)", "<!@(node scripts/cuda-config.js nvccflags)",
                       "-c", "<(RULE_INPUT_PATH)", "-o", "<(INTERMEDIATE_DIR)/<(RULE_INPUT_ROOT).o"],
            "message": "NVCC <(RULE_INPUT_PATH)",
            "process_outputs_as_sources": 1
          }]
        }]
      ]
    }
  ],
  "conditions": [
    ["dlpack_test_targets == 1", {
      "targets": [
        {
          "target_name": "dlpack_test_producer",
          "sources": [
            "<!@(node -p \"require('./src/sources.json').testProducer.join(' ')\")"
          ]
        },
        {
          "target_name": "dlpack_test_consumer",
          "sources": [
            "<!@(node -p \"require('./src/sources.json').testConsumer.join(' ')\")"
          ]
        }
      ]
    }]
  ]
}
