'use strict';
// What Arrow's IPC bytes say that apache-arrow's reader does not tell
// (docs/arrow.md "IPC"): the byte order of the schema's body buffers, which
// the JS reader ignores (it reads a big-endian stream as little-endian
// numbers), read from the first message's flatbuffer; and the byte swap of a
// copy that fixes it.
//
// The framing (Arrow's IPC format, "Encapsulated message format"): a file
// starts with "ARROW1" and 2 bytes of padding; each message is an optional
// 0xFFFFFFFF continuation, an int32 metadata length, then a flatbuffer
// Message whose header is, for the first message, the Schema. Message.fbs:
// Message { version: 0, header_type: 1, header: 2, ... }; Schema.fbs:
// Schema { endianness: 0, ... } with Little = 0 (the default, so most writers
// leave the field out) and Big = 1.
const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"
const SCHEMA_HEADER = 1; // MessageHeader.Schema
const BIG = 1;

// Whether the stream or file in `bytes` (a Uint8Array) declares big-endian
// bodies. Bytes that do not frame a schema message say no: the reader that
// follows reports them.
function isBigEndian(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.byteLength;
  const inside = (at, n) => at >= 0 && at + n <= end;
  let at = MAGIC.every((c, i) => bytes[i] === c) ? 8 : 0;
  if (!inside(at, 8)) return false;
  if (view.getInt32(at, true) === -1) at += 4;
  at += 4; // the metadata length
  // A table's field `index`: the byte where its value lies, or 0 when absent.
  const field = (table, index) => {
    if (!inside(table, 4)) return 0;
    const vtable = table - view.getInt32(table, true);
    if (!inside(vtable, 4)) return 0;
    const entry = 4 + 2 * index;
    if (entry + 2 > view.getUint16(vtable, true) || !inside(vtable + entry, 2)) return 0;
    const offset = view.getUint16(vtable + entry, true);
    return offset === 0 ? 0 : table + offset;
  };
  if (!inside(at, 4)) return false;
  const message = at + view.getUint32(at, true);
  const type = field(message, 1);
  const header = field(message, 2);
  if (type === 0 || header === 0 || !inside(type, 1) || bytes[type] !== SCHEMA_HEADER || !inside(header, 4)) {
    return false;
  }
  const endianness = field(header + view.getUint32(header, true), 0);
  return endianness !== 0 && inside(endianness, 2) && view.getInt16(endianness, true) === BIG;
}

// Reverses the bytes of each `width`-byte element of `bytes`, in place.
function swapBytes(bytes, width) {
  if (width === 1) return;
  for (let at = 0; at + width <= bytes.length; at += width) {
    for (let i = 0, j = width - 1; i < j; i++, j--) {
      const b = bytes[at + i];
      bytes[at + i] = bytes[at + j];
      bytes[at + j] = b;
    }
  }
}

module.exports = { isBigEndian, swapBytes };
