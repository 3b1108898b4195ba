"""python -m dlpack_node: the install report (docs/python.md "Check an install").

Run from the repository root:
    /usr/bin/python3 -m unittest discover -s python/tests -v
"""
import os
import subprocess
import sys
import unittest

import numpy as np

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class MainTest(unittest.TestCase):
    def run_main(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        return subprocess.run([sys.executable, '-m', 'dlpack_node'], env=env, capture_output=True, text=True,
                              timeout=120, check=False)

    def test_reports_where_the_package_and_numpy_come_from(self):
        done = self.run_main()
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], f'dlpack_node from {os.path.join(PYTHON_DIR, "dlpack_node")}')
        self.assertEqual(lines[1], 'descriptor format version 2')
        self.assertIn(f'numpy {np.__version__} (arrays of at most ', done.stdout)
        # Each optional library is reported, present or not.
        for name in ('torch', 'cupy'):
            self.assertEqual(len([line for line in lines if line.startswith(name + ' ') or
                                  line.startswith(name + ': not available')]), 1, done.stdout)

    def test_reports_a_missing_numpy_instead_of_a_traceback(self):
        # -S leaves site-packages (and so NumPy) off sys.path: a real interpreter without NumPy.
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        probe = subprocess.run([sys.executable, '-S', '-c', 'import numpy'], env=env, capture_output=True, timeout=60,
                               check=False)
        if probe.returncode == 0:
            self.skipTest(f'{sys.executable} -S still imports numpy: no interpreter without it to try')
        done = subprocess.run([sys.executable, '-S', '-m', 'dlpack_node'], env=env, capture_output=True, text=True,
                              timeout=120, check=False)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn('numpy: not available', done.stdout)
        self.assertIn(f'dlpack_node needs NumPy, which python {sys.version.split()[0]} ({sys.executable}) cannot '
                      'import', done.stderr)
        self.assertNotIn('Traceback', done.stderr)
        imported = subprocess.run([sys.executable, '-S', '-c', 'import dlpack_node'], env=env, capture_output=True,
                                  text=True, timeout=120, check=False)
        self.assertIn('ImportError: dlpack_node needs NumPy', imported.stderr)

    def test_is_not_the_json_test_worker(self):
        # The JSON worker of the Node tests lives in test/fixtures/python/, not in the package:
        # a JSON line on stdin gets no reply.
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        done = subprocess.run([sys.executable, '-m', 'dlpack_node'], env=env, input='{"op":"exit"}\n',
                              capture_output=True, text=True, timeout=120, check=False)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertNotIn('"ok"', done.stdout)


if __name__ == '__main__':
    unittest.main()
