#!/usr/bin/env python3
"""Function lengths over the workspace's library and binary sources (crates/*/src, tests left out).

A function's length is its lines from the `fn` keyword's line to its closing brace, inclusive.
Items under `#[cfg(test)]` (test modules, test-only helpers) are left out; so are declarations
without a body (trait methods without a default).

Usage: scripts/fn_lengths.py [--over N] [--top K] [ROOT]
Prints the count, median, p90, p99 and the number over 100 lines; --top lists the longest,
--over lists every function longer than N lines.
"""
import argparse
import glob
import os
import re
import statistics


def blank_out(src):
    """The source with comments, strings and char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        else:
            m = re.match(r'b?r(#*)"', src[i:i + 40]) if c in "rb" and not _ident_before(src, i) else None
            if m:
                end = src.find('"' + m.group(1), i + m.end())
                j = n if end < 0 else end + 1 + len(m.group(1))
                out.append(re.sub(r"[^\n]", " ", src[i:j]))
                i = j
            elif c == '"' or (c == "b" and src.startswith('b"', i) and not _ident_before(src, i)):
                j = i + (2 if c == "b" else 1)
                while j < n and src[j] != '"':
                    j += 2 if src[j] == "\\" else 1
                out.append(re.sub(r"[^\n]", " ", src[i:j + 1]))
                i = j + 1
            elif c == "'":
                m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'])'", src[i:i + 12])
                if m:
                    out.append(" " * m.end())
                    i += m.end()
                else:
                    out.append(c)
                    i += 1
            else:
                out.append(c)
                i += 1
    return "".join(out)


def _ident_before(src, i):
    return i > 0 and (src[i - 1].isalnum() or src[i - 1] == "_")


def matching_brace(text, open_at):
    depth = 0
    for j in range(open_at, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def test_spans(text):
    """Character ranges of items under #[cfg(test)]."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        brace = text.find("{", m.end())
        semi = text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue
        spans.append((m.start(), matching_brace(text, brace)))
    return spans


def functions(path):
    text = blank_out(open(path, encoding="utf-8").read())
    skip = test_spans(text)
    for m in re.finditer(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)", text):
        if any(a <= m.start() <= b for a, b in skip):
            continue
        depth, j = 0, m.end()
        while j < len(text):
            ch = text[j]
            if ch in "([<":
                depth += 1
            elif ch in ")]>" and depth:
                # `->` is not a closing angle bracket
                if not (ch == ">" and text[j - 1] == "-"):
                    depth -= 1
            elif ch == ";" and depth == 0:
                break
            elif ch == "{" and depth == 0:
                break
            j += 1
        if j >= len(text) or text[j] == ";":
            continue
        end = matching_brace(text, j)
        first = text.count("\n", 0, m.start()) + 1
        last = text.count("\n", 0, end) + 1
        yield m.group(1), first, last - first + 1


def percentile(sorted_values, p):
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--over", type=int)
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    rows = []
    for path in sorted(glob.glob(os.path.join(args.root, "crates/*/src/**/*.rs"), recursive=True)):
        rel = os.path.relpath(path, args.root)
        rows.extend((length, rel, line, name) for name, line, length in functions(path))
    lengths = sorted(r[0] for r in rows)
    print(f"functions {len(lengths)}  median {statistics.median(lengths):g}  "
          f"p90 {percentile(lengths, 90)}  p99 {percentile(lengths, 99)}  "
          f"over 100: {sum(1 for v in lengths if v > 100)}")
    listed = sorted(rows, reverse=True)
    if args.over is not None:
        listed = [r for r in listed if r[0] > args.over]
    elif args.top:
        listed = listed[:args.top]
    else:
        listed = []
    for length, rel, line, name in listed:
        print(f"{length:5d}  {rel}:{line}  {name}")


if __name__ == "__main__":
    main()
