# xml.etree: parse a document, query with paths, build and serialise a tree.
import xml.etree.ElementTree as ET

doc = """<?xml version="1.0"?>
<library xmlns:x="urn:extra">
  <book id="b1" year="1949"><title>Nineteen Eighty-Four</title><author>Orwell</author><price>8.99</price></book>
  <book id="b2" year="1932"><title>Brave New World</title><author>Huxley</author><price>7.50</price></book>
  <book id="b3" year="1953"><title>Fahrenheit 451</title><author>Bradbury</author><price>9.25</price>
    <x:note>signed &amp; numbered</x:note></book>
</library>"""
root = ET.fromstring(doc)
for book in root.iter("book"):
    print(book.get("id"), book.findtext("title"), book.attrib["year"], float(book.find("price").text))
print([b.get("id") for b in root.findall("./book[@year='1932']")], root.find(".//{urn:extra}note").text)
print(sum(float(p.text) for p in root.iterfind(".//price")))
new = ET.Element("summary", count=str(len(root)))
for book in sorted(root, key=lambda b: b.get("year")):
    ET.SubElement(new, "entry", year=book.get("year")).text = book.findtext("title") + " <&>"
ET.indent(new)
print(ET.tostring(new, encoding="unicode"))
try:
    ET.fromstring("<a><b></a>")
except ET.ParseError as e:
    print("ParseError:", e, e.position)
