/* Stand-in for <setjmp.h> under WASI: wasi-libc has none, since longjmp needs
 * the WebAssembly exception-handling proposal. QuickJS includes the header but
 * never calls setjmp/longjmp; the declarations below have no definition, so a
 * use would fail at link time instead of misbehaving at run time. */
#ifndef AMPOULE_COMPAT_SETJMP_H
#define AMPOULE_COMPAT_SETJMP_H

typedef long jmp_buf[8];
int setjmp(jmp_buf env);
_Noreturn void longjmp(jmp_buf env, int value);

#endif
