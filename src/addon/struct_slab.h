// The environment's struct slab (src/core/struct_slab.h) as JS sees it: an
// ArrayBuffer over the slab's memory and the addresses JS writes into each
// struct, shared by every load of lib/ in the environment (lib/struct_slab.js).
#ifndef DLPACK_NODE_ADDON_STRUCT_SLAB_H_
#define DLPACK_NODE_ADDON_STRUCT_SLAB_H_

#include <napi.h>

namespace dlnode {

// (sweep) -> { buffer, base, context, deleter, epoch }: this environment's
// slab (the layout, states and struct offsets every slab shares come with
// Convention(), convention.h), the same object on every call in an
// environment, or null where there is none: the runtime refuses external
// ArrayBuffers, the process has all the slabs it may make, or an address
// does not fit a double exactly. `sweep` is called on the JS thread after
// deleters freed entries (the first call's function is kept). (sweep, true)
// only looks: null where the environment has taken no slab yet.
Napi::Value StructSlabOf(const Napi::CallbackInfo& info);

// (bytes) -> the address of a Uint8Array's first byte, as a Number (exact:
// StructSlabOf returns null on a machine where addresses are not), read now.
Napi::Value BytesAddress(const Napi::CallbackInfo& info);

}  // namespace dlnode

#endif  // DLPACK_NODE_ADDON_STRUCT_SLAB_H_
