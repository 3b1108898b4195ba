'use strict';
// dlpack end to end (npm run demo): wrap an ArrayBuffer, export it as a
// DLPack capsule, import it back, and see that both tensors share memory.
const util = require('util');
const dl = require('../lib');

const show = (label, value) => {
  const text = typeof value === 'string' ? value : util.inspect(value);
  console.log(`  ${label.padEnd(30)} ${text.replace(/\n/g, `\n${' '.repeat(33)}`)}`);
};

const { major, minor } = dl.dlpackVersion;
console.log(`dlpack demo: Node ${process.version}, DLPack ${major}.${minor}\n`);

// 1. Wrap: a zero-copy float32 view of 8 numbers, 16 bytes into a buffer.
const ab = new ArrayBuffer(64);
new Float32Array(ab, 16, 8).set([1, 2, 3, 4, 5, 6, 7, 8]);
const a = dl.fromBuffer(ab, { dtype: 'float32', offset: 16, count: 8, shape: [2, 4] });
console.log('1. dl.fromBuffer(ab, { dtype: "float32", offset: 16, count: 8, shape: [2, 4] })');
show('a', a);
show('a.shape / a.strides', `[${a.shape.join(', ')}] / [${a.strides.join(', ')}] (in elements)`);
show('a.buffer === ab', String(a.buffer === ab));

// 2. Export: the default capsule is a versioned DLManagedTensorVersioned.
const capsule = a.__dlpack__();
console.log('\n2. a.__dlpack__()');
show('capsule', capsule);

// 3. Import: the capsule is consumed once; the new tensor has the same memory.
const b = dl.fromDLPack(capsule);
console.log('\n3. b = dl.fromDLPack(capsule)');
show('capsule.consumed', String(capsule.consumed));
show('b.isCopy / b.device', `${b.isCopy} / ${b.device}`);

// 4. Writes through either tensor are visible through the other (and in ab).
b.data[0] = 100;
a.data[7] = -1;
console.log('\n4. b.data[0] = 100; a.data[7] = -1');
show('a', a);
show('b', b);
show('new Float32Array(ab)[4]', String(new Float32Array(ab)[4]));

// 5. A consumer that only speaks DLPack 0.x asks for the legacy struct.
const legacy = a.__dlpack__({ maxVersion: [0, 8] });
console.log('\n5. legacy = a.__dlpack__({ maxVersion: [0, 8] }); c = dl.fromDLPack(legacy)');
show('legacy', legacy);
const c = dl.fromDLPack(legacy);
c.data[1] = 42;
show('c.data[1] = 42, then a', a);

// 6. util.inspect of a small tensor made by copying values.
const x = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int32' });
console.log('\n6. x = dl.tensor([[1, 2, 3], [4, 5, 6]], { dtype: "int32" })');
show('util.inspect(x)', x);

// 7. Quick timings: median of 7 batches of 50,000 after 3 warm-up batches
//    (`npm run bench` does it properly). Each loop sums sizes so it is not optimised away.
function medianNs(loop) {
  const batch = 50000;
  const runs = [];
  for (let r = 0; r < 10; r++) {
    const start = process.hrtime.bigint();
    if (loop(batch) !== batch * 256) throw new Error('unexpected result');
    if (r >= 3) runs.push(Number(process.hrtime.bigint() - start) / batch);
  }
  return `${runs.sort((p, q) => p - q)[3].toFixed(0)} ns`;
}
const small = new ArrayBuffer(4096);
const view = dl.fromBuffer(small, { dtype: 'float32', offset: 16, count: 256 });
console.log('\n7. Timings on this machine');
show('fromBuffer(small, {...})', medianNs((n) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += dl.fromBuffer(small, { dtype: 'float32', offset: 16, count: 256 }).size;
  return s;
}));
show('fromDLPack(view.__dlpack__())', medianNs((n) => {
  let s = 0;
  for (let i = 0; i < n; i++) s += dl.fromDLPack(view.__dlpack__()).size;
  return s;
}));

for (const t of [a, b, c, x]) t.dispose();
