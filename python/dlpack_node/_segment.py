"""Sealed memfd segments and CUDA IPC tickets: the format and protocol of FORMAT.md.

Linux only (memfd_create, /proc/<pid>/fd). A segment has no name in /dev/shm:
each holder keeps a descriptor open and a mapping, and the kernel frees the
memory with the last of them, however its holders end. Another process of the
same user reopens it through /proc/<pid>/fd/<fd> of any holder, after checking
the link's name (a random token), the file's identity, owner and seals. The
seals (no shrinking, no growing) mean no holder can cut the file under
another's mapping, which would be SIGBUS.

Tickets (the slots of CUDA IPC exports) are read and written with pread/pwrite
under flock on the ticket's own descriptor.
"""
import errno
import fcntl
import mmap
import os
import re
import secrets
import stat
import struct
import threading

import numpy as np

from ._errors import SegmentGoneError, expected

PREFIX = 'dlpack-'
NAME = re.compile(r'dlpack-[0-9a-f]{32}\Z')
SLOT_COUNT = 128
TICKET_SIZE = 4096
TICKET_MAGIC = b'DLPKTKT\x03'
HANDLE_BYTES = 64
# FORMAT.md "Names": a ticket's memfd is its name and this suffix, so a
# segment's place never opens as a ticket nor a ticket's as a segment.
TICKET_SUFFIX = '.ticket'
SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL
INT32_MAX = 2**31 - 1
_MFD_NOEXEC_SEAL = getattr(os, 'MFD_NOEXEC_SEAL', 0x0008)

# FORMAT.md "Tickets": magic, slot_count, retired; the int32 slots from byte
# 16; then the CUDA IPC handle the ticket belongs to. '=' is native byte order.
_TICKET = struct.Struct(f'=8sII{SLOT_COUNT}i{HANDLE_BYTES}s')
assert _TICKET.size <= TICKET_SIZE

# Segments this process holds, by data address (for share()) and by name
# (a second open reopens this process's own descriptor).
_live = {}

# Ticket detaches that a finalizer could not run because its thread held a
# ticket lock (see _Lock); the outermost _Lock runs them on release.
_deferred = []
_tls = threading.local()


def _depth():
    return getattr(_tls, 'depth', 0)


class _Lock:
    """flock(LOCK_EX) on a ticket descriptor for a with-block.

    Two open file descriptions of one file conflict under flock even in one
    thread. Cyclic GC can start at any allocation inside the block and run a
    finalizer that detaches another attachment of the same ticket, which would
    then wait on this thread forever; Ticket.detach defers itself instead
    while this thread holds a lock (depth > 0).
    """

    __slots__ = ('fd', 'flags')

    def __init__(self, fd, blocking=True):
        self.fd = fd
        self.flags = fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB

    def __enter__(self):
        _tls.depth = _depth() + 1
        try:
            fcntl.flock(self.fd, self.flags)  # retried on EINTR (PEP 475)
        except BaseException:
            _tls.depth -= 1
            raise

    def __exit__(self, *exc_info):
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            _tls.depth -= 1
        if _tls.depth == 0:
            run_deferred()


def run_deferred():
    while _deferred:
        try:
            ticket = _deferred.pop()
        except IndexError:  # another thread took the last one
            return
        ticket.detach()


def check_name(field, name):
    """A segment or ticket name from a descriptor: FORMAT.md "Names" (no NUL, slash or newline can pass)."""
    if not isinstance(name, str):
        raise TypeError(expected(field, 'a segment name string', name))
    if not NAME.match(name):
        raise ValueError(expected(field, "a segment name ('dlpack-' and 32 lowercase hex digits)", name))


def check_place(d):
    """The pid and fd fields of a descriptor: where the segment is open."""
    pid, fd = d.get('pid'), d.get('fd')
    if not _is_int(pid) or not 1 <= pid <= INT32_MAX:
        raise ValueError(expected('descriptor.pid', 'a process id (a positive integer)', pid))
    if not _is_int(fd) or not 0 <= fd <= INT32_MAX:
        raise ValueError(expected('descriptor.fd', 'a descriptor number (a non-negative integer)', fd))
    return int(pid), int(fd)


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _new_memfd(size, ticket=False):
    """FORMAT.md "Creating": a new sealed memfd of `size` bytes, its pages reserved; (name, fd)."""
    name = PREFIX + secrets.token_hex(16)
    memfd_name = name + TICKET_SUFFIX if ticket else name
    try:
        # MFD_NOEXEC_SEAL (Linux 6.3): where vm.memfd_noexec = 2 a memfd
        # without it is refused; older kernels refuse the flag (EINVAL).
        fd = os.memfd_create(memfd_name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING | _MFD_NOEXEC_SEAL)
    except OSError as error:
        if error.errno != errno.EINVAL:
            raise
        fd = os.memfd_create(memfd_name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, size)
        # Reserves the pages now: on a full tmpfs a mapped page faulted in
        # later would kill the process with SIGBUS instead of raising here.
        os.posix_fallocate(fd, 0, size)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
    except BaseException:
        os.close(fd)
        raise
    return name, fd


def _link(name, ticket=False):
    return f'/memfd:{name}{TICKET_SUFFIX if ticket else ""} (deleted)'


def _open_place(name, pid, fd, min_size, ticket=False):
    """FORMAT.md "Opening": a new descriptor of segment (or `ticket`) `name` held open at /proc/<pid>/fd/<fd>.

    The place is opened O_PATH first (no side effect, whatever it names) and
    checked through that descriptor; only the checked file is reopened for
    reading and writing, through this process's own /proc/self/fd entry, so a
    place flipped to a FIFO or a device meanwhile is never opened.
    """
    path = f'/proc/{pid}/fd/{fd}'
    where = f"{'Ticket' if ticket else 'Segment'} '{name}' (process {pid}, descriptor {fd})"
    try:
        link = os.readlink(path)
    except PermissionError:
        raise PermissionError(errno.EACCES, f"{where} cannot be inspected (another user's process?)") from None
    except OSError:
        link = None
    if link == _link(name, not ticket):
        raise ValueError(f'{where} is a data segment, not a ticket' if ticket else
                         f"{where} is a CUDA-IPC ticket, not a data segment")
    if link != _link(name, ticket):
        raise SegmentGoneError(f'{where} is no longer open there (released, or its process ended)')
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        raise SegmentGoneError(f'{where} is no longer open there (released, or its process ended)') from None
    try:
        checked = os.fstat(handle)
        if os.readlink(f'/proc/self/fd/{handle}') != _link(name, ticket):
            raise SegmentGoneError(f'{where} changed while it was opened')
        if not stat.S_ISREG(checked.st_mode) or checked.st_uid != os.geteuid():
            raise PermissionError(errno.EACCES, f'{where} is not a segment of this user')
        own = os.open(f'/proc/self/fd/{handle}', os.O_RDWR | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
    finally:
        os.close(handle)
    try:
        st = os.fstat(own)
        if (st.st_dev, st.st_ino) != (checked.st_dev, checked.st_ino):
            raise SegmentGoneError(f'{where} changed while it was opened')
        if fcntl.fcntl(own, fcntl.F_GET_SEALS) & SEALS != SEALS:
            raise ValueError(f'{where} is not sealed against shrinking and growing')
        if st.st_size < min_size:
            raise ValueError(f'Expected at least {min_size} data bytes (`descriptor.dataSize`) in segment '
                             f"'{name}', received a segment of {st.st_size}")
    except BaseException:
        os.close(own)
        raise
    return own, st.st_size


def _address(mapping):
    view = np.frombuffer(mapping, dtype=np.uint8)
    address = view.__array_interface__['data'][0]
    del view  # releases the buffer export, or mapping.close() would refuse
    return address


class Segment:
    """This process's hold on a segment: a descriptor and a mapping of it."""

    __slots__ = ('name', 'data_size', 'address', 'fd', '_map')

    def __init__(self, name, fd, mapping, data_size):
        self.name = name
        self.data_size = data_size
        self.fd = fd
        self._map = mapping
        self.address = _address(mapping)
        _live[id(self)] = self

    def contains(self, low, high):
        """[low, high) addresses lie in the data; an empty range may sit at its end."""
        end = self.address + self.data_size
        return self.address <= low and high <= end if low < high else self.address <= low <= end

    def detach(self):
        """Unmaps and closes; the finalizer of the arrays' holder. Takes no lock."""
        if self._map is None:
            return
        _live.pop(id(self), None)
        mapping, self._map = self._map, None
        try:
            mapping.close()
        finally:
            os.close(self.fd)


def _held(name):
    for segment in list(_live.values()):
        if segment.name == name and segment._map is not None:
            return segment
    return None


def attach(name, pid, fd, min_data_size):
    """A new hold on segment `name`, reopened through this process's own
    descriptor when it holds one already, else through /proc/<pid>/fd/<fd>."""
    held = _held(name)
    if held is not None:
        pid, fd = os.getpid(), held.fd
    own, size = _open_place(name, pid, fd, min_data_size)
    try:
        mapping = mmap.mmap(own, size)
    except BaseException:
        os.close(own)
        raise
    return Segment(name, own, mapping, max(min_data_size, 0))


def create(data_size):
    """FORMAT.md "Creating": a new zeroed segment of `data_size` bytes."""
    page = mmap.PAGESIZE
    map_size = (max(data_size, 1) + page - 1) // page * page  # mmap refuses an empty mapping
    name, fd = _new_memfd(map_size)
    try:
        mapping = mmap.mmap(fd, map_size)
    except BaseException:
        os.close(fd)
        raise
    return Segment(name, fd, mapping, data_size)


def live_segments():
    # A copy first (one C call, under the GIL): another thread's detach() (a
    # finalizer, run where the last array over a segment is dropped) may pop
    # from _live while this walks it.
    return [s for s in _live.copy().values() if s._map is not None]


def _alive(pid):
    # FORMAT.md "Tickets": only ESRCH means dead; EPERM is someone else's live
    # process. kill() with pid <= 0 would signal a process group: never alive.
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Ticket:
    """This process's slot in the CUDA IPC ticket of the allocation `handle` names (FORMAT.md "Tickets")."""

    __slots__ = ('name', 'fd', '_pid', '__weakref__')

    def __init__(self, name, pid, fd, handle):
        own, _ = _open_place(name, pid, fd, TICKET_SIZE, ticket=True)
        try:
            with _Lock(own):
                fields = list(_TICKET.unpack(os.pread(own, _TICKET.size, 0)))
                if fields[0] != TICKET_MAGIC or fields[1] != SLOT_COUNT:
                    raise ValueError(f"Segment '{name}' is not a ticket")
                if fields[2] != 0:
                    raise SegmentGoneError(f"Ticket '{name}' was retired by its exporter")
                if fields[-1] != handle:
                    raise ValueError(f"Ticket '{name}' belongs to another CUDA allocation than the descriptor's "
                                     '`handle` names')
                slots = fields[3:-1]
                for i, slot in enumerate(slots):
                    if slot != 0 and not _alive(slot):
                        slots[i] = 0
                if 0 not in slots:
                    raise OSError(errno.EUSERS, f"Ticket '{name}' has no free slot ({SLOT_COUNT} in use)")
                slots[slots.index(0)] = os.getpid()
                os.pwrite(own, _TICKET.pack(*fields[:3], *slots, handle), 0)
        except BaseException:
            os.close(own)
            raise
        self.name = name
        self.fd = own
        self._pid = os.getpid()

    def detach(self):
        """Gives up the slot and closes; a forked child only closes."""
        if self.fd is None:
            return
        if _depth() > 0:
            _deferred.append(self)
            return
        fd, self.fd = self.fd, None
        try:
            if os.getpid() == self._pid:
                with _Lock(fd):
                    fields = list(_TICKET.unpack(os.pread(fd, _TICKET.size, 0)))
                    slots = fields[3:-1]
                    if self._pid in slots:
                        slots[slots.index(self._pid)] = 0
                        os.pwrite(fd, _TICKET.pack(*fields[:3], *slots, fields[-1]), 0)
        finally:
            os.close(fd)


def ticket_slots(name, pid, fd):
    """The pids holding a slot in a ticket (for tests and diagnostics)."""
    own, _ = _open_place(name, pid, fd, TICKET_SIZE, ticket=True)
    try:
        with _Lock(own):
            return [p for p in _TICKET.unpack(os.pread(own, _TICKET.size, 0))[3:-1] if p != 0]
    finally:
        os.close(own)
