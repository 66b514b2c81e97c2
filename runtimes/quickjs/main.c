/* js.wasm's entry point: runs one JavaScript program under QuickJS.
 *
 *   js.wasm [FILE [ARG...]]     FILE "-" or no FILE: the program is read from stdin
 *
 * The program is an ES module when FILE ends in ".mjs" or its text looks like
 * one (import/export statements), a classic script otherwise. Besides the
 * language it sees print(), console.log(), scriptArgs (FILE and the ARGs) and
 * the "std" and "os" modules (quickjs-libc), whose system calls go through
 * WASI and so only reach what the host grants.
 *
 * Exit status: 0 when the program and every job it queued (promises, timers)
 * finished; 1 when an exception was not caught or a promise rejection was
 * never handled, with each error and its stack trace written to stderr;
 * 2 when the program could not be read; std.exit(N) exits with N. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quickjs-libc.h"
#include "quickjs.h"

enum { kExitOk = 0, kExitUncaught = 1, kExitUsage = 2 };

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

/* Reports the pending exception of CTX; always returns kExitUncaught. */
static int report_exception(JSContext *ctx) {
  JSValue exc = JS_GetException(ctx);
  report_error(ctx, exc, "Uncaught");
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

/* Reports what is left unhandled and releases it; returns how many there were. */
static int drain_rejections(JSContext *ctx, Rejections *r) {
  int total = r->count + r->dropped;
  for (int i = 0; i < r->count; i++) {
    report_error(ctx, r->reason[i], "Uncaught (in promise)");
    JS_FreeValue(ctx, r->promise[i]);
    JS_FreeValue(ctx, r->reason[i]);
  }
  if (r->dropped) fprintf(stderr, "... and %d more unhandled promise rejections\n", r->dropped);
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

int main(int argc, char **argv) {
  const char *name = (argc < 2 || strcmp(argv[1], "-") == 0) ? "<stdin>" : argv[1];
  size_t len = 0;
  char *text = load_program(name, &len);
  if (!text) return kExitUsage;

  JSRuntime *rt = JS_NewRuntime();
  if (!rt) {
    fprintf(stderr, "js: cannot allocate the JavaScript runtime\n");
    return kExitUsage;
  }
  /* One thread only: Atomics.wait must throw rather than wait forever. */
  JS_SetCanBlock(rt, 0);
  js_std_init_handlers(rt);
  JSContext *ctx = new_context(rt);
  if (!ctx) {
    fprintf(stderr, "js: cannot allocate the JavaScript context\n");
    return kExitUsage;
  }
  JS_SetModuleLoaderFunc(rt, NULL, js_module_loader, NULL);
  static Rejections rejections;
  JS_SetHostPromiseRejectionTracker(rt, track_rejection, &rejections);
  js_std_add_helpers(ctx, argc > 1 ? argc - 1 : 0, argv + 1);

  int status = run_program(ctx, text, len, name);
  free(text);
  if (status == kExitOk) js_std_loop(ctx); /* promise jobs and os.setTimeout timers */
  if (drain_rejections(ctx, &rejections) > 0) status = kExitUncaught;
  fflush(stdout);

  js_std_free_handlers(rt);
  JS_FreeContext(ctx);
  JS_FreeRuntime(rt);
  return status;
}
