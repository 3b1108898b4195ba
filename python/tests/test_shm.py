"""Sealed memfd segments (FORMAT.md): one process, and two real processes.

Run from the repository root:
    /usr/bin/python3 -m unittest discover -s python/tests -v
"""
import builtins
import fcntl
import gc
import json
import os
import signal
import subprocess
import sys
import time
import unittest
import warnings

import numpy as np

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JSON_WORKER = os.path.join(os.path.dirname(PYTHON_DIR), 'test', 'fixtures', 'python', 'json_worker.py')
PLACE_FLIPPER = os.path.join(os.path.dirname(JSON_WORKER), 'place_flipper.py')
sys.path.insert(0, PYTHON_DIR)

import dlpack_node as dl  # noqa: E402
from dlpack_node import _segment  # noqa: E402

REPO_DIR = os.path.dirname(PYTHON_DIR)
builtins_open = builtins.open

try:
    import torch
except ImportError:
    torch = None

NUMPY_DTYPES = [name for name in dl.DTYPES if name != 'bfloat16']


def collect():
    gc.collect()
    _segment.run_deferred()


def _links(pid):
    links = []
    try:
        fds = os.listdir(f'/proc/{pid}/fd')
    except OSError:  # gone meanwhile, or not ours to read
        return links
    for fd in fds:
        try:
            links.append(os.readlink(f'/proc/{pid}/fd/{fd}'))
        except OSError:  # closed meanwhile (the listing's own descriptor)
            continue
    return links


def _mapped(pid, link):
    try:
        with open(f'/proc/{pid}/maps') as maps:
            return sum(line.rstrip('\n').endswith(' ' + link) for line in maps)
    except OSError:
        return 0


def holders(name):
    """The pids holding segment `name` open or mapped (any process this user can inspect)."""
    link = f'/memfd:{name} (deleted)'
    return {int(pid) for pid in os.listdir('/proc')
            if pid.isdigit() and (link in _links(pid) or _mapped(pid, link))}


def exists(descriptor):
    """Some process still holds the segment: its memory is not freed yet."""
    return bool(holders(descriptor['name']))


def own_holds(descriptor):
    """How many mappings of the segment this process holds (one per hold)."""
    return _mapped('self', f"/memfd:{descriptor['name']} (deleted)")


def without_place(d):
    return {k: v for k, v in d.items() if k not in ('pid', 'fd')}


HANDLE = bytes(range(64))


def make_ticket(pids=(), handle=HANDLE):
    """A ticket as the Node exporter makes one (FORMAT.md "Tickets"); returns (name, fd)."""
    name, fd = _segment._new_memfd(_segment.TICKET_SIZE, ticket=True)
    slots = list(pids) + [0] * (_segment.SLOT_COUNT - len(pids))
    os.pwrite(fd, _segment._TICKET.pack(_segment.TICKET_MAGIC, _segment.SLOT_COUNT, 0, *slots, handle), 0)
    return name, fd


class Worker:
    """The JSON worker (test/fixtures/python/json_worker.py) in a child process."""

    def __init__(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        self.process = subprocess.Popen([sys.executable, JSON_WORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env)
        self.pid = self.process.pid

    def call(self, op, **fields):
        self.process.stdin.write(json.dumps({'op': op, **fields}) + '\n')
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def ok(self, op, **fields):
        reply = self.call(op, **fields)
        assert reply['ok'], reply
        return reply

    def close(self):
        if self.process.poll() is None:
            try:
                self.call('exit')
                self.process.wait(timeout=30)  # its exit detaches what it still holds
            except (BrokenPipeError, ValueError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait()  # reaped: a zombie still counts as alive (kill(pid, 0) succeeds)
        self.process.stdin.close()
        self.process.stdout.close()


class SegmentTestCase(unittest.TestCase):
    def setUp(self):
        self.names = []

    def tearDown(self):
        self.doCleanups()  # workers exit first
        collect()
        for name in self.names:
            self.assertFalse(holders(name), f'{name} outlived the test')

    def share(self, array, **options):
        descriptor = dl.share(array, **options)
        self.names.append(descriptor['name'])
        return descriptor

    def worker(self):
        w = Worker()
        self.addCleanup(w.close)
        return w


class SameProcessTest(SegmentTestCase):
    def test_empty_is_zeroed_and_writes_are_visible_both_ways(self):
        a = dl.empty((4, 5))
        self.assertEqual((a.dtype, a.shape), (np.float32, (4, 5)))
        self.assertTrue(a.flags.c_contiguous and a.flags.writeable)
        self.assertFalse(a.any())
        d = self.share(a)
        self.assertEqual(d, {'kind': 'shm', 'version': 2, 'name': d['name'], 'pid': os.getpid(), 'fd': d['fd'],
                             'dataSize': 80, 'byteOffset': 0, 'dtype': 'float32', 'shape': [4, 5],
                             'strides': [5, 1], 'readOnly': False})
        self.assertRegex(d['name'], r'^dlpack-[0-9a-f]{32}$')
        b = dl.open(d)
        self.assertEqual(own_holds(d), 2)  # one descriptor per hold
        b[1, 2] = 7
        a[3, 4] = 9
        self.assertEqual((a[1, 2], b[3, 4]), (7, 9))

    def test_segment_is_a_sealed_memfd_no_peer_can_shrink(self):
        a = dl.empty(3, 'int16')
        a[:] = [1, -2, 3]
        d = self.share(a)
        self.assertEqual(os.readlink(f"/proc/self/fd/{d['fd']}"), f"/memfd:{d['name']} (deleted)")
        self.assertFalse(any(n.startswith('dlpack-') and d['name'] in n for n in os.listdir('/dev/shm')))
        st = os.fstat(d['fd'])
        self.assertEqual((st.st_size, st.st_mode & 0o777), (4096, 0o600))  # 6 bytes rounded up to the page
        self.assertEqual(fcntl.fcntl(d['fd'], fcntl.F_GET_SEALS) & _segment.SEALS, _segment.SEALS)
        # A peer (here through /proc, as another process would) cannot cut
        # the file under the mapping (that would be SIGBUS for every holder).
        peer = os.open(f"/proc/{os.getpid()}/fd/{d['fd']}", os.O_RDWR)
        try:
            for size in (0, 2, 8192):
                with self.assertRaises(PermissionError):
                    os.ftruncate(peer, size)
            with self.assertRaises(PermissionError):
                fcntl.fcntl(peer, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE)
        finally:
            os.close(peer)
        self.assertEqual(a.tolist(), [1, -2, 3])

    def test_layout_round_trip(self):
        base = dl.empty(60, 'float64')
        base[:] = np.arange(60)
        cube = base.reshape(3, 4, 5)
        views = {
            'negative and skipping strides': (cube[::-1, 1:, ::2], 40 * 8 + 5 * 8, [-20, 5, 2]),
            'offset': (base[7:], 7 * 8, [1]),
            'reversed': (base[::-3], 59 * 8, [-3]),
            'transposed': (base.reshape(6, 10).T, 0, [1, 10]),
            'broadcast': (np.broadcast_to(base[4:9], (2, 5)), 4 * 8, [0, 1]),
            'empty': (base[5:5], None, [1]),  # NumPy moves empty slices to the start
            'zero-dimensional': (cube[2, 3, 4, ...], 59 * 8, []),
        }
        for label, (view, byte_offset, strides) in views.items():
            with self.subTest(label):
                d = self.share(view)
                self.assertEqual((d['strides'], d['shape']), (strides, list(view.shape)))
                if byte_offset is not None:
                    self.assertEqual(d['byteOffset'], byte_offset)
                self.assertEqual(d['dataSize'], 480)
                self.assertEqual(d['readOnly'], not view.flags.writeable)
                opened = dl.open(d)
                self.assertEqual((opened.shape, opened.strides, opened.dtype), (view.shape, view.strides, view.dtype))
                np.testing.assert_array_equal(opened, view)
                self.assertEqual(without_place(self.share(opened)), without_place(d))  # and back
        flipped = dl.open(self.share(cube[::-1, 1:, ::2]))
        flipped[0, 0, 0] = -1
        self.assertEqual(cube[2, 1, 0], -1)

    def test_dtype_round_trip(self):
        for name in NUMPY_DTYPES:
            with self.subTest(name):
                a = dl.empty((3, 2), name)
                self.assertEqual(a.dtype, np.dtype(name))
                a[...] = np.arange(6).reshape(3, 2) % 2 if name == 'bool' else np.arange(6).reshape(3, 2)
                d = self.share(a[:, ::-1])
                self.assertEqual((d['dtype'], d['strides']), (name, [2, -1]))
                b = dl.open(d)
                self.assertEqual(b.dtype, np.dtype(name))
                np.testing.assert_array_equal(b, a[:, ::-1])
                b[0, 0] = 1
                self.assertEqual(a[0, 1], 1)

    def test_descriptor_as_json_string_and_optional_fields(self):
        a = dl.empty((2, 3), 'int32')
        a[:] = [[1, 2, 3], [4, 5, 6]]
        d = self.share(a)
        np.testing.assert_array_equal(dl.open(json.dumps(d)), a)
        minimal = {k: d[k] for k in ('kind', 'version', 'name', 'pid', 'fd', 'dataSize', 'dtype', 'shape')}
        np.testing.assert_array_equal(dl.open(minimal), a)

    def test_read_only(self):
        a = dl.empty(4)
        d = self.share(a)
        b = dl.open(dict(d, readOnly=True))
        self.assertFalse(b.flags.writeable)
        with self.assertRaises(ValueError):
            b[0] = 1
        self.assertTrue(self.share(b)['readOnly'])

    def test_freed_after_the_last_hold_and_not_before(self):
        a = dl.empty(8)
        d = self.share(a)
        b = dl.open(d)
        view = b[::2]
        tail = a[4:]
        del a
        collect()
        self.assertEqual(own_holds(d), 2, 'tail still views the creating hold')
        del tail
        collect()
        self.assertEqual(own_holds(d), 1)
        del b
        collect()
        self.assertEqual(own_holds(d), 1, 'a view keeps its hold')
        del view
        collect()
        self.assertFalse(exists(d))
        with self.assertRaises(dl.SegmentGoneError) as caught:
            dl.open(d)
        self.assertIsInstance(caught.exception, FileNotFoundError)
        self.assertIn(d['name'], str(caught.exception))

    def test_the_place_must_hold_that_segment(self):
        a = dl.empty(4)
        d = self.share(a)
        other = dl.empty(4)
        od = self.share(other)
        # The place holds another segment, a pipe, nothing, or a process that is gone.
        read_end, write_end = os.pipe()
        child = subprocess.Popen(['true'])
        child.wait()  # reaped: its pid is free
        for place in ({'fd': od['fd']}, {'fd': read_end}, {'fd': 100000}, {'pid': child.pid}):
            with self.subTest(place):
                with self.assertRaises(dl.SegmentGoneError):
                    dl.open(dict(d, name=_segment.PREFIX + '0' * 32, **place))
        os.close(read_end)
        os.close(write_end)
        # A memfd of the right name without the seals is not a segment.
        name = _segment.PREFIX + 'ab' * 16
        fd = os.memfd_create(name, os.MFD_CLOEXEC)
        try:
            os.ftruncate(fd, 4096)
            with self.assertRaisesRegex(ValueError, 'not sealed'):
                dl.open(dict(d, name=name, pid=os.getpid(), fd=fd))
        finally:
            os.close(fd)
        # This process's own hold is found by name, wherever the place says.
        np.testing.assert_array_equal(dl.open(dict(d, fd=od['fd'])), a)

    def test_share_needs_shared_memory_or_copy(self):
        private = np.arange(6.0).reshape(2, 3)
        # A type of its own (a ValueError still), by which worker.py tells it apart.
        with self.assertRaisesRegex(dl.PrivateMemoryError, r'dlpack_node\.empty\(\).*copy=True'):
            dl.share(private)
        self.assertTrue(issubclass(dl.PrivateMemoryError, ValueError))
        d = self.share(private[:, ::-1], copy=True)
        self.assertEqual((d['shape'], d['strides'], d['byteOffset']), ([2, 3], [3, 1], 0))
        collect()
        self.assertTrue(exists(d), 'the module keeps the copy until release()')
        opened = dl.open(d)
        np.testing.assert_array_equal(opened, private[:, ::-1])
        self.assertTrue(dl.release(d))
        self.assertFalse(dl.release(d))
        collect()
        self.assertTrue(exists(d), 'the opened array still holds it')
        del opened
        d2 = self.share([[1, 2], [3, 4]], copy=True)
        self.assertEqual(d2['dtype'], 'int64')
        dl.release(d2)

    def test_share_rejects_layouts_the_descriptor_cannot_express(self):
        raw = dl.empty(16, 'uint8')
        self.share(raw)
        with self.assertRaisesRegex(ValueError, 'aligned'):
            dl.share(raw[1:9].view(np.float32))
        floats = raw.view(np.float32)
        with self.assertRaisesRegex(ValueError, r'multiples of 4 for `array.strides`'):
            dl.share(np.lib.stride_tricks.as_strided(floats, (2,), (6,)))
        with self.assertRaisesRegex(TypeError, '`array.dtype`'):
            dl.share(floats.view('>f4'))
        with self.assertRaisesRegex(TypeError, '`array`'):
            dl.share([1, 2, 3])

    def test_layouts_follow_the_rule_node_follows(self):
        # test/fixtures/open-layouts.json: the same cases test/sharing.test.js runs through dl.open().
        with builtins_open(os.path.join(REPO_DIR, 'test', 'fixtures', 'open-layouts.json')) as f:
            cases = json.load(f)['cases']
        a = dl.empty(4)
        good = self.share(a)
        self.assertEqual(good['dataSize'], 16)
        for case in cases:
            with self.subTest(case['why']):
                d = dict(good, **case['change'])
                if 'strides' not in case['change']:
                    del d['strides']  # row-major for the new shape
                if case['python'] == 'ok':
                    view = dl.open(d)
                    self.assertEqual(list(view.shape), d['shape'])
                    del view
                else:
                    with self.assertRaises(getattr(builtins, case['python'])) as caught:
                        dl.open(d)
                    self.assertIs(type(caught.exception), getattr(builtins, case['python']))
        del a
        collect()

    def test_too_many_dimensions_are_refused_before_numpy_sees_them(self):
        # Before, NumPy 1.x read the shape into its 32 stack slots: *** stack smashing detected ***.
        for shape in ([1] * 70, [1] * (dl.MAX_DIMS + 1)):
            with self.subTest(len(shape)), self.assertRaisesRegex(ValueError, f'at most {dl.MAX_DIMS} dimensions'):
                dl.empty(shape)

    def test_bad_descriptors(self):
        a = dl.empty((2, 3), 'float32')
        good = self.share(a)
        cases = [
            ({'kind': 'sab'}, ValueError, '`descriptor.kind`'),
            ({'version': 1}, ValueError, '`descriptor.version`'),
            ({'name': 5}, TypeError, '`descriptor.name`'),
            ({'name': '../etc/passwd'}, ValueError, '`descriptor.name`'),
            ({'name': 'dlpack-1/x'}, ValueError, '`descriptor.name`'),
            ({'name': good['name'] + '\0x'}, ValueError, '`descriptor.name`'),
            ({'name': good['name'] + '\n'}, ValueError, '`descriptor.name`'),
            ({'name': good['name'].upper()}, ValueError, '`descriptor.name`'),
            ({'pid': 0}, ValueError, '`descriptor.pid`'),
            ({'pid': '1'}, ValueError, '`descriptor.pid`'),
            ({'pid': 2**31}, ValueError, '`descriptor.pid`'),
            ({'fd': -1}, ValueError, '`descriptor.fd`'),
            ({'fd': 3.0}, ValueError, '`descriptor.fd`'),
            ({'dataSize': -1}, ValueError, '`descriptor.dataSize`'),
            ({'dataSize': 8192}, ValueError, 'at least 8192 data bytes'),
            ({'shape': [1] * (dl.MAX_DIMS + 1), 'strides': [1] * (dl.MAX_DIMS + 1)}, ValueError,
             f'at most {dl.MAX_DIMS} dimensions'),
            ({'dtype': 'float8'}, ValueError, '`descriptor.dtype`'),
            ({'dtype': 'bfloat16'}, TypeError, "like='torch'"),
            ({'shape': [2, -3]}, ValueError, '`descriptor.shape`'),
            ({'shape': [2, 3.0]}, ValueError, '`descriptor.shape`'),
            ({'strides': [3]}, ValueError, '`descriptor.strides`'),
            ({'byteOffset': 2}, ValueError, 'multiple of 4'),
            ({'byteOffset': -4}, ValueError, '`descriptor.byteOffset`'),
            ({'byteOffset': 4}, ValueError, 'inside the 24 shared bytes'),
            ({'strides': [-3, 1]}, ValueError, 'inside the 24 shared bytes'),
            ({'readOnly': 'yes'}, TypeError, '`descriptor.readOnly`'),
        ]
        for change, error, message in cases:
            with self.subTest(change):
                with self.assertRaisesRegex(error, message):
                    dl.open(dict(good, **change))
                self.assertEqual(own_holds(good), 1, 'a refused descriptor opens nothing')
        with self.assertRaisesRegex(TypeError, '`descriptor`'):
            dl.open(42)
        with self.assertRaisesRegex(ValueError, 'JSON'):
            dl.open('{"kind":')
        with self.assertRaisesRegex(ValueError, '`like`'):
            dl.open(good, like='jax')
        with self.assertRaises(dl.SegmentGoneError):
            dl.open(dict(good, name='dlpack-' + '0' * 32))

    def test_no_resource_tracker(self):
        script = (
            'import sys, dlpack_node as dl\n'
            'a = dl.empty(4); b = dl.open(dl.share(a)); del a, b\n'
            'print(sorted(m for m in sys.modules if m.startswith("multiprocessing")))\n'
        )
        out = subprocess.run([sys.executable, '-c', script], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                             capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), '[]')
        self.assertEqual(out.stderr, '')

    def test_torch_missing(self):
        a = dl.empty(4)
        d = self.share(a)
        script = (
            'import json, sys\n'
            'sys.modules["torch"] = None  # as if not installed\n'
            'import dlpack_node as dl\n'
            'try:\n'
            '    dl.open(json.loads(sys.argv[1]), like="torch")\n'
            'except ImportError as error:\n'
            '    print(error)\n'
        )
        out = subprocess.run([sys.executable, '-c', script, json.dumps(d)], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                             capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), "like='torch' needs PyTorch, which could not be imported")
        self.assertEqual(holders(d['name']), {os.getpid()})

    def test_finalizer_inside_a_ticket_lock_is_deferred(self):
        # Cyclic GC can run a ticket's finalizer while this thread holds the
        # flock of another descriptor of the same ticket; blocking there
        # would deadlock, so the detach waits for the lock's release.
        script = (
            'import gc, os, sys\n'
            'sys.path.insert(0, sys.argv[1])\n'
            'from test_shm import HANDLE, make_ticket\n'
            'from dlpack_node import _segment\n'
            'gc.disable()\n'
            'name, fd = make_ticket()\n'
            'ticket = _segment.Ticket(name, os.getpid(), fd, HANDLE)\n'
            'import weakref\n'
            'class Holder: pass\n'
            'holder = Holder(); weakref.finalize(holder, ticket.detach)  # as _cuda_ipc._Mapping\n'
            'cycle = [holder]; cycle.append(cycle); del holder, cycle, ticket  # a detach waits for gc\n'
            'with _segment._Lock(fd):\n'
            '    gc.collect()\n'
            '    assert len(_segment._deferred) == 1\n'
            'assert not _segment._deferred\n'
            'assert _segment.ticket_slots(name, os.getpid(), fd) == [], _segment.ticket_slots(name, os.getpid(), fd)\n'
            'print("ok")\n'
        )
        out = subprocess.run([sys.executable, '-c', script, os.path.dirname(os.path.abspath(__file__))],
                             env=dict(os.environ, PYTHONPATH=PYTHON_DIR), capture_output=True, text=True, timeout=60)
        self.assertEqual((out.stdout.strip(), out.stderr), ('ok', ''))

    def test_exit_frees(self):
        for end in ('pass', 'sys.exit(3)', 'raise SystemExit(0)', 'raise RuntimeError("uncaught")',
                    'os.kill(os.getpid(), signal.SIGKILL)', 'os.abort()'):
            with self.subTest(end):
                script = (
                    'import json, os, signal, sys, dlpack_node as dl\n'
                    'a = dl.empty(4)\n'
                    'print(json.dumps(dl.share(a)), flush=True)\n'
                    f'{end}\n'
                )
                out = subprocess.run([sys.executable, '-c', script], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                                     capture_output=True, text=True, timeout=60)
                d = json.loads(out.stdout)
                self.assertFalse(exists(d), 'the kernel freed it with its last holder')
                with self.assertRaises(dl.SegmentGoneError):
                    dl.open(d)


class TicketTest(SegmentTestCase):
    def test_attach_takes_a_slot_detach_gives_it_back_retired_refuses(self):
        name, fd = make_ticket([os.getpid()])
        try:
            ticket = _segment.Ticket(name, os.getpid(), fd, HANDLE)
            self.assertEqual(_segment.ticket_slots(name, os.getpid(), fd), [os.getpid(), os.getpid()])
            ticket.detach()
            ticket.detach()  # once only
            self.assertEqual(_segment.ticket_slots(name, os.getpid(), fd), [os.getpid()])
            fields = list(_segment._TICKET.unpack(os.pread(fd, _segment._TICKET.size, 0)))
            fields[2] = 1  # retired
            os.pwrite(fd, _segment._TICKET.pack(*fields), 0)
            with self.assertRaisesRegex(dl.SegmentGoneError, 'retired'):
                _segment.Ticket(name, os.getpid(), fd, HANDLE)
        finally:
            os.close(fd)

    def test_dead_slots_are_pruned_and_a_non_ticket_is_refused(self):
        child = subprocess.Popen(['true'])
        child.wait()
        name, fd = make_ticket([child.pid] * _segment.SLOT_COUNT)
        try:
            ticket = _segment.Ticket(name, os.getpid(), fd, HANDLE)
            self.assertEqual(_segment.ticket_slots(name, os.getpid(), fd), [os.getpid()])
            ticket.detach()
        finally:
            os.close(fd)
        a = dl.empty(4096, 'uint8')
        d = self.share(a)
        with self.assertRaisesRegex(ValueError, 'is a data segment, not a ticket'):
            _segment.Ticket(d['name'], os.getpid(), d['fd'], HANDLE)

    def test_a_ticket_never_opens_as_data(self):
        # Issue 20 LOW 11: a 'shm' descriptor naming a ticket's place is refused.
        name, fd = make_ticket([os.getpid()])
        try:
            d = {'kind': 'shm', 'version': 2, 'name': name, 'pid': os.getpid(), 'fd': fd, 'dataSize': 16,
                 'dtype': 'uint8', 'shape': [16]}
            with self.assertRaisesRegex(ValueError, 'is a CUDA-IPC ticket, not a data segment'):
                dl.open(d)
            self.assertEqual(_segment.ticket_slots(name, os.getpid(), fd), [os.getpid()])  # untouched
        finally:
            os.close(fd)

    def test_a_ticket_of_another_allocation_is_refused(self):
        # Issue 20 LOW 11: a handle paired with another allocation's ticket takes no slot in it.
        name, fd = make_ticket([os.getpid()])
        try:
            with self.assertRaisesRegex(ValueError, 'another CUDA allocation'):
                _segment.Ticket(name, os.getpid(), fd, bytes(64))
            self.assertEqual(_segment.ticket_slots(name, os.getpid(), fd), [os.getpid()])
        finally:
            os.close(fd)


@unittest.skipIf(torch is None, 'PyTorch is not installed')
class TorchTest(SegmentTestCase):
    def test_too_many_dimensions_are_refused_by_share(self):
        with self.assertRaisesRegex(ValueError, 'at most 64 dimensions'):
            dl.share(torch.zeros((1,) * 70), copy=True)
        with self.assertRaisesRegex(ValueError, f'at most {dl.MAX_DIMS} dimensions'):
            dl.share(torch.zeros((1,) * (dl.MAX_DIMS + 1)), copy=True)  # the copy is a NumPy-backed segment

    def test_tensor_shares_memory(self):
        a = dl.empty((2, 3))
        d = self.share(a)
        t = dl.open(d, like='torch')
        self.assertIsInstance(t, torch.Tensor)
        self.assertEqual((t.dtype, tuple(t.shape), t.stride()), (torch.float32, (2, 3), (3, 1)))
        t[0, 1] = 5
        a[1, 2] = 3
        self.assertEqual((a[0, 1], t[1, 2].item()), (5, 3))
        self.assertEqual(without_place(self.share(t[1:, ::2])),
                         without_place(dict(d, byteOffset=12, shape=[1, 2], strides=[3, 2])))
        del a
        collect()
        self.assertEqual(own_holds(d), 1, 'the tensor keeps its own hold')
        view = t[1]
        del t
        collect()
        self.assertTrue(exists(d), 'a view of the tensor keeps it')
        del view
        collect()
        self.assertFalse(exists(d))

    def test_dtypes(self):
        for name in dl.DTYPES:
            if not isinstance(getattr(torch, name, None), torch.dtype):
                continue  # uint16/32/64 before torch 2.3
            with self.subTest(name):
                t = dl.empty((2, 2), name, like='torch')
                self.assertEqual(t.dtype, getattr(torch, name))
                t.copy_(torch.tensor([[1, 0], [1, 1]]).to(t.dtype))
                d = self.share(t)
                self.assertEqual(d['dtype'], name)
                u = dl.open(d, like='torch')
                self.assertTrue(torch.equal(u, t))
                u[0, 1] = 1
                self.assertEqual(t[0, 1].item(), 1)

    def test_bfloat16(self):
        t = dl.empty(4, 'bfloat16', like='torch')
        t.copy_(torch.tensor([1.5, -2, 3, 0.25]))
        d = self.share(t[::2])
        self.assertEqual((d['dtype'], d['strides'], d['dataSize']), ('bfloat16', [2], 8))
        u = dl.open(d, like='torch')
        self.assertEqual(u.tolist(), [1.5, 3.0])
        with self.assertRaisesRegex(TypeError, "like='torch'"):
            dl.open(d)
        with self.assertRaisesRegex(TypeError, "like='torch'"):
            dl.empty(2, 'bfloat16')

    def test_refusals(self):
        a = dl.empty(4)
        d = self.share(a[::-1])
        with self.assertRaisesRegex(ValueError, 'negative strides'):
            dl.open(d, like='torch')
        if not isinstance(getattr(torch, 'uint32', None), torch.dtype):
            with self.assertRaisesRegex(TypeError, 'uint32'):
                dl.open(self.share(dl.empty(2, 'uint32')), like='torch')
        with self.assertRaisesRegex(ValueError, 'copy=True'):
            dl.share(torch.zeros(3))
        c = torch.tensor([1 + 2j, 3 - 4j])
        shared = dl.empty(2, 'complex64')
        with self.assertRaisesRegex(ValueError, 'conjugate'):
            dl.share(dl.open(self.share(shared), like='torch').conj())
        dc = self.share(c.conj(), copy=True)
        self.assertEqual(dl.open(dc).tolist(), [1 - 2j, 3 + 4j])
        dl.release(dc)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            dl.open(dict(d, byteOffset=0, strides=[1], readOnly=True), like='torch')
        self.assertEqual([str(w.message) for w in caught if 'read-only' in str(w.message)][:1],
                         ['The descriptor is read-only but torch tensors cannot be: do not write to this tensor'])


class TwoProcessTest(SegmentTestCase):
    def test_writes_are_visible_both_ways(self):
        a = dl.empty((3, 4), 'int32')
        a[:] = np.arange(12).reshape(3, 4)
        d = self.share(a)
        w = self.worker()
        opened = w.ok('open', descriptor=d)
        self.assertEqual((opened['dtype'], opened['shape'], opened['strides'], opened['sum']),
                         ('int32', [3, 4], [4, 1], 66))
        self.assertEqual(holders(d['name']), {os.getpid(), w.pid})
        w.ok('fill', id=opened['id'], value=7)
        self.assertEqual(a.tolist(), [[7] * 4] * 3)
        a[1] = -1
        self.assertEqual(w.ok('read', id=opened['id'])['values'], [7] * 4 + [-1] * 4 + [7] * 4)

    def test_layout_round_trip(self):
        base = dl.empty(60, 'float64')
        base[:] = np.arange(60)
        view = base.reshape(3, 4, 5)[::-1, 1:, ::2]
        d = self.share(view)
        w = self.worker()
        opened = w.ok('open', descriptor=d)
        self.assertEqual((opened['shape'], opened['strides']), ([3, 3, 3], [-20, 5, 2]))
        self.assertEqual(w.ok('read', id=opened['id'])['values'], view.ravel().tolist())
        back = w.ok('share', id=opened['id'])['descriptor']
        self.assertEqual(without_place(back), without_place(d))
        self.assertEqual(back['pid'], w.pid)
        w.ok('fill', id=opened['id'], values=list(range(27)))
        np.testing.assert_array_equal(view.ravel(), np.arange(27))

    def test_child_creates_and_parent_opens(self):
        w = self.worker()
        made = w.ok('empty', shape=[2, 2], dtype='complex128')
        d = made['descriptor']
        self.names.append(d['name'])
        self.assertEqual(d['pid'], w.pid)
        a = dl.open(d)
        self.assertEqual(a.dtype, np.complex128)
        w.ok('fill', id=made['id'], value=[1, -2])
        self.assertEqual(a.tolist(), [[1 - 2j] * 2] * 2)
        a[0, 0] = 3j
        self.assertEqual(w.ok('read', id=made['id'])['values'][0], [0, 3])
        w.ok('release', id=made['id'])
        self.assertEqual(holders(d['name']), {os.getpid()}, 'the parent still holds it')
        del a
        collect()
        self.assertFalse(exists(d))

    def test_parent_detaches_first(self):
        a = dl.empty(4, 'uint8')
        d = self.share(a)
        w = self.worker()
        opened = w.ok('open', descriptor=d)
        del a
        collect()
        self.assertEqual(holders(d['name']), {w.pid}, 'the child still holds it')
        w.ok('release', id=opened['id'])
        self.assertFalse(exists(d))
        failed = w.call('open', descriptor=d)
        self.assertEqual((failed['ok'], failed['type']), (False, 'SegmentGoneError'))

    def test_a_place_flipping_to_a_fifo_never_opens_the_fifo(self):
        # Issue 20 LOW 9: a same-user process flips the named descriptor
        # between the segment and a FIFO while this one opens in a loop. Each
        # open gives the segment or refuses; the FIFO is never opened (the
        # child counts opens of it with inotify) and nothing blocks.
        flipper = subprocess.Popen([sys.executable, PLACE_FLIPPER, '4'], stdout=subprocess.PIPE, text=True)
        self.addCleanup(flipper.wait)
        self.addCleanup(flipper.stdout.close)
        self.addCleanup(flipper.kill)
        d = json.loads(flipper.stdout.readline())
        outcomes = {'opened': 0, 'refused': 0}
        end = time.monotonic() + 2
        while time.monotonic() < end:
            try:
                a = dl.open(d)
            except (_segment.SegmentGoneError, PermissionError, ValueError):
                outcomes['refused'] += 1
                continue
            self.assertEqual(a.tolist(), [1, 2, 3, 4])
            outcomes['opened'] += 1
            del a  # the last reference: the next open goes through the place again
        report = json.loads(flipper.stdout.readline())  # the child stops flipping on its own
        self.assertGreater(report['flips'], 0)
        self.assertEqual(report['fifoOpens'], 0, f'the FIFO was opened (outcomes {outcomes})')
        self.assertGreater(sum(outcomes.values()), 0)

    def test_killed_child_does_not_keep_the_segment(self):
        a = dl.empty(4)
        d = self.share(a)
        w = self.worker()
        w.ok('open', descriptor=d)
        self.assertIn(w.pid, holders(d['name']))
        w.kill()
        self.assertEqual(holders(d['name']), {os.getpid()})
        del a
        collect()
        self.assertFalse(exists(d))

    def test_killed_creator_frees_unless_opened(self):
        w = self.worker()
        d = w.ok('empty', shape=[8], dtype='float32')['descriptor']
        kept = w.ok('empty', shape=[8], dtype='float32')['descriptor']
        self.names += [d['name'], kept['name']]
        a = dl.open(kept)
        w.kill()
        self.assertFalse(exists(d), 'the kernel freed it with its only holder')
        with self.assertRaises(dl.SegmentGoneError):
            dl.open(d)
        self.assertEqual(holders(kept['name']), {os.getpid()})
        a[:] = 1  # still mapped, still whole
        del a
        collect()
        self.assertFalse(exists(kept))

    def test_worker_errors(self):
        w = self.worker()
        bad = w.call('open', descriptor={'kind': 'shm', 'version': 2})
        self.assertEqual((bad['ok'], bad['type']), (False, 'TypeError'))
        self.assertIn('`descriptor.name`', bad['error'])
        self.assertEqual(w.call('nope')['type'], 'ValueError')
        self.assertEqual(w.call('read', id=99)['type'], 'ValueError')

    @unittest.skipIf(torch is None, 'PyTorch is not installed')
    def test_worker_opens_as_torch(self):
        a = dl.empty((2, 2), 'int64')
        d = self.share(a)
        w = self.worker()
        opened = w.ok('open', descriptor=d, like='torch')
        w.ok('fill', id=opened['id'], value=5)
        self.assertEqual(a.sum(), 20)
        made = w.ok('empty', shape=[3], dtype='bfloat16', like='torch')
        self.names.append(made['descriptor']['name'])
        w.ok('fill', id=made['id'], values=[0.5, 'Infinity', 'NaN'])
        t = dl.open(made['descriptor'], like='torch')
        self.assertEqual(t[:2].tolist(), [0.5, float('inf')])
        self.assertTrue(t[2].isnan().item())
        del t


if __name__ == '__main__':
    unittest.main()
