"""'cuda-ipc' descriptors: the checks that need no GPU (the GPU path is tested from Node: test/cuda-ipc.test.js).

Run from the repository root:
    /usr/bin/python3 -m unittest discover -s python/tests -v
"""
import os
import sys
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, PYTHON_DIR)

import dlpack_node as dl  # noqa: E402

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


if __name__ == '__main__':
    unittest.main()
