"""python -m dlpack_node: what this install of dlpack_node finds.

Prints where the package was imported from, the descriptor format version it
reads (FORMAT.md), and which array libraries it can hand segments to, so that
a worker that fails to import or to open a descriptor can be diagnosed with
the same interpreter and PYTHONPATH. Exits 0; nothing is created or mapped.
"""
import importlib
import os
import sys

import numpy as np

import dlpack_node


def _library(name, describe):
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        return f'{name}: not available ({error})'
    return f'{name} {module.__version__}{describe(module)}'


def _torch_cuda(torch):
    return f' (CUDA: {torch.cuda.device_count()} devices)' if torch.cuda.is_available() else ' (CUDA: not available)'


def main(out=sys.stdout):
    lines = [
        f'dlpack_node from {os.path.dirname(os.path.abspath(dlpack_node.__file__))}',
        f'descriptor format version {dlpack_node.VERSION}',
        f'python {sys.version.split()[0]} ({sys.executable})',
        f'numpy {np.__version__} (arrays of at most {dlpack_node.MAX_DIMS} dimensions)',
        _library('torch', _torch_cuda),
        _library('cupy', lambda cupy: ''),
    ]
    out.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
