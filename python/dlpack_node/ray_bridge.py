"""Ray, served to Node through the Python worker (docs/arrow.md "Ray").

Node starts this module (`python -m dlpack_node.ray_bridge`, from dl.ray.connect())
and calls the functions below through dlpack_node.worker: tensors arrive as
NumPy arrays over Node's shared memory, object references travel as their
hex ids, and this process holds each ObjectRef Node has until Node releases
it. Copies of a batch: Node -> this worker 0 (the shared segment), put() 1
(into Ray's object store), a task on this node 0 (Ray hands it a read-only
NumPy array over the store), get() back to Node 1 (the worker copies the
store's read-only array into a segment Node opens).

Ray is imported when connect() runs; this package depends on nothing of Ray.
"""
import importlib
import sys

from . import worker
from ._errors import expected

__all__ = ['connect', 'put', 'call', 'get', 'release', 'stats', 'shutdown']

REF = '__dlpack_ray_ref__'  # the key of a reference's JSON form, {REF: hex id} (lib/ray.js)

_refs = {}  # hex id -> the ObjectRef Node holds through it
_remote = {}  # 'pkg.mod:fn' -> its ray.remote function


def _ray():
    try:
        import ray
    except ImportError as error:
        raise ImportError(f"dl.ray needs Ray in the worker's Python ({sys.executable}), which could not import it "
                          f"({error}): {sys.executable} -m pip install 'ray[default]'") from error
    return ray


def connect(options):
    """ray.init() with Node's options: address (None starts a local cluster), namespace, numCpus,
    objectStoreMemory (bytes). Returns what Node reports: the address, this node's id and Ray's version."""
    ray = _ray()
    keys = {'address': 'address', 'namespace': 'namespace', 'numCpus': 'num_cpus',
            'objectStoreMemory': 'object_store_memory'}
    kwargs = {keys[k]: v for k, v in options.items() if k in keys and v is not None}
    local = kwargs.get('address') is None
    if not local:
        kwargs.pop('num_cpus', None)  # resources belong to the cluster being joined
        kwargs.pop('object_store_memory', None)
    ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **kwargs)
    context = ray.get_runtime_context()
    return {'address': context.gcs_address, 'nodeId': context.get_node_id(), 'version': ray.__version__,
            'local': local}


def _ref(ref_id):
    try:
        return _refs[ref_id]
    except KeyError:
        raise LookupError(expected('ref', 'a reference this connection holds (not released)', ref_id)) from None


def _resolve(value):
    """Node's arguments with each {REF: id} made the ObjectRef it names, at any depth (Ray resolves a
    top-level reference to its value for a task, and passes nested ones as references)."""
    if isinstance(value, dict):
        if set(value) == {REF}:
            return _ref(value[REF])
        return {k: _resolve(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    return value


def _keep(ref):
    _refs[ref.hex()] = ref
    return {REF: ref.hex()}


def put(value):
    """ray.put(value): one copy of an array into the object store. Returns the reference."""
    return _keep(_ray().put(value))


def _function(spec):
    if spec not in _remote:
        if not isinstance(spec, str) or spec.count(':') != 1:
            raise ValueError(expected('fn', "'package.module:function'", spec))
        module, name = spec.split(':')
        function = getattr(importlib.import_module(module), name)
        _remote[spec] = _ray().remote(function)
    return _remote[spec]


def call(spec, *args):
    """fn.remote(*args) for spec 'package.module:function': references are resolved by Ray (a task on
    this node reads an array in the store without a copy), arrays are put by Ray. Returns the result's
    reference."""
    return _keep(_function(spec).remote(*[_resolve(a) for a in args]))


def get(ref):
    """ray.get() of a reference: an array comes back to Node through one copy into a segment."""
    return _ray().get(_ref(ref[REF] if isinstance(ref, dict) else ref))


def release(*ids):
    """Drops this process's ObjectRefs for these ids (Ray frees an object nothing refers to)."""
    for ref_id in ids:
        _refs.pop(ref_id, None)
    return len(_refs)


def stats():
    """The references held for Node, and the bytes used in this node's object store."""
    ray = _ray()
    from ray._private.internal_api import get_memory_info_reply, get_state_from_address
    reply = get_memory_info_reply(get_state_from_address(ray.get_runtime_context().gcs_address))
    return {'refs': len(_refs), 'objectStoreBytes': int(reply.store_stats.object_store_bytes_used)}


def shutdown():
    """Drops every reference and disconnects (a local cluster connect() started stops)."""
    _refs.clear()
    _remote.clear()
    ray = sys.modules.get('ray')
    if ray is not None and ray.is_initialized():
        ray.shutdown()
    return True


if __name__ == '__main__':
    try:
        worker.serve(connect, put, call, get, release, stats, shutdown)
    finally:
        shutdown()
