'use strict';
// Module-private keys. Native handles and tensor state hide behind these;
// none is exported from the package.
module.exports = {
  kToken: Symbol('dlpack.internal'),
  kStorage: Symbol('dlpack.storage'),
  kLayout: Symbol('dlpack.layout'), // a Layout (lib/layout.js)
  kFlags: Symbol('dlpack.flags'),
  kView: Symbol('dlpack.view'),
  kDevice: Symbol('dlpack.device'),
  kCapsule: Symbol('dlpack.capsule'),
  // Tensor flag bits.
  READ_ONLY: 1,
  IS_COPY: 2,
  DISPOSED: 4,
};
