'use strict';
// The Python half installs (docs/python.md "Install"): `pip install --no-build-isolation`
// of python/ (as shipped: a copy, so that the build leaves nothing in the
// repository) into a venv made from the system Python, offline (--no-index),
// and the sys.path route through require('dlpack').pythonPath. Each route
// opens a tensor Node shares, and Node sees what Python writes.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const dl = require('../lib');
const { PYTHON } = require('./helpers');

const root = path.join(__dirname, '..');
const run = (cmd, args, options = {}) =>
  spawnSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...options });

// venv and pip with NumPy visible through --system-site-packages, or why not.
function pythonReason() {
  const probe = run(PYTHON, ['-c', 'import ensurepip, venv, setuptools, numpy']);
  if (probe.error) return `${PYTHON} cannot run (${probe.error.message})`;
  if (probe.status !== 0) {
    return `${PYTHON} lacks venv (ensurepip), setuptools or numpy: ${probe.stderr.trim().split('\n').pop()}`;
  }
  return null;
}
const reason = pythonReason();
if (reason !== null) console.log(`Python install tests skipped: ${reason}`);
const withPython = reason === null ? test : test.skip;

// Python opens the descriptor, adds 1 in place, and prints where dlpack_node came from.
const OPEN_AND_ADD = `import json, sys, dlpack_node
a = dlpack_node.open(json.loads(sys.argv[1]))
a += 1
print(dlpack_node.__file__)`;

function roundTrip(python, env = {}) {
  const t = dl.empty([4], { dtype: 'float32', shared: true });
  t.data.set([1, 2, 3, 4]);
  const r = run(python, ['-c', OPEN_AND_ADD, JSON.stringify(t.share())],
    { cwd: os.tmpdir(), env: { ...process.env, PYTHONPATH: '', ...env } });
  const values = [...t.data];
  t.dispose();
  if (r.status !== 0) throw new Error(`${python} failed: ${r.stderr}`);
  return { from: r.stdout.trim(), values };
}

describe('the Python half', () => {
  let tmp;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dlpack-pyinstall-'));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  withPython('pip installs python/ offline into a venv, without build isolation', () => {
    const shipped = path.join(tmp, 'python');
    fs.cpSync(path.join(root, 'python'), shipped, {
      recursive: true, filter: (src) => !/(__pycache__|\/tests|\/build|\.egg-info)$/.test(src),
    });
    const venv = path.join(tmp, 'venv');
    let r = run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const python = path.join(venv, 'bin', 'python');
    // --system-site-packages shows the base interpreter's packages; when
    // PYTHON is itself a venv (the GPU machine's), NumPy and setuptools are in
    // its own site-packages instead: a .pth file adds those too.
    r = run(PYTHON, ['-c', 'import site; print("\\n".join(site.getsitepackages()))']);
    const purelib = run(python, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])']).stdout.trim();
    fs.writeFileSync(path.join(purelib, 'dlpack-test-parent.pth'), r.stdout);
    const listing = () => fs.readdirSync(shipped, { recursive: true }).filter((f) => !/__pycache__/.test(f)).sort();
    const before = listing();
    r = run(python, ['-m', 'pip', 'install', '--no-build-isolation', '--no-index', '--disable-pip-version-check',
      shipped]);
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/Successfully installed dlpack-node-/);
    // Built out of tree: before, build/ and dlpack_node.egg-info/ appeared here (in node_modules).
    expect(listing()).toEqual(before);
    const { from, values } = roundTrip(python);
    expect(from.startsWith(path.join(venv, 'lib'))).toBe(true);
    expect(values).toEqual([2, 3, 4, 5]);
    // `python -m dlpack_node` reports the installed copy (docs/python.md "Check an install").
    r = run(python, ['-m', 'dlpack_node'], { cwd: os.tmpdir(), env: { ...process.env, PYTHONPATH: '' } });
    expect({ status: r.status, stderr: r.status === 0 ? '' : r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout.split('\n')[0]).toBe(`dlpack_node from ${path.dirname(from)}`);
  });

  withPython('require(\'dlpack\').pythonPath on PYTHONPATH gives the same module', () => {
    expect(dl.pythonPath).toBe(path.join(root, 'python'));
    expect(fs.existsSync(path.join(dl.pythonPath, 'dlpack_node', '__init__.py'))).toBe(true);
    const { from, values } = roundTrip(PYTHON, { PYTHONPATH: dl.pythonPath });
    expect(from).toBe(path.join(dl.pythonPath, 'dlpack_node', '__init__.py'));
    expect(values).toEqual([2, 3, 4, 5]);
  });

  test('pyproject.toml has the version of package.json', () => {
    const pyproject = fs.readFileSync(path.join(root, 'python', 'pyproject.toml'), 'utf8');
    expect(/^version = "([^"]+)"$/m.exec(pyproject)?.[1]).toBe(require('../package.json').version);
  });
});
