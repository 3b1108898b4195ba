"""POSIX shared-memory segments: the format and protocol of FORMAT.md.

Linux only. glibc's shm_open("/dlpack-...") opens /dev/shm/dlpack-... with
O_NOFOLLOW | O_CLOEXEC, and shm_unlink unlinks that file, so os.open and
os.unlink stand in for them; multiprocessing.shared_memory is not used (its
resource_tracker unlinks segments it does not own, FORMAT.md "Protocol").

The header is read and written with pread/pwrite on the descriptor, always
under flock; on tmpfs these see the same pages as every process's mapping.
"""
import errno
import fcntl
import mmap
import os
import secrets
import stat
import struct
import threading

import numpy as np

from ._errors import SegmentGoneError, expected

SHM_DIR = '/dev/shm'
PREFIX = 'dlpack-'
HEADER_SIZE = 4096
SLOT_COUNT = 128
MAGIC = b'DLPKSHM'
VERSION = 1

# FORMAT.md "Segment": magic + version byte, header_size, slot_count,
# data_size, reserved; then the int32 slots from byte 32. '=' is native byte order.
_FIXED = struct.Struct('=7sBIIQQ')
_SLOTS = struct.Struct(f'={SLOT_COUNT}i')
assert _FIXED.size == 32 and _FIXED.size + _SLOTS.size <= HEADER_SIZE

_OPEN_FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC

# Attachments of this process by data address, for share().
_live = {}

# Detaches that a finalizer could not run because its thread held a segment
# lock (see _Lock); the outermost _Lock runs them on release.
_deferred = []
_tls = threading.local()


def _depth():
    return getattr(_tls, 'depth', 0)


class _Lock:
    """flock(LOCK_EX) on a segment descriptor for a with-block.

    Two open file descriptions of one file conflict under flock even in one
    thread. Cyclic GC can start at any allocation inside the block and run a
    finalizer that detaches another attachment of the same segment, which
    would then wait on this thread forever; Segment.detach defers itself
    instead while this thread holds a lock (depth > 0).
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
            segment = _deferred.pop()
        except IndexError:  # another thread took the last one
            return
        segment.detach()


def check_name(field, name):
    """A segment name from a descriptor: 'dlpack-...', without slashes or NULs."""
    if not name.startswith(PREFIX) or '/' in name or '\0' in name or len(name) > 200:
        raise ValueError(expected(field, f"a segment name starting with '{PREFIX}' and without slashes", name))


def path_of(name):
    return f'{SHM_DIR}/{name}'


def _alive(pid):
    # FORMAT.md "prune": only ESRCH means dead; EPERM is someone else's live
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


def _read_slots(fd):
    return list(_SLOTS.unpack(os.pread(fd, _SLOTS.size, _FIXED.size)))


def _write_slots(fd, slots):
    os.pwrite(fd, _SLOTS.pack(*slots), _FIXED.size)


def _prune(slots):
    """Clears the slots of dead processes; returns how many stay in use."""
    used = 0
    for i, pid in enumerate(slots):
        if pid == 0:
            continue
        if _alive(pid):
            used += 1
        else:
            slots[i] = 0
    return used


def _read_header(fd, name):
    """FORMAT.md "attach": checks magic, version and size; returns data_size."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size < HEADER_SIZE:
        raise ValueError(f"Segment '{name}' is too small for a dlpack header")
    magic, version, header_size, slot_count, data_size, _ = _FIXED.unpack(os.pread(fd, _FIXED.size, 0))
    if magic != MAGIC:
        raise ValueError(f"Segment '{name}' has no dlpack header")
    if version != VERSION:
        raise ValueError(f"Segment '{name}' has format version {version}; this module reads version {VERSION}")
    if header_size != HEADER_SIZE or slot_count != SLOT_COUNT:
        raise ValueError(f"Segment '{name}' has a header of {header_size} bytes and {slot_count} slots, "
                         f"not {HEADER_SIZE} and {SLOT_COUNT}")
    if data_size > st.st_size - HEADER_SIZE:
        raise ValueError(f"Segment '{name}' claims {data_size} data bytes but holds {st.st_size - HEADER_SIZE}")
    return data_size, st.st_size


def _still_named(fd, name):
    """The name still names the object behind `fd` (not unlinked, nor unlinked and reused)."""
    try:
        by_name = os.stat(path_of(name), follow_symlinks=False)
    except FileNotFoundError:
        return False
    by_fd = os.fstat(fd)
    return (by_fd.st_dev, by_fd.st_ino) == (by_name.st_dev, by_name.st_ino)


def _unlink(name):
    try:
        os.unlink(path_of(name))
    except FileNotFoundError:
        pass


def _address(mapping):
    view = np.frombuffer(mapping, dtype=np.uint8)
    address = view.__array_interface__['data'][0]
    del view  # releases the buffer export, or mapping.close() would refuse
    return address


class Segment:
    """One attachment of this process to a segment: a slot and a mapping."""

    __slots__ = ('name', 'data_size', 'address', '_fd', '_map', '_pid', '_slot_held')

    def __init__(self, name, fd, mapping, data_size):
        self.name = name
        self.data_size = data_size
        self._fd = fd
        self._map = mapping
        self._pid = os.getpid()
        self._slot_held = True
        self.address = _address(mapping) + HEADER_SIZE
        _live[id(self)] = self

    def contains(self, low, high):
        """[low, high) addresses lie in the data; an empty range may sit at its end."""
        end = self.address + self.data_size
        return self.address <= low and high <= end if low < high else self.address <= low <= end

    def release_slot(self):
        """FORMAT.md "detach" up to the unlock: the mapping stays valid."""
        if not self._slot_held:
            return
        self._slot_held = False
        # A process forked from the attaching one inherits the mapping but
        # not the slot: it only unmaps.
        if os.getpid() != self._pid:
            return
        with _Lock(self._fd):
            slots = _read_slots(self._fd)
            if self._pid in slots:
                slots[slots.index(self._pid)] = 0
            used = _prune(slots)
            _write_slots(self._fd, slots)
            # Unlinking under the lock: an attach in progress either took its
            # slot first, or finds the name gone (_still_named) and fails.
            if used == 0 and _still_named(self._fd, self.name):
                _unlink(self.name)

    def detach(self):
        """FORMAT.md "detach"; the finalizer of the arrays' holder."""
        if self._map is None:
            return
        if _depth() > 0:
            _deferred.append(self)
            return
        _live.pop(id(self), None)
        try:
            self.release_slot()
        finally:
            mapping, self._map = self._map, None
            mapping.close()
            os.close(self._fd)


def _attach_fd(name, fd, min_data_size):
    """FORMAT.md "attach" on a descriptor opened from `name`; closes it on failure."""
    try:
        with _Lock(fd):
            data_size, file_size = _read_header(fd, name)
            if data_size < min_data_size:
                raise ValueError(f"Expected at least {min_data_size} data bytes (`descriptor.dataSize`) in "
                                 f"segment '{name}', received a segment of {data_size}")
            if not _still_named(fd, name):
                raise SegmentGoneError(f"Segment '{name}' was released by every process that attached it")
            slots = _read_slots(fd)
            _prune(slots)
            if 0 not in slots:
                raise OSError(errno.EUSERS, f"Segment '{name}' has no free attachment slot "
                                            f'({SLOT_COUNT} live attachments)')
            slots[slots.index(0)] = os.getpid()
            _write_slots(fd, slots)
    except BaseException:
        os.close(fd)
        raise
    try:
        mapping = mmap.mmap(fd, file_size)
    except BaseException:
        _give_back_slot(name, fd)
        raise
    return Segment(name, fd, mapping, data_size)


def _give_back_slot(name, fd):
    """Detach for an attachment that never got mapped; closes `fd`."""
    try:
        with _Lock(fd):
            slots = _read_slots(fd)
            slots[slots.index(os.getpid())] = 0
            used = _prune(slots)
            _write_slots(fd, slots)
            if used == 0 and _still_named(fd, name):
                _unlink(name)
    finally:
        os.close(fd)


def attach(name, min_data_size):
    """A new attachment to the existing segment `name`."""
    try:
        fd = os.open(path_of(name), _OPEN_FLAGS)
    except FileNotFoundError:
        raise SegmentGoneError(f"Segment '{name}' does not exist (already released by every process?)") from None
    return _attach_fd(name, fd, min_data_size)


def create(data_size):
    """FORMAT.md "create": a new zeroed segment of `data_size` bytes, attached once."""
    page = mmap.PAGESIZE
    map_size = (HEADER_SIZE + data_size + page - 1) // page * page
    for _ in range(8):
        name = f'{PREFIX}{os.getpid()}-{secrets.token_hex(8)}'
        try:
            fd = os.open(path_of(name), _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, 'Could not find a free shared-memory segment name')
    try:
        os.ftruncate(fd, map_size)
        # Reserves the pages now: on a full tmpfs a mapped page faulted in
        # later would kill the process with SIGBUS instead of raising here.
        os.posix_fallocate(fd, 0, map_size)
        mapping = mmap.mmap(fd, map_size)
    except BaseException:
        _unlink(name)
        os.close(fd)
        raise
    slots = [0] * SLOT_COUNT
    slots[0] = os.getpid()
    with _Lock(fd):
        os.pwrite(fd, _FIXED.pack(MAGIC, VERSION, HEADER_SIZE, SLOT_COUNT, data_size, 0) + _SLOTS.pack(*slots), 0)
    return Segment(name, fd, mapping, data_size)


def sweep():
    """FORMAT.md "sweep"; returns how many segments it unlinked."""
    try:
        names = [n for n in os.listdir(SHM_DIR) if n.startswith(PREFIX)]
    except OSError:
        return 0
    removed = 0
    for name in names:
        try:
            fd = os.open(path_of(name), _OPEN_FLAGS)
        except OSError:  # gone meanwhile, or another user's
            continue
        try:
            with _Lock(fd, blocking=False):
                try:
                    _read_header(fd, name)
                except ValueError:
                    continue  # a segment still being created has no header yet
                slots = _read_slots(fd)
                before = list(slots)
                used = _prune(slots)
                if slots != before:
                    _write_slots(fd, slots)
                if used == 0 and _still_named(fd, name):
                    _unlink(name)
                    removed += 1
        except OSError:  # BlockingIOError: locked by a live user right now
            pass
        finally:
            os.close(fd)
    return removed


def at_exit():
    """Gives up this process's slots; the mappings stay until the process ends.

    Arrays may still be used by later exit handlers, so nothing is unmapped.
    """
    run_deferred()
    for segment in list(_live.values()):
        try:
            segment.release_slot()
        except OSError:
            pass


def live_segments():
    return list(_live.values())


def slots_of(name):
    """The pids attached to segment `name` (for tests and diagnostics)."""
    fd = os.open(path_of(name), _OPEN_FLAGS)
    try:
        with _Lock(fd):
            return [pid for pid in _read_slots(fd) if pid != 0]
    finally:
        os.close(fd)
