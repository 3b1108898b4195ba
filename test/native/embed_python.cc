// Test-only: CPython embedded in a Node process (never shipped, never built
// by npm install). test/peers/embed.js compiles it with the interpreter's own
// embedding flags (what `python3-config --embed` prints) into build/peers/, and
// test/peers/child.js loads it to hand this library's DLPack structs to the
// peers' own DLPack code in process, and theirs to us.
//
// What it adds to Python is the module `_node`:
//   capsule(pointer, versioned, counted=True)
//                                a PyCapsule named "dltensor_versioned" or
//                                "dltensor" over a DLManagedTensor(Versioned)*,
//                                whose destructor calls the deleter while the
//                                name is unchanged (the DLPack Python
//                                specification: a consumer renames it "used_*")
//   take(capsule)                the other way: checks the name, renames the
//                                capsule "used_*" (the consumer owns the struct
//                                now) and returns (pointer, versioned)
//   calls(pointer)               how often the deleter of a struct that went
//                                through take() or a counted capsule() has been
//                                called: both put a counting deleter in the
//                                struct that passes the first call on to the
//                                real one and only counts any later call (a
//                                second call is seen, never a use after free).
//                                A struct that comes back to this library
//                                unconsumed must not be counted: that is a
//                                changed struct, which it refuses.
//   call(name, *args)            calls the JavaScript function registered as
//                                `name` (only while JavaScript is running Python)
// and to JavaScript: init(), exec(source), eval(expression), expose(name, fn).
//
// Python is one per process, so its state here is process-wide; every entry
// takes the GIL (released between calls, so that Python's own threads and
// deleters called from Node's finalizers can take it).
#define PY_SSIZE_T_CLEAN
#include <Python.h>  // first, as the C API documentation asks
#include <dlfcn.h>
#include <napi.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "../../src/core/dlpack_abi.h"

namespace {

constexpr const char* kVersioned = "dltensor_versioned";
constexpr const char* kLegacy = "dltensor";
constexpr const char* kUsedVersioned = "used_dltensor_versioned";
constexpr const char* kUsedLegacy = "used_dltensor";
constexpr double kMaxSafe = 9007199254740991.0;  // 2^53 - 1

// expose(name, fn); emptied when the environment ends (a cleanup hook), and
// never destroyed itself, since static destructors run after that.
auto* exposed = new std::map<std::string, Napi::FunctionReference>();
Napi::Env* running = nullptr;  // set while JavaScript runs Python on its thread

// The GIL for one call from JavaScript; the env is reachable from `_node.call`.
class Entered {
 public:
  explicit Entered(Napi::Env* env) : state_(PyGILState_Ensure()), previous_(running) {
    running = env;
  }
  ~Entered() {
    running = previous_;
    PyGILState_Release(state_);
  }
  Entered(const Entered&) = delete;
  Entered& operator=(const Entered&) = delete;

 private:
  PyGILState_STATE state_;
  Napi::Env* previous_;
};

// A new reference, released at scope end.
class Ref {
 public:
  explicit Ref(PyObject* o = nullptr) : o_(o) {}
  ~Ref() { Py_XDECREF(o_); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  PyObject* get() const { return o_; }
  PyObject* release() {
    PyObject* o = o_;
    o_ = nullptr;
    return o;
  }
  explicit operator bool() const { return o_ != nullptr; }

 private:
  PyObject* o_;
};

std::string Utf8(PyObject* o) {
  Ref text(PyObject_Str(o));
  const char* s = text ? PyUnicode_AsUTF8(text.get()) : nullptr;
  if (s == nullptr) {
    PyErr_Clear();
    return "<unprintable>";
  }
  return s;
}

// The pending Python exception as a JavaScript Error with pythonType and
// pythonTraceback (traceback.format_exception's text).
Napi::Error PythonError(Napi::Env env) {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  Ref t(type), v(value), b(tb);
  std::string name = type != nullptr ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "?";
  std::string message = value != nullptr ? Utf8(value) : "";
  std::string trace;
  Ref module(PyImport_ImportModule("traceback"));
  Ref lines(module ? PyObject_CallMethod(module.get(), "format_exception", "OOO",
                                         type ? type : Py_None, value ? value : Py_None,
                                         tb ? tb : Py_None)
                   : nullptr);
  Ref empty(PyUnicode_FromString(""));
  Ref joined(lines && empty ? PyUnicode_Join(empty.get(), lines.get()) : nullptr);
  if (joined) trace = Utf8(joined.get());
  PyErr_Clear();
  Napi::Error error = Napi::Error::New(env, "Python raised " + name + ": " + message);
  error.Set("pythonType", Napi::String::New(env, name));
  error.Set("pythonTraceback", Napi::String::New(env, trace));
  return error;
}

// --- values across the border -------------------------------------------------

// Python -> JavaScript: None, bool, int (a number while exact, else a BigInt),
// float, complex ([re, im]), str, bytes, list/tuple and dict with str keys;
// anything else is a TypeError.
Napi::Value ToJs(Napi::Env env, PyObject* o) {
  if (o == Py_None) return env.Null();
  if (PyBool_Check(o)) return Napi::Boolean::New(env, o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (std::fabs(static_cast<double>(v)) <= kMaxSafe) return Napi::Number::New(env, v);
      return Napi::BigInt::New(env, static_cast<int64_t>(v));
    }
    const unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) throw PythonError(env);
    return Napi::BigInt::New(env, static_cast<uint64_t>(u));
  }
  if (PyFloat_Check(o)) return Napi::Number::New(env, PyFloat_AsDouble(o));
  if (PyComplex_Check(o)) {  // [re, im], as tensor.toArray() gives a complex element
    Napi::Array pair = Napi::Array::New(env, 2);
    pair.Set(0u, Napi::Number::New(env, PyComplex_RealAsDouble(o)));
    pair.Set(1u, Napi::Number::New(env, PyComplex_ImagAsDouble(o)));
    return pair;
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &size);
    if (s == nullptr) throw PythonError(env);
    return Napi::String::New(env, s, static_cast<size_t>(size));
  }
  if (PyBytes_Check(o)) {
    return Napi::Buffer<char>::Copy(env, PyBytes_AsString(o), static_cast<size_t>(PyBytes_Size(o)));
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    Ref items(PySequence_Fast(o, "a sequence"));
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.get());
    Napi::Array array = Napi::Array::New(env, static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      array.Set(static_cast<uint32_t>(i), ToJs(env, PySequence_Fast_GET_ITEM(items.get(), i)));
    }
    return array;
  }
  if (PyDict_Check(o)) {
    Napi::Object object = Napi::Object::New(env);
    PyObject* key = nullptr;
    PyObject* value = nullptr;
    Py_ssize_t at = 0;
    while (PyDict_Next(o, &at, &key, &value)) {
      if (!PyUnicode_Check(key)) throw Napi::TypeError::New(env, "a dict key that is not a str");
      object.Set(Utf8(key), ToJs(env, value));
    }
    return object;
  }
  throw Napi::TypeError::New(env, std::string("cannot hand a Python ") + Py_TYPE(o)->tp_name +
                                      " to JavaScript: " + Utf8(o));
}

// JavaScript -> Python (a new reference): undefined/null, boolean, number (an
// int when integral and exact), BigInt, string, Buffer, Array, plain object.
PyObject* ToPython(Napi::Env env, Napi::Value v) {
  if (v.IsUndefined() || v.IsNull()) Py_RETURN_NONE;
  if (v.IsBoolean()) return PyBool_FromLong(v.As<Napi::Boolean>().Value() ? 1 : 0);
  if (v.IsNumber()) {
    const double d = v.As<Napi::Number>().DoubleValue();
    if (std::trunc(d) == d && std::fabs(d) <= kMaxSafe) {
      return PyLong_FromLongLong(static_cast<long long>(d));
    }
    return PyFloat_FromDouble(d);
  }
  if (v.IsBigInt()) {
    bool lossless = false;
    const int64_t s = v.As<Napi::BigInt>().Int64Value(&lossless);
    if (lossless) return PyLong_FromLongLong(s);
    const uint64_t u = v.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) throw Napi::RangeError::New(env, "a BigInt beyond 64 bits");
    return PyLong_FromUnsignedLongLong(u);
  }
  if (v.IsString()) {
    const std::string s = v.As<Napi::String>().Utf8Value();
    return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  }
  if (v.IsBuffer()) {
    auto b = v.As<Napi::Buffer<char>>();
    return PyBytes_FromStringAndSize(b.Data(), static_cast<Py_ssize_t>(b.Length()));
  }
  if (v.IsArray()) {
    auto a = v.As<Napi::Array>();
    Ref list(PyList_New(a.Length()));
    for (uint32_t i = 0; i < a.Length(); ++i) {
      PyList_SET_ITEM(list.get(), i, ToPython(env, a.Get(i)));  // steals
    }
    return list.release();
  }
  if (v.IsObject() && !v.IsFunction()) {
    auto o = v.As<Napi::Object>();
    Napi::Array keys = o.GetPropertyNames();
    Ref dict(PyDict_New());
    for (uint32_t i = 0; i < keys.Length(); ++i) {
      const std::string key = keys.Get(i).ToString().Utf8Value();
      Ref value(ToPython(env, o.Get(key)));
      PyDict_SetItemString(dict.get(), key.c_str(), value.get());
    }
    return dict.release();
  }
  throw Napi::TypeError::New(env, "cannot hand this JavaScript value to Python");
}

// --- counted deleters --------------------------------------------------------

// Every struct that crossed here, by address: its real deleter and the calls
// of its counting one. An address is reused only after its deleter ran, and
// then starts again at 0. Deleters run on any thread, and after Node's
// environment is gone: never destroyed.
struct Counted {
  void* original = nullptr;
  int64_t calls = 0;
};
auto* counted_mutex = new std::mutex();
auto* counted = new std::unordered_map<void*, Counted>();

// The real deleter for the first call of self's counting one; nullptr after.
void* CountCall(void* self) {
  std::lock_guard<std::mutex> lock(*counted_mutex);
  Counted& c = (*counted)[self];
  return ++c.calls == 1 ? c.original : nullptr;
}

void CountedVersioned(DLManagedTensorVersioned* self) {
  if (auto* real = reinterpret_cast<void (*)(DLManagedTensorVersioned*)>(CountCall(self))) {
    real(self);
  }
}

void CountedLegacy(DLManagedTensor* self) {
  if (auto* real = reinterpret_cast<void (*)(DLManagedTensor*)>(CountCall(self))) real(self);
}

// Puts the counting deleter in the struct at `pointer` (a NULL deleter stays NULL).
void Count(void* pointer, bool versioned) {
  std::lock_guard<std::mutex> lock(*counted_mutex);
  Counted& c = (*counted)[pointer];
  c.calls = 0;
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(pointer);
    c.original = reinterpret_cast<void*>(m->deleter);
    if (m->deleter != nullptr) m->deleter = CountedVersioned;
  } else {
    auto* m = static_cast<DLManagedTensor*>(pointer);
    c.original = reinterpret_cast<void*>(m->deleter);
    if (m->deleter != nullptr) m->deleter = CountedLegacy;
  }
}

PyObject* Calls(PyObject*, PyObject* arg) {
  const unsigned long long pointer = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return nullptr;
  std::lock_guard<std::mutex> lock(*counted_mutex);
  auto it = counted->find(reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)));
  if (it == counted->end()) {
    PyErr_SetString(PyExc_KeyError, "calls(): this struct never went through capsule() or take()");
    return nullptr;
  }
  return PyLong_FromLongLong(it->second.calls);
}

// --- the _node module ---------------------------------------------------------

// A capsule's destructor: the struct was never consumed (its name is still
// "dltensor[_versioned]"), so its deleter runs here, once. The DLPack Python
// specification asks for exactly this; an exception already set is kept.
void DestroyCapsule(PyObject* capsule) {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  if (PyCapsule_IsValid(capsule, kVersioned)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersioned));
    if (m->deleter != nullptr) m->deleter(m);
  } else if (PyCapsule_IsValid(capsule, kLegacy)) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacy));
    if (m->deleter != nullptr) m->deleter(m);
  }
  PyErr_Restore(type, value, tb);
}

PyObject* MakeCapsule(PyObject*, PyObject* args) {
  unsigned long long pointer = 0;
  int versioned = 0;
  int count = 1;
  if (!PyArg_ParseTuple(args, "Kp|p", &pointer, &versioned, &count)) return nullptr;
  if (pointer == 0) {
    PyErr_SetString(PyExc_ValueError, "capsule(): a NULL pointer");
    return nullptr;
  }
  if (count != 0) Count(reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)), versioned != 0);
  return PyCapsule_New(reinterpret_cast<void*>(static_cast<uintptr_t>(pointer)),
                       versioned ? kVersioned : kLegacy, DestroyCapsule);
}

PyObject* TakeCapsule(PyObject*, PyObject* capsule) {
  const bool versioned = PyCapsule_IsValid(capsule, kVersioned) != 0;
  if (!versioned && PyCapsule_IsValid(capsule, kLegacy) == 0) {
    PyErr_Format(PyExc_ValueError, "take(): expected an unconsumed DLPack capsule, got %R",
                 capsule);
    return nullptr;
  }
  void* pointer = PyCapsule_GetPointer(capsule, versioned ? kVersioned : kLegacy);
  // Renamed before the pointer leaves: the producer's destructor now leaves
  // the struct to us (its deleter is ours to call).
  if (PyCapsule_SetName(capsule, versioned ? kUsedVersioned : kUsedLegacy) != 0) return nullptr;
  Count(pointer, versioned);
  return Py_BuildValue("(KO)",
                       static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer)),
                       versioned ? Py_True : Py_False);
}

PyObject* CallJs(PyObject*, PyObject* args) {
  if (running == nullptr) {
    PyErr_SetString(PyExc_RuntimeError,
                    "_node.call() outside a call from JavaScript (another thread, or later)");
    return nullptr;
  }
  const Py_ssize_t n = PyTuple_Size(args);
  if (n < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(args, 0))) {
    PyErr_SetString(PyExc_TypeError, "_node.call(name, *args): name must be a str");
    return nullptr;
  }
  Napi::Env env = *running;
  const std::string name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, 0));
  auto it = exposed->find(name);
  if (it == exposed->end()) {
    PyErr_Format(PyExc_KeyError, "no JavaScript function exposed as %s", name.c_str());
    return nullptr;
  }
  try {
    Napi::HandleScope scope(env);  // one Python call's handles, not the whole exec()'s
    std::vector<napi_value> values;
    for (Py_ssize_t i = 1; i < n; ++i) values.push_back(ToJs(env, PyTuple_GET_ITEM(args, i)));
    return ToPython(env, it->second.Call(values));
  } catch (const Napi::Error& e) {
    // The JavaScript error's code and message, as a Python exception.
    Napi::Value code = e.Value().Get("code");
    std::string text = code.IsString() ? code.As<Napi::String>().Utf8Value() + ": " : "";
    text += e.Message();
    PyErr_SetString(PyExc_RuntimeError, text.c_str());
    return nullptr;
  }
}

PyMethodDef methods[] = {
    {"capsule", MakeCapsule, METH_VARARGS,
     "capsule(pointer, versioned, counted=True): a DLPack PyCapsule"},
    {"take", TakeCapsule, METH_O, "take(capsule): (pointer, versioned), the capsule marked used"},
    {"calls", Calls, METH_O, "calls(pointer): the deleter calls of a struct seen here"},
    {"call", CallJs, METH_VARARGS, "call(name, *args): the JavaScript function exposed as name"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_node", nullptr, -1, methods};

PyObject* InitModule() { return PyModule_Create(&module_def); }

// --- JavaScript's side --------------------------------------------------------

PyObject* main_globals = nullptr;  // __main__'s dict, where exec and eval run

// init(executable, libpython): the interpreter of `executable` (a venv's
// bin/python is taken as that venv: pyvenv.cfg), its libpython made global
// first, since extension modules resolve the C API from the global scope
// (manylinux wheels do not link libpython). Python installs no signal
// handlers: Node keeps its own. Returns sys.version.
Napi::Value Init(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string executable = info[0].As<Napi::String>().Utf8Value();
  const std::string libpython = info[1].As<Napi::String>().Utf8Value();
  if (!Py_IsInitialized()) {
    if (dlopen(libpython.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) == nullptr) {
      const char* why = dlerror();
      throw Napi::Error::New(
          env, "cannot make " + libpython + " global: " + (why != nullptr ? why : "not loaded"));
    }
    if (PyImport_AppendInittab("_node", InitModule) != 0) {
      throw Napi::Error::New(env, "PyImport_AppendInittab failed");
    }
    PyConfig config;
    PyConfig_InitIsolatedConfig(&config);  // no PYTHON* variables, no user site
    config.install_signal_handlers = 0;
    PyStatus status = PyConfig_SetBytesString(&config, &config.executable, executable.c_str());
    if (!PyStatus_Exception(status)) {
      status = PyConfig_SetBytesString(&config, &config.program_name, executable.c_str());
    }
    if (!PyStatus_Exception(status)) {
      // absl (jax) and paddle read sys.argv[0].
      char* argv[] = {const_cast<char*>(executable.c_str())};
      status = PyConfig_SetBytesArgv(&config, 1, argv);
    }
    if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
      throw Napi::Error::New(env, std::string("Python did not start: ") +
                                      (status.err_msg != nullptr ? status.err_msg : "?"));
    }
    main_globals = PyModule_GetDict(PyImport_AddModule("__main__"));  // borrowed, lives on
    PyEval_SaveThread();  // the GIL is taken per call from here on
  }
  Entered entered(&env);
  PyObject* version = PySys_GetObject("version");  // borrowed
  return Napi::String::New(env, version != nullptr ? Utf8(version) : "?");
}

Napi::Value Run(const Napi::CallbackInfo& info, int mode) {
  Napi::Env env = info.Env();
  if (main_globals == nullptr) throw Napi::Error::New(env, "init() first");
  const std::string source = info[0].As<Napi::String>().Utf8Value();
  Entered entered(&env);
  Ref result(PyRun_String(source.c_str(), mode, main_globals, main_globals));
  if (!result) throw PythonError(env);
  if (mode == Py_file_input) return env.Undefined();
  try {
    return ToJs(env, result.get());
  } catch (const Napi::Error&) {
    if (PyErr_Occurred()) PyErr_Clear();
    throw;
  }
}

// exec(source): statements, in __main__.
Napi::Value Exec(const Napi::CallbackInfo& info) { return Run(info, Py_file_input); }

// eval(expression): its value, converted as ToJs() says.
Napi::Value Eval(const Napi::CallbackInfo& info) { return Run(info, Py_eval_input); }

// expose(name, fn): Python's _node.call(name, ...) calls fn.
Napi::Value Expose(const Napi::CallbackInfo& info) {
  (*exposed)[info[0].As<Napi::String>().Utf8Value()] =
      Napi::Persistent(info[1].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Object Setup(Napi::Env env, Napi::Object exports) {
  env.AddCleanupHook([] { exposed->clear(); });
  exports.Set("init", Napi::Function::New(env, Init));
  exports.Set("exec", Napi::Function::New(env, Exec));
  exports.Set("eval", Napi::Function::New(env, Eval));
  exports.Set("expose", Napi::Function::New(env, Expose));
  return exports;
}

}  // namespace

NODE_API_MODULE(embed_python, Setup)
