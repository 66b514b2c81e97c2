/* js.wasm's entry points: QuickJS as a WASI reactor (no _start).
 *
 * A host instantiates the module, calls `_initialize` (wasi-libc's
 * constructors), then:
 *
 *   int ampoule_init(void)   creates the runtime and the context with our
 *                            globals (print, console.log, performance.now) and
 *                            the "std" and "os" modules. 0 = ok. A host may
 *                            snapshot the instance right after it returns.
 *   int ampoule_main(void)   runs the program named by WASI argv[1] ("-" or
 *                            no argv[1]: read from stdin) and returns its exit
 *                            status.
 *
 * The program is an ES module when its name ends in ".mjs" or its text looks
 * like one (import/export statements), a classic script otherwise. Besides the
 * language it sees print(), console.log(), scriptArgs (argv[1] and the
 * arguments after it) and the "std" and "os" modules (quickjs-libc), whose
 * system calls go through WASI and so only reach what the host grants.
 *
 * Nothing program-specific happens in ampoule_init, and nothing there may be
 * observable by a program as coming from the snapshot: QuickJS seeds
 * Math.random from the clock when the context is created, so ampoule_main
 * reseeds it from WASI random_get (the run's seed, under our host).
 *
 * Exit status: 0 when the program and every job it queued (promises, timers)
 * finished; 1 when an exception was not caught or a promise rejection was
 * never handled, with each error and its stack trace written to stderr once
 * (an uncaught exception ends the program, as in Node: rejections still
 * pending then are not reported);
 * 2 when the program could not be read; std.exit(N) exits with N (through
 * proc_exit). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasi/api.h>

#include "quickjs-libc.h"
#include "quickjs.h"

#define EXPORT(name) __attribute__((export_name(name)))

enum { kExitOk = 0, kExitUncaught = 1, kExitUsage = 2 };

/* How much of the WebAssembly stack (js.wasm is linked with 2 MiB, placed
 * first in memory) QuickJS may use before it throws its catchable
 * "RangeError: Maximum call stack size exceeded" (runtimes/quickjs/patches). Some recursions (JSON.parse, the parser,
 * regular expressions) use very little of this stack per level but several
 * WebAssembly frames, so the limit is also what keeps them under the host's
 * call-depth limit: docs/runtimes.md gives the measurements. */
#ifndef JS_STACK_BYTES
#define JS_STACK_BYTES (1024 * 1024)
#endif
enum { kJsStackBytes = JS_STACK_BYTES };

/* An upper bound on the program text, so a huge stdin fails with a message
 * instead of exhausting memory half-way. */
enum { kMaxProgramBytes = 64 << 20 };

/* Unhandled promise rejections, collected until the event loop is idle: a
 * handler attached later (in a following job) still counts as handling it,
 * as in browsers and Node. Kept small and bounded; once full, further
 * rejections are still counted, just not printed. */
enum { kMaxTrackedRejections = 64 };
typedef struct {
  JSValue promise[kMaxTrackedRejections];
  JSValue reason[kMaxTrackedRejections];
  int count;
  int dropped;
} Rejections;
static Rejections rejections;

/* Writes "Uncaught <value>" and, for Error objects, the stack to stderr. */
static void report_error(JSContext *ctx, JSValueConst value, const char *what) {
  const char *text = JS_ToCString(ctx, value);
  fprintf(stderr, "%s %s\n", what, text ? text : "(value cannot be converted to a string)");
  JS_FreeCString(ctx, text);
  if (text == NULL) JS_FreeValue(ctx, JS_GetException(ctx)); /* the conversion's own error */
  if (!JS_IsError(ctx, value)) return;
  JSValue stack = JS_GetPropertyStr(ctx, value, "stack");
  if (!JS_IsUndefined(stack) && !JS_IsException(stack)) {
    const char *trace = JS_ToCString(ctx, stack);
    if (trace && trace[0]) fputs(trace, stderr);
    if (trace && trace[0] && trace[strlen(trace) - 1] != '\n') fputc('\n', stderr);
    JS_FreeCString(ctx, trace);
  }
  JS_FreeValue(ctx, stack);
}

/* Forgets the tracked rejections whose reason is REASON (already reported). */
static void forget_rejections_of(JSContext *ctx, Rejections *r, JSValueConst reason) {
  for (int i = 0; i < r->count;) {
    if (!JS_SameValue(ctx, r->reason[i], reason)) {
      i++;
      continue;
    }
    JS_FreeValue(ctx, r->promise[i]);
    JS_FreeValue(ctx, r->reason[i]);
    r->count--;
    r->promise[i] = r->promise[r->count];
    r->reason[i] = r->reason[r->count];
  }
}

/* Reports the pending exception of CTX; always returns kExitUncaught. A
 * module's error also rejects the module's promises: it is reported here
 * once, not again as a rejection. */
static int report_exception(JSContext *ctx) {
  JSValue exc = JS_GetException(ctx);
  report_error(ctx, exc, "Uncaught");
  forget_rejections_of(ctx, &rejections, exc);
  JS_FreeValue(ctx, exc);
  return kExitUncaught;
}

static void track_rejection(JSContext *ctx, JSValueConst promise, JSValueConst reason,
                            JS_BOOL is_handled, void *opaque) {
  Rejections *r = opaque;
  if (!is_handled) {
    if (r->count == kMaxTrackedRejections) {
      r->dropped++;
      return;
    }
    r->promise[r->count] = JS_DupValue(ctx, promise);
    r->reason[r->count] = JS_DupValue(ctx, reason);
    r->count++;
    return;
  }
  for (int i = 0; i < r->count; i++) {
    if (JS_VALUE_GET_PTR(r->promise[i]) != JS_VALUE_GET_PTR(promise)) continue;
    JS_FreeValue(ctx, r->promise[i]);
    JS_FreeValue(ctx, r->reason[i]);
    r->count--;
    r->promise[i] = r->promise[r->count];
    r->reason[i] = r->reason[r->count];
    return;
  }
}

/* Reports (when REPORT) what is left unhandled and releases it; returns how
 * many there were. */
static int drain_rejections(JSContext *ctx, Rejections *r, int report) {
  int total = r->count + r->dropped;
  for (int i = 0; i < r->count; i++) {
    if (report) report_error(ctx, r->reason[i], "Uncaught (in promise)");
    JS_FreeValue(ctx, r->promise[i]);
    JS_FreeValue(ctx, r->reason[i]);
  }
  if (report && r->dropped) fprintf(stderr, "... and %d more unhandled promise rejections\n", r->dropped);
  r->count = r->dropped = 0;
  return total;
}

/* Reads all of STREAM into a NUL-terminated buffer the caller frees; NULL
 * with a message on stderr when it cannot be read or is too large. */
static char *read_all(FILE *stream, const char *name, size_t *len_out) {
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len - 1, stream);
    len += got;
    if (got == 0) break;
    if (len + 1 < cap) continue;
    if (cap >= kMaxProgramBytes) {
      fprintf(stderr, "js: %s: program larger than %d bytes\n", name, kMaxProgramBytes);
      free(buf);
      return NULL;
    }
    char *grown = realloc(buf, cap * 2);
    if (!grown) free(buf);
    buf = grown;
    cap *= 2;
  }
  if (!buf) {
    fprintf(stderr, "js: %s: out of memory reading the program\n", name);
    return NULL;
  }
  if (ferror(stream)) {
    fprintf(stderr, "js: %s: %s\n", name, strerror(errno));
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  *len_out = len;
  return buf;
}

static char *load_program(const char *name, size_t *len) {
  if (strcmp(name, "<stdin>") == 0) return read_all(stdin, name, len);
  FILE *f = fopen(name, "rb");
  if (!f) {
    fprintf(stderr, "js: cannot open %s: %s\n", name, strerror(errno));
    return NULL;
  }
  char *text = read_all(f, name, len);
  fclose(f);
  return text;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Evaluates the program; returns kExitOk or reports and returns kExitUncaught. */
static int run_program(JSContext *ctx, const char *text, size_t len, const char *name) {
  int as_module = ends_with(name, ".mjs") || JS_DetectModule(text, len);
  JSValue result;
  if (as_module) {
    result = JS_Eval(ctx, text, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
    if (!JS_IsException(result)) {
      /* No realpath for the main module: stdin has no path. */
      if (js_module_set_import_meta(ctx, result, 0, 1) < 0) {
        JS_FreeValue(ctx, result);
        result = JS_EXCEPTION;
      } else {
        result = JS_EvalFunction(ctx, result);
      }
    }
    /* A module evaluates to a promise; run jobs until it settles. */
    if (!JS_IsException(result)) result = js_std_await(ctx, result);
  } else {
    result = JS_Eval(ctx, text, len, name, JS_EVAL_TYPE_GLOBAL);
  }
  if (JS_IsException(result)) return report_exception(ctx);
  JS_FreeValue(ctx, result);
  return kExitOk;
}

static JSContext *new_context(JSRuntime *rt) {
  JSContext *ctx = JS_NewContext(rt);
  if (!ctx) return NULL;
  js_init_module_std(ctx, "std");
  js_init_module_os(ctx, "os");
  return ctx;
}

/* Math.random, as QuickJS implements it (xorshift64*, 52 random bits), but
 * with its state seeded by ampoule_main from random_get rather than by
 * JS_NewContext from the clock. */
static uint64_t random_state = 1;

static JSValue math_random(JSContext *ctx, JSValueConst this_val, int argc, JSValueConst *argv) {
  (void)this_val;
  (void)argc;
  (void)argv;
  uint64_t x = random_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  random_state = x;
  uint64_t v = x * 0x2545F4914F6CDD1DULL;
  union {
    uint64_t u;
    double d;
  } bits = {.u = ((uint64_t)0x3ff << 52) | (v >> 12)}; /* 1.0 <= d < 2.0 */
  return JS_NewFloat64(ctx, bits.d - 1.0);
}

/* Replaces Math.random with math_random, with the attributes of a built-in
 * method (writable, configurable, not enumerable). */
static int install_math_random(JSContext *ctx) {
  JSValue global = JS_GetGlobalObject(ctx);
  JSValue math = JS_GetPropertyStr(ctx, global, "Math");
  JS_FreeValue(ctx, global);
  if (JS_IsException(math)) return -1;
  int rc = JS_DefinePropertyValueStr(ctx, math, "random",
                                     JS_NewCFunction(ctx, math_random, "random", 0),
                                     JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
  JS_FreeValue(ctx, math);
  return rc < 0 ? -1 : 0;
}

static void seed_math_random(void) {
  uint64_t seed = 0;
  if (__wasi_random_get((uint8_t *)&seed, sizeof seed) != 0) seed = 0;
  random_state = seed ? seed : 1; /* xorshift state must not be zero */
}

/* The WASI argv, NULL-terminated, in one allocation the caller frees. */
static char **wasi_argv(int *argc_out) {
  __wasi_size_t argc = 0, buf_size = 0;
  if (__wasi_args_sizes_get(&argc, &buf_size) != 0) return NULL;
  size_t table = (argc + 1) * sizeof(char *);
  char **argv = calloc(1, table + buf_size + 1);
  if (!argv) return NULL;
  if (__wasi_args_get((uint8_t **)argv, (uint8_t *)argv + table) != 0) {
    free(argv);
    return NULL;
  }
  argv[argc] = NULL;
  *argc_out = (int)argc;
  return argv;
}

/* scriptArgs = argv[1:] (the program and its arguments). */
static int set_script_args(JSContext *ctx, int argc, char **argv) {
  JSValue args = JS_NewArray(ctx);
  if (JS_IsException(args)) return -1;
  for (int i = 1; i < argc; i++)
    if (JS_SetPropertyUint32(ctx, args, i - 1, JS_NewString(ctx, argv[i])) < 0) {
      JS_FreeValue(ctx, args);
      return -1;
    }
  JSValue global = JS_GetGlobalObject(ctx);
  int rc = JS_SetPropertyStr(ctx, global, "scriptArgs", args);
  JS_FreeValue(ctx, global);
  return rc < 0 ? -1 : 0;
}

static JSRuntime *runtime;
static JSContext *context;

EXPORT("ampoule_init")
int ampoule_init(void) {
  if (context) return 0;
  runtime = JS_NewRuntime();
  if (!runtime) {
    fprintf(stderr, "js: cannot allocate the JavaScript runtime\n");
    return kExitUsage;
  }
  /* One thread only: Atomics.wait must throw rather than wait forever. */
  JS_SetCanBlock(runtime, 0);
  JS_SetMaxStackSize(runtime, kJsStackBytes);
  js_std_init_handlers(runtime);
  context = new_context(runtime);
  if (!context || install_math_random(context) < 0) {
    fprintf(stderr, "js: cannot allocate the JavaScript context\n");
    return kExitUsage;
  }
  JS_SetModuleLoaderFunc(runtime, NULL, js_module_loader, NULL);
  JS_SetHostPromiseRejectionTracker(runtime, track_rejection, &rejections);
  /* argc -1: no scriptArgs yet; ampoule_main sets them. */
  js_std_add_helpers(context, -1, NULL);
  return kExitOk;
}

EXPORT("ampoule_main")
int ampoule_main(void) {
  if (!context && ampoule_init() != 0) return kExitUsage;
  int argc = 0;
  char **argv = wasi_argv(&argc);
  if (!argv) {
    fprintf(stderr, "js: cannot read the WASI arguments\n");
    return kExitUsage;
  }
  const char *name = (argc < 2 || strcmp(argv[1], "-") == 0) ? "<stdin>" : argv[1];
  size_t len = 0;
  char *text = load_program(name, &len);
  if (!text) return kExitUsage;

  /* The stack limit is relative to the stack pointer at entry, which the
   * host's call of this export sets afresh. */
  JS_UpdateStackTop(runtime);
  seed_math_random();
  if (set_script_args(context, argc, argv) < 0) return report_exception(context);

  int status = run_program(context, text, len, name);
  free(text);
  if (status == kExitOk) js_std_loop(context); /* promise jobs and os.setTimeout timers */
  if (drain_rejections(context, &rejections, status == kExitOk) > 0) status = kExitUncaught;
  fflush(stdout);
  fflush(stderr);
  /* The instance is used once: freeing the runtime would only cost time. */
  free(argv);
  return status;
}
