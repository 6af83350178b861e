#!/usr/bin/env python3
"""The layer check: the rules ARCHITECTURE.md states, enforced on the library sources.

ARCHITECTURE.md holds a table, `| path | layer |`, whose layer cell starts with a number.
Every library source file takes the layer of the longest path in the table that contains
it; a file the table does not cover is an error. Then, in every library crate:

- an import goes down or across, never up: any `crate::`/`super::` path in code (not only
  in `use` lines; comments, strings and `$crate` do not count) is resolved to the module
  file it names, and that file's layer must not be higher than the importing file's;
- files of different folders import each other in no cycle;
- no file is over 700 lines and no function over 120.

It prints every finding and exits 1 if there is one. `--root` points at another tree (the
tests plant faults in one).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

MAX_FILE_LINES = 700
MAX_FN_LINES = 120
LIBRARY_CRATES = ("gpu-contract", "gpu-translate", "gpu-macros", "gpu-runtime")
TABLE_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(\d+)\b")


@dataclass
class Token:
    kind: str  # "ident", "punct", "other"
    text: str
    line: int


@dataclass
class Crate:
    name: str
    src: str  # absolute path of src/
    files: dict = field(default_factory=dict)  # relative path -> module path tuple


def tokens(text: str) -> list[Token]:
    """Rust's tokens as far as the check needs them: identifiers and `::`, `{`, `}`, `[`,
    `]`, `,`, `(`, `)`, `;`, `*`, `$`, `#`, `!`, `<`, `>`; comments, strings, chars and
    lifetimes skipped."""
    out: list[Token] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            line += text.count("\n", i, end)
            i = end
        elif c == "b" and i + 1 < n and text[i + 1] in "\"'":
            i += 1  # a byte string or byte: the quote is handled next round
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j)
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:  # a char literal
                i += m.end()
            else:  # a lifetime or label
                m = re.match(r"'[A-Za-z_][A-Za-z0-9_]*", text[i:])
                i += m.end() if m else 1
        elif c.isalpha() or c == "_":
            m = re.match(r"(r#)?[A-Za-z_][A-Za-z0-9_]*", text[i:])
            out.append(Token("ident", m.group(0).removeprefix("r#"), line))
            i += m.end()
        elif text.startswith("::", i):
            out.append(Token("punct", "::", line))
            i += 2
        elif c in "{}[](),;*$#!<>":
            out.append(Token("punct", c, line))
            i += 1
        elif c.isdigit():
            m = re.match(r"[0-9][0-9A-Za-z_.]*", text[i:])
            i += m.end()
        else:
            i += 1
    return out


def use_paths(toks: list[Token], i: int, prefix: tuple) -> tuple[list[tuple], int]:
    """The paths of a `use` tree starting at toks[i] (after `prefix`), and where it ends."""
    paths: list[tuple] = []
    path = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t.kind == "ident" and t.text != "as":
            path.append(t.text)
            i += 1
            if i < len(toks) and toks[i].text == "::":
                i += 1
                continue
            paths.append(tuple(path))
            if i < len(toks) and toks[i].text == "as":
                i += 2
            return paths, i
        if t.text == "{":
            i += 1
            while i < len(toks) and toks[i].text != "}":
                inner, i = use_paths(toks, i, tuple(path))
                paths.extend(inner)
                if i < len(toks) and toks[i].text == ",":
                    i += 1
            return paths, i + 1
        if t.text == "*":
            paths.append(tuple(path))
            return paths, i + 1
        break
    if path:
        paths.append(tuple(path))
    return paths, i


def inline_modules(toks: list[Token]) -> list[tuple]:
    """For each token, the inline modules (`mod tests { .. }`) it is inside."""
    out, stack, depth, pending = [], [], 0, None
    for i, t in enumerate(toks):
        if t.text == "{":
            depth += 1
            if pending is not None:
                stack.append((pending, depth))
                pending = None
        elif t.text == "}":
            if stack and stack[-1][1] == depth:
                stack.pop()
            depth -= 1
        elif t.text == "mod" and i + 2 < len(toks) and toks[i + 2].text == "{":
            pending = toks[i + 1].text
        out.append(tuple(name for name, _ in stack))
    return out


QUOTING_MACROS = ("quote", "quote_spanned", "parse_quote", "parse_quote_spanned")
OPENING = {"(": ")", "[": "]", "{": "}"}


def quoted_end(toks: list[Token], i: int) -> int | None:
    """Where a `quote!`-like invocation starting at toks[i] ends (the token after its
    closing bracket), or None if none starts there: the code it quotes is what the
    crate generates, not the crate's own imports."""
    if not (
        toks[i].kind == "ident"
        and toks[i].text in QUOTING_MACROS
        and i + 2 < len(toks)
        and toks[i + 1].text == "!"
        and toks[i + 2].text in OPENING
    ):
        return None
    if i > 0 and toks[i - 1].text == "::" and not (i > 1 and toks[i - 2].text == "quote"):
        return None  # some other crate's macro of the same name
    open_, close, depth, j = toks[i + 2].text, OPENING[toks[i + 2].text], 0, i + 2
    while j < len(toks):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


def crate_paths(toks: list[Token]) -> list[tuple[int, tuple, tuple]]:
    """Every `crate::`/`super::` path in the code, with its line and the inline modules
    it is written in: `use` trees expanded, other paths read segment by segment
    (`crate::host::device::Device::new`). Code inside `quote!` (and its kin) is skipped:
    it is what the crate generates."""
    found = []
    inside = inline_modules(toks)
    i = 0
    while i < len(toks):
        end = quoted_end(toks, i)
        if end is not None:
            i = end
            continue
        t = toks[i]
        starts = t.kind == "ident" and t.text in ("crate", "super")
        after_dollar = i > 0 and toks[i - 1].text == "$"
        after_path = i > 0 and toks[i - 1].text == "::"
        if not starts or after_dollar or after_path:
            i += 1
            continue
        head = []
        j = i
        while j + 1 < len(toks) and toks[j].text in ("crate", "super", "self") and toks[j + 1].text == "::":
            head.append(toks[j].text)
            j += 2
        if not head:
            i += 1
            continue
        paths, end = use_paths(toks, j, tuple(head))
        found.extend((t.line, inside[i], p) for p in paths)
        i = max(end, i + 1)
    return found


def module_files(crate: Crate) -> None:
    """Each source file's module path: src/a/b.rs and src/a/b/mod.rs are `a::b`."""
    for root, _, names in os.walk(crate.src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, name), crate.src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            crate.files[rel.replace(os.sep, "/")] = tuple(parts)


def resolve(crate: Crate, module: tuple, path: tuple) -> str | None:
    """The file of the deepest module `path` names from `module`, or None (an extern path)."""
    segs = list(path)
    here = list(module)
    if segs and segs[0] == "crate":
        here, segs = [], segs[1:]
    else:
        while segs and segs[0] in ("super", "self"):
            if segs.pop(0) == "super":
                here = here[:-1]
    by_module = {m: f for f, m in crate.files.items()}
    best = None
    for k in range(len(here), -1, -1):  # an inline module lives in its nearest file
        if tuple(here[:k]) in by_module:
            best = by_module[tuple(here[:k])]
            break
    for s in segs:
        nxt = tuple(here + [s])
        if nxt not in by_module:
            break
        here.append(s)
        best = by_module[nxt]
    return best


def function_lengths(toks: list[Token]) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of every `fn` with a body."""
    out = []
    for i, t in enumerate(toks):
        if t.text != "fn" or i + 1 >= len(toks) or toks[i + 1].kind != "ident":
            continue
        j, depth = i + 2, 0
        while j < len(toks):  # to the body's `{` at depth 0, or a `;` (no body)
            x = toks[j].text
            if x in "(<":
                depth += 1
            elif x in ")>":
                depth -= 1
            elif x == ";" and depth <= 0:
                j = -1
                break
            elif x == "{" and depth <= 0:
                break
            j += 1
        if j < 0 or j >= len(toks):
            continue
        level, k = 0, j
        while k < len(toks):
            if toks[k].text == "{":
                level += 1
            elif toks[k].text == "}":
                level -= 1
                if level == 0:
                    break
            k += 1
        end = toks[min(k, len(toks) - 1)].line
        out.append((toks[i + 1].text, t.line, end - t.line + 1))
    return out


def read_table(root: str) -> list[tuple[str, int]]:
    rows = []
    with open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8") as f:
        for line in f:
            m = TABLE_ROW.match(line.strip())
            if m:
                rows.append((m.group(1).rstrip("/"), int(m.group(2))))
    return rows


def layer_of(rows: list[tuple[str, int]], path: str) -> int | None:
    best = None
    for prefix, layer in rows:
        if path == prefix or path.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return None if best is None else best[1]


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components, iteratively."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    return comps


def check(root: str) -> list[str]:
    rows = read_table(root)
    if not rows:
        return ["ARCHITECTURE.md has no `| path | layer |` table"]
    findings = []
    for name in LIBRARY_CRATES:
        src = os.path.join(root, name, "src")
        if not os.path.isdir(src):
            continue
        crate = Crate(name, src)
        module_files(crate)
        graph: dict[str, set[str]] = {}
        for rel, module in sorted(crate.files.items()):
            path = f"{name}/src/{rel}"
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                text = f.read()
            mine = layer_of(rows, path)
            if mine is None:
                findings.append(f"{path}: no layer in ARCHITECTURE.md's table")
            lines = text.count("\n") + (not text.endswith("\n"))
            if lines > MAX_FILE_LINES:
                findings.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
            toks = tokens(text)
            for fname, first, count in function_lengths(toks):
                if count > MAX_FN_LINES:
                    findings.append(
                        f"{path}:{first}: fn {fname} is {count} lines (at most {MAX_FN_LINES})"
                    )
            graph.setdefault(path, set())
            for line, inline, p in crate_paths(toks):
                target = resolve(crate, module + inline, p)
                if target is None:
                    continue
                target = f"{name}/src/{target}"
                if target == path:
                    continue
                graph[path].add(target)
                theirs = layer_of(rows, target)
                if mine is not None and theirs is not None and theirs > mine:
                    findings.append(
                        f"{path}:{line}: imports {'::'.join(p)} from {target} "
                        f"(layer {theirs}, above this file's {mine})"
                    )
        for comp in strongly_connected(graph):
            folders = {os.path.dirname(f) for f in comp}
            if len(comp) > 1 and len(folders) > 1:
                findings.append(
                    f"{name}: import cycle across folders: {' <-> '.join(sorted(comp))}"
                )
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    args = parser.parse_args()
    findings = check(os.path.abspath(args.root))
    for f in findings:
        print(f)
    if findings:
        print(f"check_layers: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    print("check_layers: every import goes down, no file or function too long")
    return 0


if __name__ == "__main__":
    sys.exit(main())
