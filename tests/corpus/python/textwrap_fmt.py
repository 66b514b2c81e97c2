# textwrap: wrap, fill, dedent, indent, shorten.
import textwrap

text = ("Ampoule runs programs deterministically inside a sealed sandbox, so that the same program, "
        "inputs and seed always give the same output, exit status and fuel, on every machine, "
        "and a signed receipt says exactly what ran.")
for width in (20, 40, 72):
    print(textwrap.fill(text, width=width))
    print("-" * width)
print(textwrap.wrap(text, width=30, max_lines=3, placeholder=" [...]"))
print(textwrap.shorten(text, width=50), textwrap.shorten("Hello   world   !", width=11))
code = """
    def f(x):
        return x + 1
          # indented comment
"""
print(textwrap.dedent(code), end="")
print(textwrap.indent("a\n\nb\nc", "> "), textwrap.indent("a\n\nb", "+ ", lambda line: True))
tw = textwrap.TextWrapper(width=25, initial_indent="* ", subsequent_indent="  ", break_long_words=True)
print(tw.fill("supercalifragilisticexpialidocious is a very long word indeed, isn't it?"))
print(textwrap.fill("tabs\there\tand spaces", width=12, tabsize=4, expand_tabs=True))
