#!/usr/bin/env python3
"""Writes tests/fuzz/mel.dict, the libFuzzer dictionary of MEL words, from the sources:
the commands and their flags (cmds/*.c flag tables), node types and attribute names (nodes/,
lang/expression_node.c), the language's built-in functions (lang/builtins.c), plus keywords,
operators, setAttr -type names and a few plugs, numbers and file names written out below.
Run it from anywhere after adding commands, flags, types or attributes:
    python3 tests/fuzz/make_dict.py"""
import glob
import os
import re

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
src = {}
for pat in ("cmds/*.c", "lang/*.c", "nodes/*.c"):
    for f in sorted(glob.glob(os.path.join(root, pat))):
        src[os.path.relpath(f, root)] = open(f, encoding="utf-8", errors="replace").read()

sections = []

def section(title, words):
    seen, out = set(), []
    for w in words:
        if w and w not in seen:
            seen.add(w)
            out.append(w)
    sections.append((title, out))

cmds, flags, attrs, types, builtins = [], [], [], [], []
for f, s in src.items():
    cmds += re.findall(r'\{"([A-Za-z]\w*)",\s*cmd_\w+', s)
    if f.startswith("cmds/") or f == "lang/langcmds.c":
        for long_, short in re.findall(r'\{"([A-Za-z]\w*)",\s*(?:"([A-Za-z]\w*)"|NULL),\s*"[a-z]*"', s):
            flags += ["-" + long_] + (["-" + short] if short else [])
    if f.startswith("nodes/") or f == "lang/expression_node.c":
        for long_, short in re.findall(r'\.name\s*=\s*"([A-Za-z]\w*)"(?:,\s*\.short_name\s*=\s*"([A-Za-z]\w*)")?', s):
            attrs += [long_, short]
    types += re.findall(r'sinew_node_type_desc_t\)?\s*\w*\s*=?\s*\{\.name\s*=\s*"([A-Za-z]\w*)"', s)
    types += re.findall(r'\{\s*\.name\s*=\s*"([A-Za-z]\w*)",\s*\.(?:parent_type|flags)', s)
builtins = re.findall(r'\{"([A-Za-z]\w*)",\s*f_\w+', src.get("lang/builtins.c", ""))
# attribute names that are really node types or commands stay in their own sections
attrs = [a for a in attrs if a and a not in types]

section("commands", sorted(set(cmds)) + ["print", "source", "eval", "catch", "catchQuiet", "size", "clear",
                                         "window", "button"])
section("command flags", sorted(set(flags)))
section("node types (built in, then types files use that sinew keeps as placeholders)",
        sorted(set(types)) + ["dagNode", "time", "unitConversion", "expression", "dagPose", "groupId",
                              "groupParts", "objectSet", "blendShape", "animCurveTA", "animCurveTL",
                              "reference", "script", "shadingEngine", "nurbsCurve", "locator"])
section("attributes (long and short names)", sorted(set(attrs)))
section("built-in functions", sorted(set(builtins)))
section("keywords and types",
        ["proc", "global", "int", "float", "string", "vector", "matrix", "if", "else", "for", "in",
         "while", "do", "switch", "case", "default", "break", "continue", "return", "time", "frame",
         "true", "false", "on", "off", "yes", "no", "int[]", "float[]", "string[]", "vector[]"])
section("operators and punctuation",
        ["==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "<<", ">>", "^",
         "?", ":", "!", "%", "`", "$", "[", "]", "{", "}", "(", ")", ";", ",", ".", "//", "/*",
         "*/", "\"", "\\", "\\n", "\\\"", "|", "::", "*"])
section("setAttr -type names",
        ["double2", "double3", "float2", "float3", "long2", "long3", "short2", "short3", "matrix",
         "xform", "string", "stringArray", "doubleArray", "Int32Array", "pointArray",
         "vectorArray", "polyFaces", "componentList", "attributeAlias", "dataPolyComponent", "nurbsCurve", "mesh",
         "attributeAlias", "dataReferenceEdits", "mayaAscii", "double", "doubleLinear",
         "doubleAngle", "bool", "long", "short", "enum", "compound", "message", "time"])
section("plugs, values, files",
        ["time1", "time1.outTime", ":time1", "|", "ns:", ".wl[0].w[0]", ".wl[0:2].w", "[0:3]",
         ".worldMatrix[0]", ".wm[0]", ".pm[0]", ".bindPreMatrix[0]", ".matrix[0]", ".I[0]",
         ".O[0]", ".vt[0]", ".pt[0]", ".ed[0:2]", ".fc[0]", "f 3 0 1 2", "e 3 0 1 \"hard\"",
         "mu 0 3 0 1 2", ".ixp", ".out[0]", ".in[0]", ".xm[0]", ".tx", ".rz", ".sy",
         "0", "1", "-1", "0.5", "1e300", "1e309", "-1e309", "3e9", "2147483647",
         "-2147483648", "4294967296", "9223372036854775808", "nan", "inf", "-0", "1e-320",
         "//Maya ASCII 2020 scene\n", "requires maya \"2020\";", "currentUnit -l centimeter -a degree -t film;",
         "fileInfo \"application\" \"maya\";", "other.ma", "x.ma", "x.mel", "fuzz.ma",
         "input.ma", "roundtrip.ma", "xRN", ".phl[1]", "xRN.placeHolderList[1]", "\"xRN\" 1",
         "5 4 \"xRN\"", "5 3 \"xRN\"", "5 0 \"xRN\"", "file -r -ns \"x\" -rfn \"xRN\" \"other.ma\";",
         "centimeter", "meter", "inch", "degree", "radian", "film", "ntsc", "pal", "game"])

def quote(w):
    out = []
    for ch in w:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\x%02X" % ord(ch))
    return '"' + "".join(out) + '"'

lines = ["# tests/fuzz/mel.dict: MEL words for the fuzz targets (libFuzzer -dict=).",
         "# Written by tests/fuzz/make_dict.py from the sources; do not edit by hand."]
for title, words in sections:
    lines.append("")
    lines.append("# " + title)
    lines += [quote(w) for w in words]
with open(os.path.join(root, "tests", "fuzz", "mel.dict"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(sum(len(w) for _, w in sections), "words")
