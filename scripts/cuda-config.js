'use strict';
// CUDA detection for binding.gyp (and anyone curious): prints one value.
//   node scripts/cuda-config.js enabled   -> 1 or 0
//   node scripts/cuda-config.js include   -> the toolkit's include directory
//   node scripts/cuda-config.js libs      -> what to link (static cudart)
//   node scripts/cuda-config.js nvcc      -> the toolkit's nvcc
//   node scripts/cuda-config.js nvccflags -> nvcc's flags for the addon's .cu sources
// DLPACK_CUDA=0 turns CUDA off, DLPACK_CUDA=1 requires it; otherwise it is on
// when a toolkit is found in $CUDA_PATH, $CUDA_HOME or /usr/local/cuda.
const fs = require('fs');
const path = require('path');

function findToolkit() {
  const candidates = [process.env.CUDA_PATH, process.env.CUDA_HOME, '/usr/local/cuda'].filter(Boolean);
  return candidates.find((dir) =>
    fs.existsSync(path.join(dir, 'include', 'cuda_runtime_api.h')) &&
    fs.existsSync(path.join(dir, 'lib64', 'libcudart_static.a')));
}

// The architectures src/sources.json lists for the target (those CUDA 13
// supports; cudaArm64Only ones only where the target is arm64, the only
// systems their GPUs come in). node-gyp's --arch reaches this script as
// npm_config_arch.
function architectures(target = process.env.npm_config_arch || process.arch) {
  const { cudaArchitectures, cudaArm64Only } = require('../src/sources.json');
  return target === 'arm64' ? cudaArchitectures : cudaArchitectures.filter((a) => !cudaArm64Only.includes(a));
}

// Machine code for every architecture of the target, and PTX of the last,
// which the driver compiles for newer GPUs.
function nvccFlags() {
  const archs = architectures();
  const last = archs[archs.length - 1];
  return ['-std=c++17', '-O3', '-DDLPACK_WITH_CUDA=1', '-Xcompiler', '-fPIC', '-Xcompiler', '-fvisibility=hidden',
    ...archs.map((a) => `-gencode=arch=compute_${a},code=sm_${a}`), `-gencode=arch=compute_${last},code=compute_${last}`];
}

function config() {
  const wanted = process.env.DLPACK_CUDA;
  if (wanted === '0') return { enabled: false, reason: 'DLPACK_CUDA=0' };
  const home = findToolkit();
  if (home === undefined) {
    if (wanted === '1') {
      throw new Error('DLPACK_CUDA=1 but no CUDA toolkit (include/cuda_runtime_api.h and ' +
        'lib64/libcudart_static.a) in $CUDA_PATH, $CUDA_HOME or /usr/local/cuda');
    }
    return { enabled: false, reason: 'no CUDA toolkit found' };
  }
  return {
    enabled: true,
    home,
    include: path.join(home, 'include'),
    // The runtime is linked statically: it loads libcuda.so (the driver) when
    // first used, so the addon loads on machines without a driver or GPU.
    libs: [path.join(home, 'lib64', 'libcudart_static.a'), '-ldl', '-lpthread', '-lrt'],
    nvcc: path.join(home, 'bin', 'nvcc'),
    nvccflags: nvccFlags(),
  };
}

if (require.main === module) {
  const c = config();
  const what = process.argv[2];
  if (what === 'enabled') console.log(c.enabled ? 1 : 0);
  else if (what === 'include') console.log(c.enabled ? c.include : '');
  else if (what === 'libs') console.log(c.enabled ? c.libs.join(' ') : '');
  else if (what === 'nvcc') console.log(c.enabled ? c.nvcc : '');
  else if (what === 'nvccflags') console.log(c.enabled ? c.nvccflags.join(' ') : '');
  else console.log(JSON.stringify(c, null, 2));
}

module.exports = { config };
