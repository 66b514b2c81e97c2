/* python.wasm's entry points: CPython 3.11 as a WASI reactor (no _start).
 *
 * A host instantiates the module, calls `_initialize` (wasi-libc's
 * constructors), then:
 *
 *   int ampoule_init(void)   starts the interpreter: everything that does not
 *                            depend on the program (configuration, the import
 *                            system, encodings, io, site). 0 = ok. A host may
 *                            snapshot the instance right after it returns.
 *   int ampoule_main(void)   runs the program named by WASI argv[1] exactly as
 *                            `python3.11 /program/prog.py ARG...` would, and
 *                            returns its exit status (0-255).
 *
 * Both phases see the same fixed environment (PYTHONHOME=/usr/local,
 * PYTHONHASHSEED=0, PYTHONDONTWRITEBYTECODE=1) and preopened directories
 * (/usr/local, /input, /program), so memory saved after ampoule_init is valid
 * for any program. ampoule_init therefore must not read the clock or
 * random_get for anything a program can observe, and must leave no file open.
 *
 * ampoule_main may run once per instance (the interpreter is not finalised).
 *
 * Exit statuses of ampoule_main, as native CPython's: 0; the SystemExit code
 * (sys.exit("text") prints text and gives 1); 1 after an uncaught exception
 * (traceback on stderr); 2 when the program file cannot be opened; 120 when
 * flushing the standard streams fails at the end. Statuses are reduced to
 * 0-255 as a POSIX exit status is, so sys.exit(256) gives 0 as it does
 * natively.
 *
 * Besides WASI, python.wasm imports the one capability a Volent tool has
 * (wit/volent-tool.wit): module "volent:tool/http@0.1.0", functions request
 * and answer, which the builtin module _volent_tool below wraps for
 * volent_tool.py. Every host must provide them; ours answers
 * {"error":"unavailable",...} outside a tool call. */
/* Python.h first: it sets the feature macros the C headers below rely on. */
#define PY_SSIZE_T_CLEAN
#include "Python.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wasi/api.h>

#include "internal/pycore_initconfig.h"  /* _PyWideStringList_Clear */
#include "internal/pycore_pathconfig.h"  /* _PyPathConfig_ComputeSysPath0 */
#include "internal/pycore_pylifecycle.h" /* _Py_HandleSystemExit */

#define EXPORT(name) __attribute__((export_name(name)))

enum { kExitOk = 0, kExitUncaught = 1, kExitUsage = 2, kExitFlushFailed = 120 };

/* Native CPython's default; the WASI build lowers it to 600 because of its
 * small stack. Our build gives the interpreter a stack large enough for 1000
 * levels of the deepest C recursion CPython guards (see docs/runtimes.md),
 * so programs see the same limit as under python3.11 on Linux. */
enum { kRecursionLimit = 1000 };

static int initialized = 0;

/* --- _volent_tool: the HTTP capability of a Volent tool ---------------------
 * request(text: str) -> str sends the request JSON text through the host and
 * returns its answer JSON text; volent_tool.py (in python311.zip) builds and
 * reads them. */
#define VOLENT_HTTP_IMPORT(name) __attribute__((import_module("volent:tool/http@0.1.0"), import_name(name)))
VOLENT_HTTP_IMPORT("request") int32_t volent_http_request(const char *ptr, int32_t len);
VOLENT_HTTP_IMPORT("answer") int32_t volent_http_answer(char *ptr, int32_t len);

static PyObject *volent_tool_request(PyObject *module, PyObject *arg) {
  (void)module;
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(PyExc_TypeError, "request: the request must be str (JSON text), not %.100s",
                 Py_TYPE(arg)->tp_name);
    return NULL;
  }
  Py_ssize_t len;
  const char *text = PyUnicode_AsUTF8AndSize(arg, &len); /* fails on lone surrogates */
  if (!text) return NULL;
  if (len > INT32_MAX) {
    PyErr_SetString(PyExc_ValueError, "request: the request text is too long");
    return NULL;
  }
  int32_t size = volent_http_request(text, (int32_t)len);
  if (size < 0) {
    PyErr_Format(PyExc_OSError, "request: the host returned an answer length of %d", (int)size);
    return NULL;
  }
  char *buf = PyMem_Malloc(size ? (size_t)size : 1);
  if (!buf) return PyErr_NoMemory();
  int32_t got = volent_http_answer(buf, size);
  PyObject *answer = NULL;
  if (got == size)
    answer = PyUnicode_DecodeUTF8(buf, size, "strict");
  else
    PyErr_Format(PyExc_OSError, "request: the host gave %d bytes of a %d-byte answer", (int)got, (int)size);
  PyMem_Free(buf);
  return answer;
}

static PyMethodDef volent_tool_methods[] = {
    {"request", volent_tool_request, METH_O,
     "request($module, text, /)\n--\n\nSends one HTTP request (JSON text) through the node's egress gate "
     "and returns the answer (JSON text). Tools call volent_tool.http_request instead."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef volent_tool_module = {
    PyModuleDef_HEAD_INIT, "_volent_tool",
    "The Volent tool capability imports (wit/volent-tool.wit); see volent_tool.", 0, volent_tool_methods,
};

static PyObject *PyInit__volent_tool(void) { return PyModuleDef_Init(&volent_tool_module); }

static int fail_status(const char *what, PyStatus status) {
  fprintf(stderr, "python: %s: %s%s%s\n", what, status.func ? status.func : "",
          status.func ? ": " : "", status.err_msg ? status.err_msg : "failed");
  return 1;
}

EXPORT("ampoule_init")
int ampoule_init(void) {
  if (initialized) return 0;
  PyStatus status;

  /* Before the interpreter starts, which freezes the table of builtins; the
   * module itself is created only when a program imports it. */
  static int inittab_added = 0;
  if (!inittab_added && PyImport_AppendInittab("_volent_tool", PyInit__volent_tool) < 0) {
    fprintf(stderr, "python: cannot register the _volent_tool module\n");
    return 1;
  }
  inittab_added = 1;

  /* UTF-8 mode, as native python3.11 picks under the C locale it gets from an
   * empty environment: files and stdio are UTF-8 whatever the locale. */
  PyPreConfig pre;
  PyPreConfig_InitPythonConfig(&pre);
  pre.utf8_mode = 1;
  status = Py_PreInitialize(&pre);
  if (PyStatus_Exception(status)) return fail_status("pre-initialisation", status);

  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  /* argv is the program's business (ampoule_main). The fixed facts of the
   * guest are set here explicitly rather than left to the environment
   * variables that say the same (PYTHONHOME, PYTHONHASHSEED, ...). */
  config.parse_argv = 0;
  config.use_hash_seed = 1;
  config.hash_seed = 0;
  config.write_bytecode = 0;
  config.buffered_stdio = 1; /* as native python with stdout piped to a file */
  config.site_import = 1;
  status = PyConfig_SetString(&config, &config.home, L"/usr/local");
  if (!PyStatus_Exception(status))
    status = PyConfig_SetString(&config, &config.program_name, L"python3.11");
  if (!PyStatus_Exception(status))
    status = PyConfig_SetString(&config, &config.executable, L"/usr/local/bin/python3.11");
  if (!PyStatus_Exception(status)) {
    wchar_t *argv0[] = {L""};
    status = PyConfig_SetArgv(&config, 1, argv0);
  }
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) return fail_status("initialisation", status);

  Py_SetRecursionLimit(kRecursionLimit);
  initialized = 1;
  return 0;
}

/* WASI argv as a Python list of str (decoded as the filesystem encoding, like
 * CPython decodes its own argv); NULL with a Python exception on failure. */
static PyObject *wasi_argv(void) {
  __wasi_size_t argc = 0, buf_size = 0;
  if (__wasi_args_sizes_get(&argc, &buf_size) != 0) {
    PyErr_SetString(PyExc_OSError, "cannot read the WASI arguments");
    return NULL;
  }
  uint8_t **argv = calloc(argc + 1, sizeof *argv);
  uint8_t *buf = malloc(buf_size + 1);
  PyObject *list = NULL;
  if (!argv || !buf) {
    PyErr_NoMemory();
  } else if (__wasi_args_get(argv, buf) != 0) {
    PyErr_SetString(PyExc_OSError, "cannot read the WASI arguments");
  } else if ((list = PyList_New(argc)) != NULL) {
    for (__wasi_size_t i = 0; i < argc; i++) {
      PyObject *arg = PyUnicode_DecodeFSDefault((const char *)argv[i]);
      if (!arg) {
        Py_CLEAR(list);
        break;
      }
      PyList_SET_ITEM(list, i, arg);
    }
  }
  free(argv);
  free(buf);
  return list;
}

/* sys.argv = argv[1:], sys.orig_argv = argv, and sys.path[0] = the
 * program's directory, computed by CPython's own rule (symlinks resolved). */
static int set_sys_argv_and_path0(PyObject *argv) {
  PyObject *args = PyList_GetSlice(argv, 1, PyList_GET_SIZE(argv));
  if (!args) return -1;
  int rc = PySys_SetObject("argv", args);
  if (rc == 0) rc = PySys_SetObject("orig_argv", argv);
  if (rc < 0) {
    Py_DECREF(args);
    return -1;
  }

  PyWideStringList wide = _PyWideStringList_INIT;
  PyObject *path0 = NULL;
  rc = 0;
  for (Py_ssize_t i = 0; rc == 0 && i < PyList_GET_SIZE(args); i++) {
    wchar_t *w = PyUnicode_AsWideCharString(PyList_GET_ITEM(args, i), NULL);
    if (!w) {
      rc = -1;
      break;
    }
    PyStatus status = PyWideStringList_Append(&wide, w);
    PyMem_Free(w);
    if (PyStatus_Exception(status)) {
      PyErr_NoMemory();
      rc = -1;
    }
  }
  if (rc == 0 && _PyPathConfig_ComputeSysPath0(&wide, &path0) < 0) rc = -1;
  _PyWideStringList_Clear(&wide);
  Py_DECREF(args);
  if (rc < 0) return -1;
  if (path0) {
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    rc = sys_path && PyList_Check(sys_path) ? PyList_Insert(sys_path, 0, path0) : 0;
    Py_DECREF(path0);
  }
  return rc;
}

/* __main__.__loader__ = SourceFileLoader("__main__", filename), as
 * CPython's runner sets it for a script given by path. */
static int set_main_loader(PyObject *globals, PyObject *filename) {
  PyObject *bootstrap = PyImport_ImportModule("_frozen_importlib_external");
  if (!bootstrap) return -1;
  PyObject *loader_type = PyObject_GetAttrString(bootstrap, "SourceFileLoader");
  Py_DECREF(bootstrap);
  if (!loader_type) return -1;
  PyObject *loader = PyObject_CallFunction(loader_type, "sO", "__main__", filename);
  Py_DECREF(loader_type);
  if (!loader) return -1;
  int rc = PyDict_SetItemString(globals, "__loader__", loader);
  Py_DECREF(loader);
  return rc;
}

/* Flushes sys.stderr and sys.stdout at the Python level, keeping any pending
 * exception, as CPython does right after a script ends. */
static void flush_io(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  const char *names[] = {"stderr", "stdout"};
  for (int i = 0; i < 2; i++) {
    PyObject *f = PySys_GetObject(names[i]); /* borrowed */
    if (f && f != Py_None) {
      PyObject *r = PyObject_CallMethod(f, "flush", NULL);
      if (r)
        Py_DECREF(r);
      else
        PyErr_Clear();
    }
  }
  PyErr_Restore(type, value, tb);
}

/* Runs FILENAME as __main__ and stores its exit status in *STATUS; returns
 * -1 with a Python exception when the runner itself fails before the program
 * runs. Mirrors CPython's pymain_run_file_obj and _PyRun_SimpleFileObject,
 * except that SystemExit gives a status instead of exiting from inside the
 * runner. */
static int run_file(PyObject *filename, int *status) {
  if (PySys_Audit("cpython.run_file", "O", filename) < 0) return -1;
  FILE *fp = _Py_fopen_obj(filename, "rb");
  if (!fp) {
    int err = errno;
    PyErr_Clear();
    PySys_FormatStderr("python3.11: can't open file %R: [Errno %d] %s\n", filename, err,
                       strerror(err));
    *status = kExitUsage;
    return 0;
  }
  struct stat st;
  if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
    PySys_FormatStderr("python3.11: %R is a directory, cannot continue\n", filename);
    fclose(fp);
    *status = kExitUncaught;
    return 0;
  }

  PyObject *main_module = PyImport_AddModule("__main__"); /* borrowed */
  if (!main_module) {
    fclose(fp);
    return -1;
  }
  PyObject *globals = PyModule_GetDict(main_module);
  int set_file_name = 0;
  if (!PyDict_GetItemString(globals, "__file__")) {
    if (PyDict_SetItemString(globals, "__file__", filename) < 0 ||
        PyDict_SetItemString(globals, "__cached__", Py_None) < 0) {
      fclose(fp);
      return -1;
    }
    set_file_name = 1;
  }
  if (set_main_loader(globals, filename) < 0) {
    fclose(fp);
    return -1;
  }

  const char *name = PyUnicode_AsUTF8(filename);
  PyCompilerFlags flags = _PyCompilerFlags_INIT;
  /* closeit=1: the file is closed once parsed, before the program runs. */
  PyObject *result = name ? PyRun_FileExFlags(fp, name, Py_file_input, globals, globals, 1, &flags)
                          : (fclose(fp), NULL);
  flush_io();

  *status = kExitOk;
  if (result) {
    Py_DECREF(result);
  } else if (!_Py_HandleSystemExit(status)) {
    PyErr_Print();
    *status = kExitUncaught;
  }
  if (set_file_name) {
    if (PyDict_DelItemString(globals, "__file__") < 0) PyErr_Clear();
    if (PyDict_DelItemString(globals, "__cached__") < 0) PyErr_Clear();
  }
  return 0;
}

static int file_is_closed(PyObject *f) {
  PyObject *closed = PyObject_GetAttrString(f, "closed");
  int r = closed ? PyObject_IsTrue(closed) : 0;
  Py_XDECREF(closed);
  if (r < 0 || !closed) PyErr_Clear();
  return r > 0;
}

/* Flushes sys.stdout then sys.stderr as Py_FinalizeEx does; -1 when either
 * fails (a failure of stdout is reported as an ignored exception). */
static int flush_std_files(void) {
  int rc = 0;
  PyObject *out = PySys_GetObject("stdout"), *err = PySys_GetObject("stderr"); /* borrowed */
  if (out && out != Py_None && !file_is_closed(out)) {
    PyObject *r = PyObject_CallMethod(out, "flush", NULL);
    if (!r) {
      PyErr_WriteUnraisable(out);
      rc = -1;
    }
    Py_XDECREF(r);
  }
  if (err && err != Py_None && !file_is_closed(err)) {
    PyObject *r = PyObject_CallMethod(err, "flush", NULL);
    if (!r) {
      PyErr_Clear();
      rc = -1;
    }
    Py_XDECREF(r);
  }
  return rc;
}

/* What the end of native python does that a program can observe: atexit
 * callbacks, flushing the standard streams, and the finalisers of the
 * program's globals (run when the __main__ namespace is cleared). The rest of
 * Py_FinalizeEx (tearing down every module, full collections) is skipped: the
 * instance is used once, and it would cost about 25 times what running
 * print(1) costs. Returns -1 when flushing failed (status 120, as natively). */
static int finish(void) {
  _PyAtExit_Call(PyInterpreterState_Get());
  int rc = flush_std_files();
  PyObject *main_module = PyImport_AddModule("__main__"); /* borrowed */
  if (main_module) {
    _PyModule_ClearDict(PyModule_GetDict(main_module));
  } else {
    PyErr_Clear();
  }
  if (flush_std_files() < 0) rc = -1;
  fflush(NULL); /* C-level writes (fatal messages) */
  return rc;
}

EXPORT("ampoule_main")
int ampoule_main(void) {
  if (!initialized && ampoule_init() != 0) return kExitUncaught;

  int status = kExitUsage;
  PyObject *argv = wasi_argv();
  if (!argv) {
    PyErr_Print();
  } else if (PyList_GET_SIZE(argv) < 2) {
    fprintf(stderr, "python3.11: no program file given (usage: python PROGRAM.py [ARG...])\n");
  } else {
    PyObject *filename = PyList_GET_ITEM(argv, 1);
    if (set_sys_argv_and_path0(argv) < 0) {
      PyErr_Print();
      status = kExitUncaught;
    } else {
      if (run_file(filename, &status) < 0) { /* failed before the program ran */
        PyErr_Print();
        status = kExitUncaught;
      }
    }
  }
  Py_XDECREF(argv);
  if (finish() < 0) status = kExitFlushFailed;
  return status & 0xff;
}
