# csv: quoting modes, DictWriter, dialect sniffing, embedded newlines.
import csv
import io

rows = [["id", "name", "note"], [1, "Ann", 'says "hi"'], [2, "Bob, Jr.", "line one\nline two"], [3, "", None]]
for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL, csv.QUOTE_NONNUMERIC):
    out = io.StringIO()
    csv.writer(out, quoting=quoting).writerows(rows)
    print(repr(out.getvalue()))
out = io.StringIO()
w = csv.DictWriter(out, fieldnames=["b", "a"], extrasaction="ignore", lineterminator="\n")
w.writeheader()
w.writerow({"a": 1, "b": 2, "c": 3})
w.writerow({"a": "x;y"})
print(out.getvalue(), end="")
sample = "a;b;c\n1;2;3\n4;'5;6';7\n"
dialect = csv.Sniffer().sniff(sample)
print("delimiter", repr(dialect.delimiter), "quotechar", repr(dialect.quotechar))
print(list(csv.reader(io.StringIO(sample), dialect)))
print(list(csv.reader(['a\tb\t"c\td"'], delimiter="\t")))
print(list(csv.reader(io.StringIO('x,"multi\nline",y\n'))))
try:
    list(csv.reader(['a,"b'], strict=True))
except csv.Error as e:
    print("csv.Error:", e)
