'use strict';
// A Node <-> Python round trip through shared memory, with no copy on either
// side: Node shares a batch, Python doubles it in place with NumPy, then
// shares an array of its own back. Run: node examples/python-roundtrip.js
// (needs python3 with NumPy; PyTorch is used when installed).
const path = require('path');
const readline = require('readline');
const { spawn } = require('child_process');
const dl = require('..');

const python = process.env.DLPACK_PYTHON || 'python3';

async function main() {
  const batch = dl.empty([4, 8], { dtype: 'float32', shared: true });
  batch.copyFrom(dl.tensor([...Array(32).keys()], { shape: [4, 8] }));
  const child = spawn(python, [path.join(__dirname, 'python_side.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const exited = new Promise((resolve) => child.on('exit', resolve));

  child.stdin.write(`${JSON.stringify(batch.share())}\n`);
  const [answerLine] = await Promise.race([
    new Promise((resolve) => lines.once('line', (line) => resolve([line]))),
    exited.then((code) => { throw new Error(`python exited with ${code} before answering`); }),
  ]);
  console.log(`node: batch after Python doubled it in place: row 3 = [${batch.toArray()[3].join(', ')}]`);

  const answer = dl.open(JSON.parse(answerLine)); // Python's own shared array
  console.log(`node: opened Python's array: ${String(answer).replace(/\n\s*/g, ' ')}`);
  child.stdin.end('done\n'); // Python may let go now; `answer` keeps the segment alive
  const code = await exited;
  console.log(`node: after Python exited (${code}), its array still reads ${answer.toArray()[1].join(', ')}`);
  answer.dispose();
  batch.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
