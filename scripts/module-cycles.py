#!/usr/bin/env python3
"""Fails when two modules of one crate import each other, directly or in a longer
cycle: among a crate's top-level modules (`crate::x` paths) and among the sibling
files of each module folder (`super::x` paths). A child using its parent's items
(`super::CONST`) is the normal Rust layout and is not counted. Test code (`tests.rs`
files and `#[cfg(test)]` modules) is left out: tests may look anywhere.

Usage: scripts/module-cycles.py CRATE_SRC_DIR...
"""
import pathlib
import re
import sys

USE = re.compile(r'\b(crate|super)::(?:\{)?\s*([a-z_][a-z0-9_]*)')


def code_lines(path):
    """The file's lines up to its first `#[cfg(test)]` item."""
    lines = []
    for line in path.read_text().splitlines():
        if line.strip().startswith('#[cfg(test)]'):
            break
        if not line.strip().startswith('//'):
            lines.append(line)
    return lines


def module_of(src, path):
    """('a', 'b') for src/a/b.rs, ('a',) for src/a/mod.rs or src/a.rs."""
    parts = list(path.relative_to(src).with_suffix('').parts)
    if parts[-1] == 'mod':
        parts.pop()
    return tuple(parts)


def cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def check(src):
    src = pathlib.Path(src)
    edges = {}
    files = [p for p in src.rglob('*.rs') if p.name != 'tests.rs']
    modules = {module_of(src, p) for p in files}
    for path in files:
        here = module_of(src, path)
        if not here or here == ('lib',) or here == ('main',):
            continue
        is_folder = path.name == 'mod.rs'
        for line in code_lines(path):
            for root, name in USE.findall(line):
                if root == 'crate':
                    target = (name,)
                    if target in modules and target[0] != here[0]:
                        edges.setdefault(here[:1], set()).add(target)
                elif not is_folder and len(here) >= 2:
                    target = here[:-1] + (name,)
                    if target in modules and target != here:
                        edges.setdefault(here, set()).add(target)
    return [' <-> '.join('::'.join(m) for m in c) for c in cycles(edges)]


def main():
    found = []
    for src in sys.argv[1:]:
        found += [f'{src}: {c}' for c in check(src)]
    for line in found:
        print(f'module cycle: {line}')
    if found:
        sys.exit(1)
    print(f'module-cycles: no module imports another that imports it back ({len(sys.argv) - 1} crates)')


if __name__ == '__main__':
    main()
