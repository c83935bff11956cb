"""ElementTree's serialization, character for character, in one pass.

`ET.tostring(root, encoding="unicode")` walks the tree twice in pure Python (once to find the
namespaces, once to write) with a call per element, attribute and string: for a class's LMS
exports that was a sixth of `quiz set make`'s own time. `tostring` here writes the same text
(the same prefixes, numbered ns0, ns1... in the same order; the namespaces declared on the root,
sorted by prefix; attributes in their order; the same escaping, ElementTree's own functions;
`<tag />` when empty) from one walk. A tree it was not written for (comments, processing
instructions, QName tags or values) goes to ElementTree itself.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

_escape_cdata = ET._escape_cdata     # type: ignore[attr-defined]
_escape_attrib = ET._escape_attrib   # type: ignore[attr-defined]


class _Unusual(Exception):
    """Something only ElementTree's own writer handles."""


# The tag of an element that stands for well-formed markup written as it is (its text): the HTML
# of a question, which parsing into elements only to write them again would cost more than the
# rest of its QTI item.
RAW = "{quizforge}raw"


def raw(parent: ET.Element, markup: str) -> ET.Element:
    """MARKUP (well-formed XML content: the caller's promise) as the last child of PARENT, to be
    written as it is, in the namespace its parent's document declares as the default."""
    element = ET.SubElement(parent, RAW)
    element.text = markup
    return element


def tostring(root: ET.Element) -> str:
    """What `ET.tostring(root, encoding="unicode")` gives (with each RAW element's markup in its place)."""
    try:
        return _tostring(root)
    except _Unusual:
        if any(element.tag == RAW for element in root.iter()):
            raise ValueError("markup written as it is, inside a tree only ElementTree can write") from None
        return ET.tostring(root, encoding="unicode")


def _tostring(root: ET.Element) -> str:
    qnames: dict[str, str] = {}
    namespaces: dict[str, str] = {}   # uri -> prefix, in the order found
    registered = ET._namespace_map     # type: ignore[attr-defined]

    def qname(name) -> str:
        found = qnames.get(name)
        if found is not None:
            return found
        if not isinstance(name, str):
            raise _Unusual
        if name[:1] == "{":
            uri, local = name[1:].rsplit("}", 1)
            prefix = namespaces.get(uri)
            if prefix is None:
                prefix = registered.get(uri)
                if prefix is None:
                    prefix = "ns%d" % len(namespaces)
                if prefix != "xml":
                    namespaces[uri] = prefix
            found = f"{prefix}:{local}" if prefix else local
        else:
            found = name
        qnames[name] = found
        return found

    out: list[str] = []
    write = out.append

    def element(elem, root_slot: bool) -> None:
        tag = elem.tag
        if tag == RAW and not root_slot:
            write(elem.text or "")
            if elem.tail:
                write(_escape_cdata(elem.tail))
            return
        tag = qnames.get(tag) or qname(tag)   # only a str tag gets into qnames
        if root_slot:
            write("<" + tag)
            write("")   # the namespace declarations, once the whole tree has been seen
            start = ""
        else:
            start = "<" + tag
        for key, value in elem.items():
            if value.__class__ is not str:
                raise _Unusual
            start += f' {qnames.get(key) or qname(key)}="{_escape_attrib(value)}"'
        text = elem.text
        if text or len(elem):
            write(start + ">")
            if text:
                if text.__class__ is not str:
                    raise _Unusual
                write(_escape_cdata(text))
            for child in elem:
                element(child, False)
            write("</" + tag + ">")
        else:
            write(start + " />")
        if elem.tail:
            write(_escape_cdata(elem.tail))

    element(root, True)
    if namespaces:
        out[1] = "".join(f' xmlns{":" + prefix if prefix else ""}="{_escape_attrib(uri)}"'
                         for uri, prefix in sorted(namespaces.items(), key=lambda x: x[1]))
    return "".join(out)
