"""The Python half of examples/onnxruntime-pipeline.js, served by dlpack_node.worker.

make_batch() writes a batch of images straight into shared memory (PyTorch
where installed, else NumPy); check() reads the runtime's answer from the
shared memory Node preallocated and recomputes it. Nothing is copied between
the processes: both see the same pages.
"""
import sys

import numpy as np

from dlpack_node import empty, worker

torch = None
if sys.argv[1:] != ['numpy']:  # `worker.py numpy` leaves PyTorch out
    try:
        import torch
    except ImportError:
        pass


def make_batch(n, height, width):
    """A batch in a new shared segment, filled in place: the exact pattern Node can recompute."""
    images = empty([n, 3, height, width], dtype='float32', like='torch' if torch else 'numpy')
    index = np.arange(n * 3 * height * width, dtype=np.float32).reshape(n, 3, height, width)
    pattern = np.sin(index * np.float32(0.001))
    if torch is not None:
        images.copy_(torch.from_numpy(pattern))
    else:
        images[...] = pattern
    return images


def reference(images, conv_w, conv_b, fc_w, fc_b):
    """The model's arithmetic, with torch where installed, else NumPy (float64)."""
    if torch is not None:
        x = torch.nn.functional.conv2d(torch.as_tensor(images), torch.as_tensor(conv_w), torch.as_tensor(conv_b),
                                       stride=2, padding=1)
        x = torch.relu(x).mean(dim=(2, 3))
        return (x @ torch.as_tensor(fc_w).T + torch.as_tensor(fc_b)).numpy()
    x = np.pad(np.asarray(images, dtype=np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, _, h, w = images.shape
    oh, ow = (h + 1) // 2, (w + 1) // 2
    out = np.zeros((n, conv_w.shape[0], oh, ow))
    for i in range(3):
        for j in range(3):
            patch = x[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2]
            out += np.einsum('nchw,oc->nohw', patch, conv_w[:, :, i, j])
    out = np.maximum(out + conv_b[None, :, None, None], 0).mean(axis=(2, 3))
    return out @ fc_w.T + fc_b


def check(images, logits, conv_w, conv_b, fc_w, fc_b):
    """How far the runtime's logits (read in place) are from this side's own arithmetic."""
    as_numpy = (lambda a: a.numpy()) if torch is not None else np.asarray
    expected = reference(*(as_numpy(a) for a in (images, conv_w, conv_b, fc_w, fc_b)))
    got = as_numpy(logits)
    error = float(np.max(np.abs(got - expected)))
    logits[0, 0] = 12345.0  # written here, read by Node: proof that both sides hold the same memory
    return {'maxError': error, 'library': 'torch' if torch is not None else 'numpy'}


if __name__ == '__main__':
    print(f'worker: python {sys.version.split()[0]}, {"torch " + torch.__version__ if torch else "numpy only"}',
          file=sys.stderr)
    worker.serve(make_batch, check, like='torch' if torch is not None else 'numpy')
