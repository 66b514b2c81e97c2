# difflib: unified and context diffs, ndiff, similarity, close matches.
import difflib

a = """one
two
three
four
five
six""".splitlines(keepends=True)
b = """zero
one
two
3
four
six
seven""".splitlines(keepends=True)
print("".join(difflib.unified_diff(a, b, fromfile="a.txt", tofile="b.txt", n=1)), end="")
print("".join(difflib.context_diff(a, b, fromfile="a.txt", tofile="b.txt")), end="")
print("".join(difflib.ndiff(["apple pie\n", "banana\n"], ["apple pies\n", "bandana\n"])), end="")
sm = difflib.SequenceMatcher(None, "private Thread currentThread;", "private volatile Thread currentThread;")
print(round(sm.ratio(), 6), sm.get_matching_blocks())
for tag, i1, i2, j1, j2 in sm.get_opcodes():
    print(tag, i1, i2, j1, j2)
words = ["ape", "apple", "peach", "puppy", "maple", "applet", "happy"]
print(difflib.get_close_matches("appel", words), difflib.get_close_matches("pupy", words, n=1, cutoff=0.5))
print(difflib.SequenceMatcher(lambda c: c == " ", "a b c d", "a  b c e").quick_ratio())
