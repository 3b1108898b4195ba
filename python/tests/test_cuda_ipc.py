"""'cuda-ipc' descriptors: the checks that need no GPU (the GPU path is tested from Node: test/cuda-ipc.test.js).

Run from the repository root:
    /usr/bin/python3 -m unittest discover -s python/tests -v
"""
import contextlib
import gc
import os
import sys
import types
import unittest
from unittest import mock

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYTHON_DIR)

import dlpack_node as dl  # noqa: E402
from dlpack_node import _segment  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None


def descriptor(**changes):
    d = {'kind': 'cuda-ipc', 'version': 2, 'handle': '0' * 128, 'ticket': 'dlpack-' + '0123456789abcdef' * 2,
         'pid': os.getpid(), 'fd': 100000, 'device': 'cuda:0', 'dataSize': 64, 'byteOffset': 0, 'dtype': 'float32',
         'shape': [4], 'strides': [1], 'readOnly': False}
    d.update(changes)
    return d


class CudaIpcDescriptorTest(unittest.TestCase):
    def test_malformed_fields_are_refused_before_anything_is_opened(self):
        cases = [
            ({'version': 1}, 'descriptor.version'),
            ({'handle': 'xyz'}, 'descriptor.handle'),
            ({'handle': 'A' * 128}, 'descriptor.handle'),
            ({'handle': '0' * 127}, 'descriptor.handle'),
            ({'ticket': 'elsewhere'}, 'descriptor.ticket'),
            ({'ticket': 'dlpack-../x'}, 'descriptor.ticket'),
            ({'ticket': 'dlpack-' + '0' * 31 + '\0'}, 'descriptor.ticket'),
            ({'ticket': 'dlpack-1-0123456789abcdef'}, 'descriptor.ticket'),
            ({'pid': -1}, 'descriptor.pid'),
            ({'fd': None}, 'descriptor.fd'),
            ({'shape': [1] * 65, 'strides': [1] * 65}, 'descriptor.shape'),
            ({'device': 'cpu'}, 'descriptor.device'),
            ({'device': 'cuda'}, 'descriptor.device'),
            ({'dataSize': -1}, 'descriptor.dataSize'),
            ({'shape': [100]}, 'shared bytes'),
        ]
        for change, field in cases:
            with self.subTest(change=change):
                with self.assertRaisesRegex(ValueError, field.replace('.', r'\.')):
                    dl.open(descriptor(**change))

    def test_like_must_name_a_cuda_array_library(self):
        with self.assertRaisesRegex(ValueError, "'cupy' or 'torch'"):
            dl.open(descriptor(), like='numpy')

    @unittest.skipIf(cupy is not None, 'CuPy is installed')
    def test_without_cupy_the_error_says_what_is_missing(self):
        with self.assertRaisesRegex(ImportError, 'CuPy'):
            dl.open(descriptor())

    @unittest.skipUnless(cupy is not None, 'needs CuPy')
    def test_a_released_ticket_is_refused_and_nothing_stays_open(self):
        before = sorted(os.listdir('/proc/self/fd'))
        with self.assertRaises(dl.SegmentGoneError):
            dl.open(descriptor())
        self.assertEqual(sorted(os.listdir('/proc/self/fd')), before)


def stand_in_cupy(allocation):
    """A stand-in for CuPy with no GPU: ipcOpenMemHandle "maps" `allocation`
    (a bytearray) and the arrays are plain records of what they were given;
    `opened` counts the mappings still open."""
    runtime = types.SimpleNamespace(opened=0)

    def ipc_open(handle):
        runtime.opened += 1
        return id(allocation)

    def ipc_close(ptr):
        runtime.opened -= 1

    runtime.ipcOpenMemHandle = ipc_open
    runtime.ipcCloseMemHandle = ipc_close
    cuda = types.SimpleNamespace(
        runtime=runtime,
        Device=lambda device: contextlib.nullcontext(),
        UnownedMemory=lambda ptr, size, owner, device_id: types.SimpleNamespace(ptr=ptr, size=size, owner=owner),
        MemoryPointer=lambda memory, offset: types.SimpleNamespace(memory=memory, offset=offset))
    ndarray = lambda shape, dtype, memptr, strides: types.SimpleNamespace(shape=shape, memptr=memptr)  # noqa: E731
    return types.SimpleNamespace(cuda=cuda, ndarray=ndarray)


class ReusedMappingTest(unittest.TestCase):
    """Issue 20 LOW 11: a second open reusing this process's mapping checks the
    descriptor as the first open did (Node: src/core/cuda_ipc.cc OpenIpc)."""

    def setUp(self):
        self.handle = bytes(range(64))
        self.name, self.fd = _segment._new_memfd(_segment.TICKET_SIZE, ticket=True)
        slots = [os.getpid()] + [0] * (_segment.SLOT_COUNT - 1)
        os.pwrite(self.fd, _segment._TICKET.pack(_segment.TICKET_MAGIC, _segment.SLOT_COUNT, 0, *slots,
                                                 self.handle), 0)
        self.addCleanup(os.close, self.fd)
        self.cupy = stand_in_cupy(bytearray(64))
        patch = mock.patch.dict(sys.modules, {'cupy': self.cupy})
        patch.start()
        self.addCleanup(patch.stop)

    def descriptor(self, **changes):
        return descriptor(**{'handle': self.handle.hex(), 'ticket': self.name, 'fd': self.fd, **changes})

    def test_a_larger_data_size_than_the_mapping_is_refused(self):
        first = dl.open(self.descriptor(dataSize=64, shape=[16]))
        self.assertEqual(self.cupy.cuda.runtime.opened, 1)
        with self.assertRaisesRegex(ValueError, 'holds 64 bytes, fewer than the 128 the descriptor says'):
            dl.open(self.descriptor(dataSize=128, shape=[32]))
        again = dl.open(self.descriptor(dataSize=32, shape=[8]))  # within the allocation: the same mapping
        self.assertIs(again.memptr.memory.owner, first.memptr.memory.owner)
        self.assertEqual(self.cupy.cuda.runtime.opened, 1)
        del first, again
        gc.collect()
        self.assertEqual(self.cupy.cuda.runtime.opened, 0)
        self.assertEqual(_segment.ticket_slots(self.name, os.getpid(), self.fd), [os.getpid()])

    def test_a_handle_paired_with_a_mapped_ticket_is_refused(self):
        first = dl.open(self.descriptor())
        with self.assertRaisesRegex(ValueError, 'another CUDA allocation'):
            dl.open(self.descriptor(handle='ab' * 64))
        del first
        gc.collect()
        with self.assertRaisesRegex(ValueError, 'another CUDA allocation'):  # and when nothing is mapped yet
            dl.open(self.descriptor(handle='ab' * 64))
        self.assertEqual(self.cupy.cuda.runtime.opened, 0)
        self.assertEqual(_segment.ticket_slots(self.name, os.getpid(), self.fd), [os.getpid()])


if __name__ == '__main__':
    unittest.main()
