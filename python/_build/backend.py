"""setuptools' build backend, run on a copy of this folder (pyproject.toml's backend-path).

setuptools writes build/ and dlpack_node.egg-info/ next to pyproject.toml, so
`pip install ./node_modules/dlpack/python` wrote into node_modules, and failed
where that tree is read-only. Each hook here copies the sources into a
temporary folder and runs setuptools' hook there; only pip's own output
folders (absolute paths) receive files.
"""
import contextlib
import os
import shutil
import tempfile

from setuptools import build_meta

_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP = shutil.ignore_patterns('build', '*.egg-info', '__pycache__', 'tests', '_build')


@contextlib.contextmanager
def _out_of_tree():
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory(prefix='dlpack-node-build-') as tmp:
        copy = os.path.join(tmp, 'python')
        shutil.copytree(_SOURCE, copy, ignore=_SKIP)
        os.chdir(copy)
        try:
            yield
        finally:
            os.chdir(cwd)


def _wrap(name):
    hook = getattr(build_meta, name)

    def run(directory, *args, **kwargs):
        directory = os.path.abspath(directory)  # pip's folder, named relative to the real tree
        with _out_of_tree():
            return hook(directory, *args, **kwargs)

    run.__name__ = name
    return run


def get_requires_for_build_wheel(config_settings=None):
    with _out_of_tree():
        return build_meta.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    with _out_of_tree():
        return build_meta.get_requires_for_build_sdist(config_settings)


prepare_metadata_for_build_wheel = _wrap('prepare_metadata_for_build_wheel')
build_wheel = _wrap('build_wheel')
build_sdist = _wrap('build_sdist')
