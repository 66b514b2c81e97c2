"""The command line the Volent benchmarks share (bench/api.py, bench/models.py):

    [--build DIR | --volent BIN] [--quick]

and whole numbers from the environment. A bad option is a usage error:
"NAME: text" on stderr and exit status 2.
"""
import os
import sys


class Usage:
    """Usage errors of one benchmark, named `name` in its messages."""

    def __init__(self, name, usage):
        self.name = name
        self.usage = usage

    def error(self, text):
        print(f"{self.name}: {text}", file=sys.stderr)
        sys.exit(2)

    def env_int(self, variable, default):
        value = os.environ.get(variable, "") or str(default)
        try:
            return int(value)
        except ValueError:
            self.error(f"{variable} must be a whole number, not {value!r}")


def volent_and_quick(argv, root, quick_variable, usage):
    """(path of volent, quick) from argv: VOLENT or ROOT/build/bin/volent by
    default, --build DIR for DIR/bin/volent, --volent BIN; --quick or
    QUICK_VARIABLE=1. The binary must exist."""
    volent = os.environ.get("VOLENT", "") or os.path.join(root, "build/bin/volent")
    quick = os.environ.get(quick_variable, "0") == "1"
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--volent", "--build"):
            if not args:
                usage.error(f"{arg} needs a {'path' if arg == '--volent' else 'folder'}")
            value = args.pop(0)
            volent = value if arg == "--volent" else os.path.join(value, "bin/volent")
        elif arg == "--quick":
            quick = True
        else:
            usage.error(usage.usage)
    if not os.access(volent, os.X_OK):
        usage.error(f"{volent} is not built (ninja -C build volent, or --volent BIN)")
    return volent, quick
