#!/usr/bin/env python3
"""Checks edgeq's size rules (issue 28's "done when"):

  * no function over 120 lines in llm/, graph/, runtime/, checkpoint/, tools/ (the issue's
    list) and the other library folders (convert/, tokenizer/, jinja/, grammar/, c_api/, core/,
    quantization/), counted from the first line of its signature to its closing brace, comments
    and blank lines inside included;
  * no .cc/.h over 800 lines anywhere in the tree (third_party/ excepted).

Exceptions (tables, generated files, kernel tiles) are listed in tools/code_size_allowlist.txt,
each with its reason; an entry that no longer matches anything over the limit is an error too, so
the list stays true.

  python3 tools/check_code_size.py [--root DIR] [--list]

--list prints every function over 80 lines and every file over 600 (a watch list) and exits 0.
Exit 0 when the tree keeps the rules, 1 otherwise (one line per finding), 2 on bad usage.
"""

import argparse
import os
import re
import sys

MAX_FUNCTION_LINES = 120
MAX_FILE_LINES = 800
FUNCTION_DIRS = ("llm", "graph", "runtime", "checkpoint", "tools", "convert", "tokenizer", "jinja",
                 "grammar", "c_api", "core", "quantization")
SKIP_DIRS = {"third_party", ".git"}
ALLOWLIST = "tools/code_size_allowlist.txt"

SCOPE_HEAD = re.compile(
    r"(^|[\s;])(namespace(\s+[\w:]+)?|extern\s+\"C\"|(class|struct|union|enum(\s+class)?)\s+[\w:]+"
    r"[^()]*)\s*$",
    re.S,
)
# What may follow a function's closing parenthesis before its body.
FUNCTION_TAIL = re.compile(
    r"\)\s*((const|override|final|mutable|noexcept|volatile|&|&&)\s*|noexcept\s*\([^)]*\)\s*|"
    r"->\s*[\w:<>,\s*&]+)*$",
    re.S,
)
CONSTRUCTOR_INIT = re.compile(r"\)\s*(noexcept\s*)?:\s*[\w:]+\s*[({]", re.S)
ACCESS_LABEL = re.compile(r"\b(public|private|protected)\s*:(?!:)")


def strip_code(text):
    """Comments, string and character literals and preprocessor lines blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # A preprocessor line (with its continuations).
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        raw = re.match(r'(u8|u|U|L)?R"([^()\\ ]{0,16})\(', text[i:i + 40])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(2) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
            continue
        if c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def function_name(head):
    """The name before the signature's first parenthesis; a macro's arguments are kept."""
    paren = head.find("(")
    if paren < 0:
        return head.strip()
    m = re.search(r"([~\w:<>]+)\s*$", head[:paren])
    name = m.group(1) if m else head[:paren].strip()
    if len(name) >= 4 and re.fullmatch(r"[A-Z][A-Z_0-9]+", name):  # TEST(Suite, Name), TEST_P
        close = head.find(")", paren)
        return name + re.sub(r"\s+", " ", head[paren:close + 1])
    return name


def functions(text):
    """(name, first line, last line) of every function body at namespace or class scope."""
    code = strip_code(text)
    found = []
    stack = []  # per open brace: "scope", "function" or "other"
    head_start = 0  # where the text before the next brace begins
    line = 1
    line_of = []  # line number at each offset
    for ch in code:
        line_of.append(line)
        if ch == "\n":
            line += 1
    opened = []  # (offset of "{", head start offset) for function braces
    for i, ch in enumerate(code):
        if ch == ";":
            head_start = i + 1
        elif ch == "{":
            head = code[head_start:i]
            at_scope = all(k == "scope" for k in stack)
            head_clean = ACCESS_LABEL.sub(" ", head)
            kind = "other"
            if SCOPE_HEAD.search(head_clean) and "(" not in head_clean.split("=")[0][-200:]:
                kind = "scope"
            elif at_scope and (FUNCTION_TAIL.search(head_clean.rstrip())
                               or CONSTRUCTOR_INIT.search(head_clean)) \
                    and not head_clean.rstrip().endswith("=") and "(" in head_clean:
                kind = "function"
            stack.append(kind)
            if kind == "function":
                stripped = head_clean.lstrip()
                start = head_start + (len(head) - len(head.lstrip()))
                # Skip access labels at the head's start.
                label = re.match(r"\s*((public|private|protected)\s*:(?!:)\s*)+", head)
                if label:
                    start = head_start + label.end()
                opened.append((i, start, function_name(stripped)))
            head_start = i + 1
        elif ch == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function" and opened:
                _, start, name = opened.pop()
                found.append((name, line_of[start], line_of[i]))
            head_start = i + 1
    return found


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(
            d for d in dirnames
            if not (rel_dir == "." and (d in SKIP_DIRS or d.startswith("bazel-") or
                                        d.startswith(".")))
        )
        for f in sorted(filenames):
            if f.endswith((".cc", ".h")):
                yield os.path.normpath(os.path.join(rel_dir, f))


def read_allowlist(path):
    """{("function", path, name) or ("file", path, ""): reason}; errors as a list of lines."""
    entries, errors = {}, []
    if not os.path.exists(path):
        return entries, errors
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            m = re.fullmatch(r"(function|file)\s+(\S+)(\s+(\S.*?))?\s+--\s+(\S.*)", text)
            if not m or (m.group(1) == "function") != bool(m.group(4)):
                errors.append("%s:%d: expected 'function PATH NAME -- reason' or "
                              "'file PATH -- reason', got %r" % (ALLOWLIST, number, text[:80]))
                continue
            entries[(m.group(1), m.group(2), m.group(4) or "")] = m.group(5)
    return entries, errors


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.realpath(__file__))))
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    root = args.root
    allow, errors = read_allowlist(os.path.join(root, ALLOWLIST))
    used = set()
    watch = []
    files = list(source_files(root))
    if not files:
        print("check_code_size: no .cc/.h files under %s" % root)
        return 1
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_FILE_LINES:
            key = ("file", rel, "")
            if key in allow:
                used.add(key)
            else:
                errors.append("%s: %d lines; expected at most %d (split it, or list it in %s "
                              "with the reason)" % (rel, lines, MAX_FILE_LINES, ALLOWLIST))
        elif lines > 600:
            watch.append("%s: %d lines" % (rel, lines))
        if rel.split(os.sep)[0] not in FUNCTION_DIRS:
            continue
        for name, first, last in functions(text):
            n = last - first + 1
            if n > MAX_FUNCTION_LINES:
                key = ("function", rel, name)
                if key in allow:
                    used.add(key)
                    continue
                errors.append("%s:%d: function %s is %d lines; expected at most %d (split it, or "
                              "list it in %s with the reason)" %
                              (rel, first, name, n, MAX_FUNCTION_LINES, ALLOWLIST))
            elif n > 80:
                watch.append("%s:%d: function %s: %d lines" % (rel, first, name, n))
    for key in sorted(set(allow) - used):
        errors.append("%s: entry '%s %s %s' matches nothing over the limit; remove it" %
                      (ALLOWLIST, key[0], key[1], key[2]))
    if args.list:
        for w in watch:
            print("watch: " + w)
        for e in errors:
            print(e)
        return 0
    for e in errors:
        print(e)
    if errors:
        print("check_code_size: %d finding(s) in %d files" % (len(errors), len(files)))
        return 1
    print("check_code_size: OK (%d files; functions <= %d lines in %s; files <= %d lines)" %
          (len(files), MAX_FUNCTION_LINES, ", ".join(FUNCTION_DIRS), MAX_FILE_LINES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
