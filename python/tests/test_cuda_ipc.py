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
from dlpack_node import _segment  # noqa: E402

try:
    import cupy
except ImportError:
    cupy = None


def descriptor(**changes):
    d = {'kind': 'cuda-ipc', 'version': 1, 'handle': '0' * 128, 'ticket': 'dlpack-1-0123456789abcdef',
         'device': 'cuda:0', 'dataSize': 64, 'byteOffset': 0, 'dtype': 'float32', 'shape': [4],
         'strides': [1], 'readOnly': False}
    d.update(changes)
    return d


class CudaIpcDescriptorTest(unittest.TestCase):
    def test_malformed_fields_are_refused_before_anything_is_opened(self):
        cases = [
            ({'version': 2}, 'descriptor.version'),
            ({'handle': 'xyz'}, 'descriptor.handle'),
            ({'handle': 'A' * 128}, 'descriptor.handle'),
            ({'handle': '0' * 127}, 'descriptor.handle'),
            ({'ticket': 'elsewhere'}, 'descriptor.ticket'),
            ({'ticket': 'dlpack-../x'}, 'descriptor.ticket'),
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
    def test_a_released_ticket_is_refused_and_nothing_stays_attached(self):
        before = len(_segment.live_segments())
        with self.assertRaises(dl.SegmentGoneError):
            dl.open(descriptor())
        self.assertEqual(len(_segment.live_segments()), before)


if __name__ == '__main__':
    unittest.main()
