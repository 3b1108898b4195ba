"""dlpack_node.to_arrow / from_arrow and open(like='arrow') (docs/arrow.md "Python").

Run from the repository root with a Python that has pyarrow (skipped, with the reason, without):
    ~/.cache/dlpack-ci/peers-venv/bin/python -m unittest discover -s python/tests -v
"""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import dlpack_node as dl  # noqa: E402

try:
    import pyarrow as pa
except ImportError as error:
    pa = None
    SKIP = f'{sys.executable} cannot import pyarrow ({error})'
else:
    SKIP = None


@unittest.skipIf(pa is None, SKIP)
class ToArrowTest(unittest.TestCase):
    def test_a_batch_is_a_fixed_shape_tensor_column_over_its_memory(self):
        x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
        column = dl.to_arrow(x, dim_names=['H', 'W'])
        self.assertEqual(column.type.extension_name, 'arrow.fixed_shape_tensor')
        self.assertEqual(column.type.shape, [3, 4])
        self.assertEqual(column.type.dim_names, ['H', 'W'])
        self.assertEqual(column.storage.flatten().buffers()[1].address, x.ctypes.data)
        back = dl.from_arrow(column)
        self.assertTrue(np.shares_memory(back, x))
        np.testing.assert_array_equal(back, x)

    def test_nhwc_viewed_as_nchw_has_the_specifications_permutation(self):
        nhwc = np.arange(2 * 4 * 5 * 3, dtype=np.float32).reshape(2, 4, 5, 3)
        nchw = nhwc.transpose(0, 3, 1, 2)
        column = dl.to_arrow(nchw)
        self.assertEqual(column.type.shape, [4, 5, 3])  # physical
        self.assertEqual(column.type.permutation, [2, 0, 1])  # logical dim i is physical dim permutation[i]
        back = dl.from_arrow(column)
        self.assertEqual(back.shape, nchw.shape)
        np.testing.assert_array_equal(back, nchw)
        self.assertTrue(np.shares_memory(back, nhwc))

    def test_what_needs_a_copy_is_refused_without_copy_true(self):
        x = np.arange(24, dtype=np.float32).reshape(4, 6)
        for array, pattern in ((x[:, ::2], 'permutation of row-major'), (np.zeros((2, 3), bool), 'bool'),
                               (np.zeros((2, 3), np.complex64), 'complex'),
                               (np.zeros((2, 3), '>f4'), 'byte order')):
            with self.assertRaisesRegex(ValueError, pattern):
                dl.to_arrow(array)
            copied = dl.from_arrow(dl.to_arrow(array, copy=True), copy=True)
            self.assertEqual(copied.shape[:2], array.shape)
        np.testing.assert_array_equal(dl.from_arrow(dl.to_arrow(x[:, ::2], copy=True)), x[:, ::2])

    def test_one_dim_is_a_plain_array(self):
        labels = np.arange(5, dtype=np.int64)
        column = dl.to_arrow(labels)
        self.assertEqual(column.type, pa.int64())
        self.assertTrue(np.shares_memory(dl.from_arrow(column), labels))


@unittest.skipIf(pa is None, SKIP)
class FromArrowTest(unittest.TestCase):
    def test_a_plain_fixed_size_list_reads_with_a_cell_shape(self):
        values = pa.array(np.arange(12, dtype=np.float64))
        column = pa.FixedSizeListArray.from_arrays(values, 6)
        self.assertEqual(dl.from_arrow(column).shape, (2, 6))
        self.assertEqual(dl.from_arrow(column, shape=[2, 3]).shape, (2, 2, 3))
        with self.assertRaisesRegex(ValueError, 'shape'):
            dl.from_arrow(column, shape=[4, 4])

    def test_nulls_several_chunks_and_booleans_need_copy_true(self):
        nulls = pa.array([[1.0, None], None, [3.0, 4.0]], pa.list_(pa.float64(), 2))
        with self.assertRaisesRegex(ValueError, 'nulls'):
            dl.from_arrow(nulls)
        np.testing.assert_array_equal(dl.from_arrow(nulls, copy=True), [[1, np.nan], [np.nan, np.nan], [3, 4]])
        ints = pa.array([[1, None], None, [3, 4]], pa.list_(pa.int32(), 2))
        np.testing.assert_array_equal(dl.from_arrow(ints, copy=True), [[1, 0], [0, 0], [3, 4]])
        x = dl.to_arrow(np.ones((2, 3), np.float32))
        chunked = pa.chunked_array([x, x])
        with self.assertRaisesRegex(ValueError, 'one chunk'):
            dl.from_arrow(chunked)
        self.assertEqual(dl.from_arrow(chunked, copy=True).shape, (4, 3))
        with self.assertRaisesRegex(ValueError, 'bit-packed'):
            dl.from_arrow(pa.array([[True, False]], pa.list_(pa.bool_(), 2)))

    def test_a_slice_reads_its_rows_without_a_copy(self):
        x = np.arange(24, dtype=np.int16).reshape(4, 6)
        rows = dl.from_arrow(dl.to_arrow(x)[1:3])
        np.testing.assert_array_equal(rows, x[1:3])
        self.assertTrue(np.shares_memory(rows, x))

    def test_open_like_arrow_is_a_column_over_the_segment(self):
        shared = dl.empty((4, 2, 3), 'float32')
        shared[...] = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
        column = dl.open(dl.share(shared), like='arrow')
        self.assertEqual(column.type.shape, [2, 3])
        back = dl.from_arrow(column)
        # A second mapping of the same segment: a write through one is read through the other.
        shared[0, 0, 0] = 42
        self.assertEqual(back[0, 0, 0], 42)


if __name__ == '__main__':
    unittest.main()
