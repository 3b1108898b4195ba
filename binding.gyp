{
  "variables": {
    "dlpack_test_targets%": "<!(node -p \"process.env.DLPACK_BUILD_TESTS === '0' ? 0 : 1\")"
  },
  "target_defaults": {
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions"],
    "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    "defines": [
      "NAPI_EXPERIMENTAL",
      "NAPI_CPP_EXCEPTIONS",
      "NODE_ADDON_API_DISABLE_DEPRECATED"
    ],
    "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"]
  },
  "targets": [
    {
      "target_name": "dlpack",
      "sources": [
        "<!@(node -p \"const s = require('./src/sources.json'); s.core.concat(s.addon).join(' ')\")"
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
        }
      ]
    }]
  ]
}
