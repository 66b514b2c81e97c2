# argparse: parse sys.argv (no arguments in this run) and explicit argument lists.
import argparse
import sys

parser = argparse.ArgumentParser(description="Summarise numbers.", formatter_class=lambda prog: argparse.HelpFormatter(prog, width=72))
parser.add_argument("numbers", nargs="*", type=int, help="numbers to add up")
parser.add_argument("-m", "--mode", choices=["sum", "max", "min"], default="sum", help="what to compute")
parser.add_argument("-v", "--verbose", action="count", default=0)
parser.add_argument("--scale", type=float, default=1.0, metavar="X")
parser.add_argument("--tag", action="append", default=[])
group = parser.add_mutually_exclusive_group()
group.add_argument("--json", action="store_true")
group.add_argument("--csv", action="store_true")

print("sys.argv has", len(sys.argv) - 1, "arguments")
args = parser.parse_args()
print(vars(args))
for argv in [["1", "2", "3"], ["-m", "max", "4", "9", "2", "-vv"], ["--scale=2.5", "--tag", "a", "--tag", "b", "7"],
             ["--json", "--csv"], ["-m", "avg"], ["x"], ["--unknown"]]:
    try:
        ns = parser.parse_args(argv)
        fn = {"sum": sum, "max": max, "min": min}[ns.mode]
        print(argv, "->", fn(ns.numbers) * ns.scale, ns.verbose, ns.tag, ns.json)
    except SystemExit as e:
        print(argv, "-> exit", e.code)
print(parser.format_help())
print(parser.format_usage(), end="")
known, rest = parser.parse_known_args(["5", "--other", "x"])
print(known.numbers, rest)
