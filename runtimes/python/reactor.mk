# Included after CPython's own Makefile (`make -f Makefile -f reactor.mk ...`
# in the build tree): links the interpreter as a WASI reactor with our entry
# points (ampoule_main.c) instead of Programs/python.o, from the same objects,
# libraries and flags the Makefile's own python.wasm rule uses.
#
#   AMPOULE_MAIN      path of runtimes/python/ampoule_main.c
#   AMPOULE_LDFLAGS   added after the Makefile's flags (-mexec-model=reactor,
#                     the stack size; for wasm-ld the last value given wins)

Programs/ampoule_main.o: $(AMPOULE_MAIN) $(PYTHON_HEADERS)
	$(MAINCC) -c $(PY_CORE_CFLAGS) -o $@ $(AMPOULE_MAIN)

python-reactor.wasm: Programs/ampoule_main.o $(LINK_PYTHON_DEPS)
	$(LINKCC) $(PY_CORE_LDFLAGS) $(LINKFORSHARED) $(AMPOULE_LDFLAGS) -o $@ \
	  Programs/ampoule_main.o $(LINK_PYTHON_OBJS) $(LIBS) $(MODLIBS) $(SYSLIBS)
