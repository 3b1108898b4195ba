'use strict';
// docs/errors.md, the S rows: open (sharing). One test per row;
// test/bad-input/rows.js ties them to the table.
const path = require('path');
const { spawn } = require('child_process');
const dl = require('../../lib');
const { producer, native, PYTHON } = require('../helpers');
const { area, leakFree, foreign, adopt, onlyNoDevice } = require('./rows');

const { row } = area(__filename);
const PYTHON_DIR = path.join(__dirname, '..', '..', 'python');

describe('open', () => {
  const cudaIpc = (changes) => ({ kind: 'cuda-ipc', version: 2, handle: 'ab'.repeat(64),
    ticket: `dlpack-${'0123456789abcdef'.repeat(2)}`, pid: process.pid, fd: 1000000, device: 'cuda:0', dataSize: 16,
    dtype: 'float32', shape: [4], ...changes });
  // A fresh 'shm' tensor and its descriptor; the row disposes the tensor.
  const shm = () => {
    const t = dl.empty([4], { dtype: 'int32', shared: true });
    t.data.set([1, 2, 3, 4]);
    return { t, d: t.share() };
  };
  const sab = () => {
    const t = dl.fromBuffer(new SharedArrayBuffer(16), { dtype: 'int32' });
    return { t, d: t.share() };
  };
  const local = () => {
    const ptr = foreign();
    const t = dl.fromDLPack(adopt(ptr));
    return { t, d: t.share(), ptr };
  };
  // Every kind, each checked leak-free: `body(d)` for each descriptor.
  async function eachKind(body) {
    await leakFree(() => {
      for (const make of [sab, shm, local]) {
        const { t, d } = make();
        body(d);
        expect(t.toArray()).toHaveLength(4); // the sharing side is untouched
        t.dispose();
      }
    });
  }

  row('S01', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    for (const d of [null, undefined, 'shm', 5]) throws(() => dl.open(d), /for `descriptor`/);
  });

  row('S02', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, kind: 'nfs' }), /`descriptor.kind`/);
      throws(() => dl.open({ ...d, kind: undefined }), /`descriptor.kind`/);
      throws(() => dl.open({ ...d, kind: 'SHM' }), /`descriptor.kind`/);
    });
  });

  row('S03', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => throws(() => dl.open({ ...d, dtype: 'float8' }), /`descriptor.dtype`/));
  });

  row('S04', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, shape: 'x' }), /`descriptor.shape`/);
      throws(() => dl.open({ ...d, shape: undefined }), /`descriptor.shape`/);
    });
  });

  row('S05', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, strides: [1, 1] }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: [1.5] }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: 'x' }), /`descriptor.strides`/);
      throws(() => dl.open({ ...d, strides: null }), /`descriptor.strides`/);
    });
  });

  row('S06', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await eachKind((d) => {
      for (const byteOffset of [-4, '4', 1.5, null]) {
        throws(() => dl.open({ ...d, byteOffset }), /`descriptor.byteOffset`/);
      }
    });
  });

  row('S07', RangeError, 'ERR_DLPACK_MISALIGNED', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, byteOffset: 2, shape: [1] }), /`descriptor.byteOffset`/);
      throws(() => dl.open({ ...d, byteOffset: 3, shape: [1] }), /`descriptor.byteOffset`/);
    });
    throws(() => dl.open(cudaIpc({ byteOffset: 2 })), /`descriptor.byteOffset`/); // before CUDA is asked
  });

  row('S08', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await eachKind((d) => throws(() => dl.open({ ...d, readOnly: 'yes' }), /`descriptor.readOnly`/));
  });

  row('S09', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await eachKind((d) => {
      throws(() => dl.open({ ...d, shape: [5] }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, byteOffset: 4 }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, strides: [-1] }), /from byte -12/);
      throws(() => dl.open({ ...d, shape: [2], strides: [2 ** 50] }), /inside the 16 shared bytes/);
      // An empty layout may start at the end of the shared bytes, not past it.
      throws(() => dl.open({ ...d, shape: [0], byteOffset: 2 ** 52 }), /inside the 16 shared bytes/);
      throws(() => dl.open({ ...d, shape: [0], byteOffset: 20 }), /inside the 16 shared bytes/);
      const edge = dl.open({ ...d, byteOffset: 12, shape: [4], strides: [-1] }); // the last byte is fine
      expect(edge.toArray()).toHaveLength(4);
      edge.dispose();
      const end = dl.open({ ...d, byteOffset: 16, shape: [0] });
      expect(end.size).toBe(0);
      end.dispose();
    });
    throws(() => dl.open(cudaIpc({ shape: [100] })), /inside the 16 shared bytes/); // before CUDA is asked
  });

  row('S10', TypeError, 'ERR_INVALID_ARG_TYPE', (throws) => {
    const { d } = sab();
    throws(() => dl.open({ ...d, buffer: new ArrayBuffer(16) }), /`descriptor.buffer`/);
    throws(() => dl.open({ ...d, buffer: new Int32Array(new SharedArrayBuffer(16)) }), /`descriptor.buffer`/);
    throws(() => dl.open({ ...d, buffer: undefined }), /`descriptor.buffer`/);
  });

  row('S11', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const version of [1, 3, 0, '2', undefined]) throws(() => dl.open({ ...d, version }), /version 2/);
      t.dispose();
    });
  });

  row('S12', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const name of [undefined, 5, null, ['dlpack-1']]) throws(() => dl.open({ ...d, name }), /`descriptor.name`/);
      throws(() => dl.open(cudaIpc({ ticket: 5 })), /`descriptor.ticket`/); // the same rule for the ticket
      t.dispose();
    });
  });

  // One rule for every segment name a descriptor carries: the 'shm' name and
  // the 'cuda-ipc' ticket.
  row('S13', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      const names = ['../etc/passwd', 'foo', '', 'dlpack-a/b', `/${d.name}`, `${d.name}/..`, `${d.name}\0`,
        `${d.name}\0/../x`, `${d.name}\n`, d.name.toUpperCase().replace('DLPACK', 'dlpack'), d.name.slice(0, -1),
        'dlpack-1-0123456789abcdef', 'elsewhere', 'dlpack-../x', `dlpack-${'0'.repeat(31)}\0`];
      for (const name of names) {
        throws(() => dl.open({ ...d, name }), /`descriptor.name`/);
        throws(() => dl.open(cudaIpc({ ticket: name })), /`descriptor.ticket`/);
      }
      // The native backstops behind lib/sharing.js give the same class and code.
      throws(() => native.shmOpen('../etc/passwd', d.pid, d.fd, d.dataSize), /segment name/);
      throws(() => native.cudaIpcOpen('0'.repeat(128), '../etc/passwd', d.pid, d.fd, 0, 16), /segment name/);
      t.dispose();
    });
  });

  row('S14', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const dataSize of [-1, '16', 1.5, undefined]) {
        throws(() => dl.open({ ...d, dataSize }), /`descriptor.dataSize`/);
      }
      throws(() => dl.open(cudaIpc({ dataSize: -1 })), /`descriptor.dataSize`/);
      t.dispose();
    });
  });

  row('S15', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      throws(() => dl.open({ ...d, dataSize: 1 << 20 }), /fewer than/);
      const u = dl.open(d); // the descriptor as made still opens
      expect(u.toArray()).toEqual([1, 2, 3, 4]);
      u.dispose();
      t.dispose();
    });
  });

  row('S16', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      t.dispose();
      throws(() => dl.open(d), /no longer open there/);
      throws(() => dl.open({ ...d, name: `dlpack-${'0'.repeat(32)}` }), /no longer open there/);
      throws(() => dl.open({ ...d, fd: 0 }), /no longer open there/); // the place holds something else
    });
  });

  row('S17', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const pid of [process.pid + 1, 0, String(process.pid), undefined]) {
        throws(() => dl.open({ ...d, pid }), /`descriptor.pid`/);
      }
      throws(() => dl.open({ ...d, pid: process.pid + 1 }), /between threads of one process/);
      t.dispose();
    });
  });

  row('S18', TypeError, 'ERR_INVALID_ARG_TYPE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const id of [Number(d.id), undefined, null, BigInt(d.id)]) {
        throws(() => dl.open({ ...d, id }), /`descriptor.id`/);
      }
      t.dispose();
    });
  });

  row('S19', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const id of ['abc', '', '1'.repeat(30), ' ', 'x1', `${d.id}x`, ` ${d.id}`, `+${d.id}`, `0${d.id}`, '-1',
        '0x10', '1e3']) {
        throws(() => dl.open({ ...d, id }), /`descriptor.id`/);
      }
      t.dispose();
    });
  });

  row('S20', dl.DLPackError, 'ERR_DLPACK_DISPOSED', async (throws) => {
    await leakFree(() => {
      const { t, d, ptr } = local();
      throws(() => dl.open({ ...d, id: '999999999' }), /never existed/);
      t.dispose();
      expect(producer.calls(ptr)).toBe(1);
      throws(() => dl.open(d), /released by the sharing thread/);
    });
  });

  row('S21', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = local();
      for (const device of ['tpu', 'cpu:0', 'cuda:x']) throws(() => dl.open({ ...d, device }), /`descriptor.device`/);
      // Host memory opened as CUDA memory, or the reverse, would be misread: refused.
      throws(() => dl.open({ ...d, device: 'cuda:0' }), /'cpu' \(the device the memory was shared from\)/);
      t.dispose();
    });
  });


  row('S22', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      for (const handle of ['ab', 'AB'.repeat(64), 'zz'.repeat(64), 12, 'xyz', 'A'.repeat(128), '0'.repeat(127), 7]) {
        throws(() => dl.open(cudaIpc({ handle })), /`descriptor.handle`/);
      }
      for (const device of ['cpu', 'cuda_host']) throws(() => dl.open(cudaIpc({ device })), /`descriptor.device`/);
      // The native backstop (src/core/cuda_ipc.cc) gives the same class and code, before CUDA is asked.
      throws(() => native.cudaIpcOpen('zz'.repeat(64), `dlpack-${'0'.repeat(32)}`, process.pid, 0, 0, 16),
        /128 lowercase hex/);
    });
  });

  row('S23', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', (throws) => {
    for (const version of [1, 3]) throws(() => dl.open(cudaIpc({ version })), /'cuda-ipc' descriptor version 2/);
  });

  row('S24', dl.CudaError, 'ERR_DLPACK_CUDA_UNAVAILABLE', async (throws) => {
    await leakFree(() => {
      throws(() => dl.open(cudaIpc()), /'cuda-ipc' descriptor/);
      throws(() => dl.empty([4], { device: 'cuda', shared: true }), /a tensor on cuda:0/);
    });
  }, onlyNoDevice);

  row('S25', RangeError, 'ERR_OUT_OF_RANGE', async (throws) => {
    await eachKind((d) => {
      // Zero strides describe any count in 4 bytes: the count must still be a safe integer.
      throws(() => dl.open({ ...d, shape: [2 ** 30, 2 ** 30], strides: [0, 0] }), /`descriptor.shape`/);
      throws(() => dl.open({ ...d, shape: [2 ** 27, 2 ** 27], strides: [0, 0] }), /`descriptor.shape`/);
      const wide = dl.open({ ...d, shape: [2 ** 26, 2 ** 26], strides: [0, 0] }); // 2^52: still a number
      expect(wide.size).toBe(2 ** 52);
      wide.dispose();
    });
  });

  row('S26', TypeError, 'ERR_INVALID_ARG_VALUE', async (throws) => {
    await leakFree(() => {
      const { t, d } = shm();
      for (const pid of [0, -1, 1.5, '1', 2 ** 31, undefined, null]) {
        throws(() => dl.open({ ...d, pid }), /`descriptor.pid`/);
        throws(() => dl.open(cudaIpc({ pid })), /`descriptor.pid`/);
      }
      for (const fd of [-1, 0.5, '3', 2 ** 31, undefined]) {
        throws(() => dl.open({ ...d, fd }), /`descriptor.fd`/);
        throws(() => dl.open(cudaIpc({ fd })), /`descriptor.fd`/);
      }
      t.dispose();
    });
  });

  // A peer offering a memfd of the right name without the seals: it could
  // shrink the file under this process's mapping (SIGBUS). (Another user's
  // segment, the other case of this row, is in test/shm-adversarial.test.js.)
  row('S27', dl.DLPackError, 'ERR_DLPACK_UNSUPPORTED', async (throws) => {
    const name = `dlpack-${'ab'.repeat(16)}`;
    const handle = 'ab'.repeat(64);
    // The peer holds an unsealed file under a segment's name and under a
    // ticket's, and a ticket (python/FORMAT.md "Tickets") of the allocation `handle` names.
    const peer = spawn(PYTHON, ['-c', `import json, os, sys
sys.path.insert(0, ${JSON.stringify(PYTHON_DIR)})
from dlpack_node import _segment
plain = os.memfd_create(${JSON.stringify(name)}, 0)
os.ftruncate(plain, 4096)
plain_ticket = os.memfd_create(${JSON.stringify(name)} + _segment.TICKET_SUFFIX, 0)
os.ftruncate(plain_ticket, 4096)
ticket, ticket_fd = _segment._new_memfd(_segment.TICKET_SIZE, ticket=True)
slots = [os.getpid()] + [0] * (_segment.SLOT_COUNT - 1)
os.pwrite(ticket_fd, _segment._TICKET.pack(_segment.TICKET_MAGIC, _segment.SLOT_COUNT, 0, *slots,
          bytes.fromhex(${JSON.stringify(handle)})), 0)
print(json.dumps([plain, plain_ticket, ticket, ticket_fd]), flush=True)
sys.stdin.read()`]);
    try {
      const [fd, ticketFd, ticket, realTicketFd] = JSON.parse(await new Promise((resolve, reject) => {
        peer.stdout.once('data', resolve);
        peer.once('exit', (code) => reject(new Error(`the peer exited with ${code}`)));
      }));
      await leakFree(() => {
        const { t, d } = shm();
        throws(() => dl.open({ ...d, name, pid: peer.pid, fd }), /not sealed/);
        // A ticket never opens as data (issue 20 LOW 11).
        throws(() => dl.open({ ...d, name: ticket, pid: peer.pid, fd: realTicketFd }),
          /is a CUDA-IPC ticket, not a data segment/);
        // A 'cuda-ipc' ticket place holding no ticket is the same kind of mistake, and the same code
        // (native here: without a device, dl.open() stops at CUDA's availability first).
        const unsealed = cudaIpc({ ticket: name, pid: peer.pid, fd: ticketFd });
        if (dl.capabilities().cuda.available) throws(() => dl.open(unsealed), /not sealed/);
        throws(() => native.cudaIpcOpen(handle, name, peer.pid, ticketFd, 0, 16), /not sealed/);
        throws(() => native.cudaIpcOpen(handle, d.name, d.pid, d.fd, 0, 16), /is a data segment, not a ticket/);
        // A handle paired with another allocation's ticket (issue 20 LOW 11): no slot is taken.
        const forged = cudaIpc({ handle: 'cd'.repeat(64), ticket, pid: peer.pid, fd: realTicketFd });
        if (dl.capabilities().cuda.available) throws(() => dl.open(forged), /another CUDA allocation/);
        throws(() => native.cudaIpcOpen(forged.handle, ticket, peer.pid, realTicketFd, 0, 16),
          /another CUDA allocation/);
        t.dispose();
      });
    } finally {
      peer.kill('SIGKILL');
    }
  });
});
