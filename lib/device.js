'use strict';
// Devices (docs/API.md "Devices"): string forms, DLPack codes, frozen Device objects.
const { invalidType, invalidValue } = require('./errors');
const { unavailable } = require('./cuda_info');

const { deviceCodes: codeOf } = require('./binding');

const typeOf = Object.fromEntries(Object.entries(codeOf).map(([type, code]) => [code, type]));
const CPU_CODE = codeOf.cpu;

class Device {
  constructor(type, index) {
    this.type = type;
    this.index = index;
    Object.freeze(this);
  }

  toString() {
    return this.type === 'cuda' ? `cuda:${this.index}` : this.type;
  }

  get code() {
    return codeOf[this.type];
  }

  // True when the CPU can read and write the memory directly.
  get hostAccessible() {
    return this.type !== 'cuda';
  }
}

const cache = new Map();
function device(type, index = 0) {
  const key = `${type}:${index}`;
  let d = cache.get(key);
  if (d === undefined) {
    d = new Device(type, index);
    cache.set(key, d);
  }
  return d;
}

const CPU = device('cpu');
const DEVICE_RE = /^(cpu|cuda|cuda_host|cuda_managed)(?::(\d+))?$/;

// The device a string names, or undefined.
function deviceOfString(value) {
  const m = DEVICE_RE.exec(value);
  if (m === null || (m[2] !== undefined && m[1] !== 'cuda')) return undefined;
  return device(m[1], m[2] === undefined ? 0 : Number(m[2]));
}

function parseDevice(value, name = 'device') {
  if (value === undefined) return CPU;
  // Our own Device objects are canonical (compared by identity); one made
  // with `new dl.Device(type, index)` is read like any { type, index }.
  if (value instanceof Device && cache.get(`${value.type}:${value.index}`) === value) return value;
  if (typeof value === 'string') {
    const d = deviceOfString(value);
    if (d !== undefined) return d;
    throw invalidValue(name, "'cpu', 'cuda', 'cuda:N', 'cuda_host' or 'cuda_managed'", value);
  }
  if (value !== null && typeof value === 'object' && typeof value.type === 'string') {
    return parseDevice(value.type === 'cuda' ? `cuda:${value.index ?? 0}` : value.type, name);
  }
  throw invalidType(name, 'a device string', value);
}

// [deviceType, index] from DLPack; undefined for a type this library cannot name.
function deviceFromCode(code, index) {
  if (code === CPU_CODE) return CPU; // every import's hot path: no key to build
  const type = typeOf[code];
  return type === undefined ? undefined : device(type, type === 'cuda' ? index : 0);
}

// CUDA cannot do `what` here: no usable device (CudaError
// ERR_DLPACK_CUDA_UNAVAILABLE, with the driver's reason).
function cudaUnavailable(what) {
  return unavailable(what);
}

module.exports = { Device, CPU, parseDevice, deviceOfString, deviceFromCode, cudaUnavailable };
