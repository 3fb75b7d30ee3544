#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Finds cycles among a Rust crate's modules (one module per file), from the paths its code
names: `use crate::...` trees, `crate::a::b`, `super::x` and a child's `child::x` in code
(comments, doc comments and test suites left out: KUnit's `#[kunit_tests]` and `#[cfg(test)]`
modules).

A file depends on the module a path resolves to (the longest prefix of the path that is a
module with a file of its own, followed through `pub use` re-exports to the module that defines
the item); a parent's `mod` declaration is not a dependency, nor is a use of the crate root
(its module declarations, parameters and Display forwarders). Modules that reach each other
are a cycle unless they are all one module and its submodules (a family's HAL files use the
engine they belong to, which uses them): a cycle that leaves such a unit counts. Every set of
modules that reach each other (a strongly connected component of two or more) is printed with
one path that closes it, and the exit status is 1; a crate without a cycle exits 0.

Usage: module-cycles.py [--explain] [ROOT [CRATE_ROOT_FILE]]   (default: the project,
nova_core.rs); --explain prints, for each cycle, every dependency inside it and the path that
makes it.
"""

import re
import sys
from pathlib import Path

PATH_ATTR_LINE = re.compile(r'^\s*#\[path\s*=\s*"([^"]+)"\]\s*$')


def strip_comments(text):
    """The code without `//` comments (doc comments included) and `/* */` blocks; string
    literals are kept as they are (the crate names no module path in a string)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] if "//" in line and '"' not in line.split("//", 1)[0]
                     else line for line in text.splitlines())


def declarations(path, is_root):
    """The modules a file declares with `mod x;`: (name, file), with `#[path]` honoured
    (relative to the declaring file's folder)."""
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;', line)
        if not m:
            continue
        name = m.group(1)
        attr = None
        j = i - 1
        while j >= 0 and lines[j].strip().startswith("#["):
            a = PATH_ATTR_LINE.match(lines[j])
            if a:
                attr = a.group(1)
            j -= 1
        if attr:
            child = path.parent / attr
        elif is_root or path.name == "mod.rs":
            child = path.parent / f"{name}.rs"
        else:
            child = path.parent / path.stem / f"{name}.rs"
        out.append((name, child))
    return out


def module_tree(root_file):
    """Every module with a file: its path (a tuple of names; the crate root is ()) -> file."""
    modules = {}
    todo = [((), root_file, True)]
    while todo:
        mpath, file, is_root = todo.pop()
        if not file.is_file():
            continue
        modules[mpath] = file
        for name, child in declarations(file, is_root):
            todo.append((mpath + (name,), child, False))
    return modules


def inline_spans(code):
    """The spans of inline `mod name { ... }` blocks (string literals blanked first, so that
    their braces do not count)."""
    blank = re.sub(r'"(?:\\.|[^"\\])*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
    spans = []
    for m in re.finditer(r"\bmod\s+\w+\s*\{", blank):
        depth = 0
        for i in range(m.end() - 1, len(blank)):
            if blank[i] == "{":
                depth += 1
            elif blank[i] == "}":
                depth -= 1
                if depth == 0:
                    spans.append((m.end(), i))
                    break
    return spans


def use_paths(code, children=()):
    """Every path named in `use` trees (expanded) and in code, as tuples of names relative to
    the file's module: a `super` that leaves an inline module (a `mod tests { ... }`) is that
    file's `self`."""
    spans = inline_spans(code)
    tests = [(a, b) for a, b in spans if is_test_module(code, a)]

    def local(path, pos):
        depth = sum(1 for a, b in spans if a <= pos < b)
        path = list(path)
        while depth and path and path[0] == "super":
            path[0] = "self"
            if len(path) > 1 and path[1] == "super":
                path.pop(0)
            depth -= 1
        return tuple(path)

    def in_tests(pos):
        return any(a <= pos < b for a, b in tests)

    roots = ["crate", "super", "self"] + list(children)
    first = "|".join(roots)
    out = []
    uses = []
    for m in re.finditer(rf"\buse\s+((?:{first})\b[^;]*);", code, re.S):
        uses.append((m.start(), m.end()))
        if not in_tests(m.start()):
            out.extend(local(p, m.start()) for p in expand(m.group(1)))
    for m in re.finditer(rf"(?<![\w:])((?:{first})(?:\s*::\s*\w+)+)", code):
        if in_tests(m.start()) or any(a <= m.start() < b for a, b in uses):
            continue
        out.append(local(tuple(p.strip() for p in m.group(1).split("::")), m.start()))
    # A child module named without `self::` (`use image::X`, `image::f()`) is `self::image`.
    return [("self",) + p if p and p[0] in children else p for p in out]


def is_test_module(code, body_start):
    """Whether the inline module whose body starts at `body_start` is a test suite (KUnit's
    `#[kunit_tests(...)]` or `#[cfg(test)]`): the tests of a module may reach across the
    layers (they decode through the real registers, frame through the real queues); the
    shipped module does not contain them."""
    head = code[:body_start]
    decl = head.rfind("mod ")
    attrs = head[:decl].rstrip()
    lines = attrs.splitlines()
    while lines and lines[-1].strip().startswith("#["):
        if "kunit_tests(" in lines[-1] or "cfg(test)" in lines[-1]:
            return True
        lines.pop()
    return False


def expand(tree):
    """`crate::{a::{b, c}, d}` -> [(crate, a, b), (crate, a, c), (crate, d)]."""
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)

    def walk(prefix, s):
        if "{" not in s:
            return [prefix + tuple(x for x in s.split("::") if x)]
        head, _, body = s.partition("{")
        body = body[: body.rfind("}")]
        base = prefix + tuple(x for x in head.split("::") if x)
        items, depth, cur = [], 0, ""
        for ch in body:
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        items.append(cur)
        out = []
        for item in items:
            if item:
                out.extend(walk(base, item))
        return out or [base]

    return walk((), tree)


def reexports(modules):
    """Each module's re-exports (`pub use` / `pub(crate) use` of its own or its children's
    items): (module, name) -> the path re-exported, so that a path through a re-export resolves
    to the module that defines the item, not to the one that re-exports it."""
    out = {}
    for mpath, file in modules.items():
        code = strip_comments(file.read_text())
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", code, re.S):
            for p in expand(m.group(1)):
                if p and p[-1] not in ("*", "self"):
                    out[(mpath, p[-1])] = (mpath, p)
    return out


def resolve(mpath, path, modules, reexported=None, depth=0):
    """The module (with a file) a path from module `mpath` names, or None."""
    if not path:
        return None
    if path[0] == "crate":
        names = path[1:]
        base = ()
    elif path[0] in ("super", "self"):
        base = mpath
        names = path
        while names and names[0] in ("super", "self"):
            if names[0] == "super":
                base = base[:-1]
            names = names[1:]
    else:
        return None
    best, rest = None, ()
    for i in range(len(names) + 1):
        cand = base + tuple(names[:i])
        if cand in modules:
            best, rest = cand, tuple(names[i:])
    if best is not None and rest and reexported and depth < 8:
        hit = reexported.get((best, rest[0]))
        if hit is not None:
            owner, target = hit
            if target[0] not in ("crate", "super", "self"):
                target = ("self",) + target
            found = resolve(owner, target + rest[1:], modules, reexported, depth + 1)
            if found is not None:
                return found
    return best


def graph(modules):
    """Each module's dependencies, and for each dependency the first path that makes it."""
    edges = {m: set() for m in modules}
    why = {}
    reexported = reexports(modules)
    for mpath, file in modules.items():
        code = strip_comments(file.read_text())
        children = [m[-1] for m in modules if len(m) == len(mpath) + 1 and m[:-1] == mpath]
        for p in use_paths(code, children):
            target = resolve(mpath, p, modules, reexported)
            # The crate root (module declarations, parameters, Display forwarders) is left out.
            if target is not None and target != mpath and target != ():
                edges[mpath].add(target)
                why.setdefault((mpath, target), "::".join(p))
    return edges, why


def components(edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [c for c in out if len(c) > 1 and not one_unit(c)]


def one_unit(comp):
    """Whether a set of modules that reach each other is one module and its submodules: a
    child using its parent that uses it is the unit's own business; a cycle that leaves the
    unit is not."""
    return any(all(m[: len(top)] == top for m in comp) for top in comp)


def closing_path(comp, edges):
    """One cycle through the component's first module, as module names."""
    members = set(comp)
    start = sorted(comp)[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return sorted(comp)


def name(m):
    return "::".join(m) or "crate"


def main():
    args = [a for a in sys.argv[1:] if a != "--explain"]
    explain = len(args) < len(sys.argv) - 1
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    crate = root / (args[1] if len(args) > 1 else "nova_core.rs")
    modules = module_tree(crate)
    edges, why = graph(modules)
    cycles = components(edges)
    for comp in sorted(cycles, key=lambda c: sorted(c)):
        print(f"cycle among {len(comp)} modules: "
              + " -> ".join(name(m) for m in closing_path(comp, edges))
              + "   (all: " + ", ".join(name(m) for m in sorted(comp)) + ")")
        if explain:
            for a in sorted(comp):
                for b in sorted(edges[a] & set(comp)):
                    print(f"    {name(a)} -> {name(b)}: {why[(a, b)]} ({modules[a]})")
    print(f"{len(modules)} modules, {sum(len(e) for e in edges.values())} dependencies, "
          f"{len(cycles)} cycles")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
