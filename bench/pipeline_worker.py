"""The Python side of bench/pipeline.js.

Served through dlpack_node.worker (zero-copy): refill(batch) writes a batch in
place, consume(logits) reads the model's answer in place.
With the argument `pipe`, the copying baseline instead: on each "go" line it
fills a private batch the same way and writes its bytes to stdout, then reads
the logits' bytes back from stdin.
"""
import struct
import sys

import numpy as np


def refill(batch, value):
    batch[...] = value
    return None


def consume(logits):
    return float(logits.sum())


def pipe(n, height, width, classes):
    batch = np.empty((n, 3, height, width), dtype=np.float32)
    out, inp = sys.stdout.buffer, sys.stdin.buffer
    for line in inp:
        value = float(line)
        batch[...] = value
        data = batch.tobytes()  # the bytes that travel
        out.write(struct.pack('<Q', len(data)))
        out.write(data)
        out.flush()
        logits = np.frombuffer(inp.read(n * classes * 4), dtype=np.float32)
        out.write(struct.pack('<d', float(logits.sum())))
        out.flush()


if __name__ == '__main__':
    if sys.argv[1:2] == ['pipe']:
        pipe(*(int(a) for a in sys.argv[2:6]))
    else:
        from dlpack_node import worker
        worker.serve(refill, consume)
