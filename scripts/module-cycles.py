#!/usr/bin/env python3
"""Fails when modules of a crate import each other, directly or in a longer cycle,
and when a layered crate's module uses a module declared below it.

Every `crate::`, `super::` and `self::` path in a crate's code counts, in `use`
items (groups `use super::{a, b::{c}}` and `use` items over several lines
included) and in expressions. A path is resolved to the deepest module it names;
an import from module A to module B is an edge between the two siblings, under
their deepest common parent, that contain A and B: `crate::x` from `y::z` is
`y -> x`, `super::x` from `a/b.rs` or from `a/b/mod.rs` (module `a::b`) is
`a::b -> a::x`. A module using its parent's or an ancestor's items
(`super::CONST`) and a module using its own children (`self::x`, `x::...`) are
the normal Rust layout and make no edge. Items a parent re-exports from a child
are seen as the parent's. Test code is left out, since tests may look anywhere:
the item after each `#[cfg(test)]`, files named `tests.rs` or inside a `tests/`
folder, and the files of modules declared `#[cfg(test)] mod x;`.

Layers: when a module's file (`lib.rs`, `x.rs` or `x/mod.rs`) has a comment
containing `module-cycles: ordered`, the order of its `mod` / `pub mod`
declarations is the layering of its children, first is lowest: a child may use
only children declared above it. Every path that
breaks this is reported with its file and line. (Macros brought in by
`#[macro_use]` are not paths and are not checked; `#[macro_use]` modules have
to be declared before their users anyway.)

Boundaries: a comment in `lib.rs` containing `module-cycles: uses NAME::{a, b::C}`
says that the crate's non-test code may use only those items of crate `NAME`
(and what is inside them): every other `NAME::...` path is reported.

Usage:
    scripts/module-cycles.py CRATE_SRC_DIR...   check these crates (exit 1 on a finding)
    scripts/module-cycles.py --self-test        check the checker on made-up crates
"""
import pathlib
import re
import sys
import tempfile

ORDERED_MARKER = 'module-cycles: ordered'
USES_MARKER = re.compile(r'module-cycles: uses (' + r'[A-Za-z_][A-Za-z0-9_]*' + r')::(\{[^}]*\}|[A-Za-z0-9_:]+)')
IDENT = r'[A-Za-z_][A-Za-z0-9_]*'
# A path from the crate's root or the current module, in expressions and types.
PATH = re.compile(r'(?<![A-Za-z0-9_])((?:crate|super|self)(?:\s*::\s*(?:' + IDENT + r'))+)')
USE = re.compile(r'(?<![A-Za-z0-9_$])use\s')
MOD = re.compile(r'(?<![A-Za-z0-9_])(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(' + IDENT + r')\s*([;{])')
CFG_TEST = re.compile(r'#\[\s*cfg\s*\(\s*test\s*\)\s*\]')


def blank_comments_and_literals(text):
    """The text with comments and the insides of string and char literals replaced
    by spaces, newlines kept (so offsets and line numbers stay)."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start, end):
        for k in range(start, end):
            if out[k] != '\n':
                out[k] = ' '

    while i < n:
        c = text[i]
        if text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(text, i)) and (i == 0 or not re.match(r'[A-Za-z0-9_]', text[i - 1])):
            close = '"' + m.group(1)
            end = text.find(close, m.end())
            end = n if end < 0 else end + len(close)
            blank(m.end(), end - len(close))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == '\\' else 1
            blank(i + 1, j)
            i = j + 1
        elif c == "'" and (m := re.compile(r"'(?:\\.[^']*|[^\\'\n])'").match(text, i)):
            blank(i + 1, m.end() - 1)
            i = m.end()
        else:
            i += 1
    return ''.join(out)


def item_end(code, start):
    """Where the item starting at `start` ends: after its `;` or its closing `}`."""
    depth, j = 0, start
    while j < len(code):
        if code[j] == '{':
            depth += 1
        elif code[j] == '}':
            depth -= 1
            if depth == 0:
                return j + 1
        elif code[j] == ';' and depth == 0:
            return j + 1
        j += 1
    return j


def strip_test_items(code):
    """The code without the items marked `#[cfg(test)]`, and the names of the
    child modules declared that way (`#[cfg(test)] mod x;`)."""
    test_modules = set()
    out = list(code)
    for m in CFG_TEST.finditer(code):
        end = item_end(code, m.end())
        declared = MOD.search(code, m.end(), end)
        if declared and declared.group(2) == ';':
            test_modules.add(declared.group(1))
        for k in range(m.start(), end):
            if out[k] != '\n':
                out[k] = ' '
    return ''.join(out), test_modules


def use_paths(tree):
    """The paths (lists of names) a `use` tree names: `super::{a, b::{c, self}}`
    gives ['super', 'a'], ['super', 'b', 'c'], ['super', 'b']."""
    tokens = re.findall(IDENT + r'|::|[{},*]', tree)
    pos = [0]

    def peek():
        return tokens[pos[0]] if pos[0] < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def parse(prefix):
        paths, path = [], list(prefix)
        while True:
            token = peek()
            if token == '{':
                take()
                while peek() not in ('}', None):
                    paths += parse(path)
                    if peek() == ',':
                        take()
                if peek() == '}':
                    take()
                return paths
            if token == '*':
                take()
                return paths + [path]
            if token is None or token in ',}':
                return paths + [path]
            if token == '::':
                take()
                continue
            take()
            if token == 'as':
                take()  # the alias
                return paths + [path]
            if token != 'self' or not path:
                path.append(token)

    return parse([])


def module_of(src, path):
    """('a', 'b') for src/a/b.rs and src/a/b/mod.rs; () for lib.rs and main.rs."""
    parts = list(path.relative_to(src).with_suffix('').parts)
    if parts[-1] == 'mod' or (len(parts) == 1 and parts[0] in ('lib', 'main')):
        parts.pop()
    return tuple(parts)


def resolve(here, names, modules):
    """The deepest module a path names, or None for a path that leaves the crate."""
    if names[0] == 'crate':
        at, rest = (), names[1:]
    else:
        at, rest = here, names
        while rest and rest[0] in ('self', 'super'):
            if rest[0] == 'super':
                if not at:
                    return None
                at = at[:-1]
            rest = rest[1:]
    for name in rest:
        if at + (name,) not in modules:
            break
        at = at + (name,)
    return at


def edge(source, target):
    """The sibling modules an import from `source` to `target` makes depend on each
    other, or None when one contains the other."""
    common = 0
    while common < min(len(source), len(target)) and source[common] == target[common]:
        common += 1
    if common == len(source) or common == len(target):
        return None
    return source[: common + 1], target[: common + 1]


class Crate:
    """A crate's non-test code and the edges between its sibling modules."""

    def __init__(self, src):
        self.src = pathlib.Path(src)
        self.code, test_modules = {}, set()
        for path in sorted(self.src.rglob('*.rs')):
            code, tests = strip_test_items(blank_comments_and_literals(path.read_text()))
            self.code[path] = code
            here = module_of(self.src, path)
            test_modules |= {here + (name,) for name in tests}
        self.code = {
            path: code
            for path, code in self.code.items()
            if not is_test_module(module_of(self.src, path), test_modules)
        }
        self.modules = {module_of(self.src, path) for path in self.code}
        lib = self.src / 'lib.rs'
        marker = USES_MARKER.search(lib.read_text()) if lib.exists() else None
        # (crate name, [allowed paths]) from a `module-cycles: uses` marker
        self.allowed = (marker.group(1), use_paths(marker.group(2))) if marker else None
        # (from, to) -> [(path, line, text)], over sibling modules
        self.edges = {}
        for path, code in self.code.items():
            for offset, names in references(code):
                here = module_of(self.src, path)
                target = resolve(here, names, self.modules)
                pair = edge(here, target) if target is not None else None
                if pair:
                    line = code.count('\n', 0, offset) + 1
                    self.edges.setdefault(pair, []).append((path, line, '::'.join(names)))

    def boundary_violations(self):
        """Uses of another crate's items outside the lib.rs marker's list."""
        if self.allowed is None:
            return []
        name, allowed = self.allowed
        found = []
        for path, code in self.code.items():
            for offset, names in external_references(code, name):
                if not any(names[1 : 1 + len(a)] == a for a in allowed):
                    line = code.count('\n', 0, offset) + 1
                    found.append(
                        f'crate boundary: {path.relative_to(self.src.parent)}:{line}: '
                        f'{"::".join(names)} is not among the items this crate may use'
                    )
        return found

    def cycles(self):
        graph = {}
        for source, target in self.edges:
            graph.setdefault(source, set()).add(target)
        out = []
        for component in strongly_connected(graph):
            members = set(component)
            names = ' <-> '.join('::'.join(m) for m in component)
            where = [
                f'    {path}:{line}: {"::".join(s)} uses {"::".join(t)} ({texts})'
                for (s, t), uses in sorted(self.edges.items())
                if s in members and t in members
                for path, line, texts in by_line(uses)
            ]
            out.append('\n'.join([f'module cycle in {self.src}: {names}'] + where))
        return out

    def layers(self):
        """For each module whose file asks for the check, its child modules in
        declared order: {parent module: [child names]}."""
        out = {}
        for path, code in self.code.items():
            if ORDERED_MARKER in path.read_text():
                out[module_of(self.src, path)] = [
                    m.group(1) for m in MOD.finditer(code) if m.group(2) == ';'
                ]
        return out

    def order_violations(self):
        layers = self.layers()
        out = []
        for (source, target), uses in sorted(self.edges.items()):
            parent = source[:-1]
            if parent not in layers or target[:-1] != parent:
                continue
            rank = {name: i for i, name in enumerate(layers[parent])}
            if source[-1] not in rank or target[-1] not in rank:
                continue
            if rank[target[-1]] > rank[source[-1]]:
                declared = '::'.join(parent) or 'lib.rs'
                for path, line, texts in by_line(uses):
                    out.append(
                        f'module order in {self.src}: {path}:{line}: {"::".join(source)} uses '
                        f'{"::".join(target)} ({texts}), declared below it in {declared}'
                    )
        return out


def by_line(uses):
    """The uses grouped by file and line: (path, line, 'a, b')."""
    lines = {}
    for path, line, text in uses:
        lines.setdefault((path, line), []).append(text)
    return [(path, line, ', '.join(texts)) for (path, line), texts in sorted(lines.items())]


def is_test_module(module, test_modules):
    return 'tests' in module or any(module[: len(t)] == t for t in test_modules)


def path_references(code, first_names, expression):
    """(offset, path names) for every path whose first name is in `first_names`: in
    `use` items, and matched by the regex `expression` elsewhere."""
    in_use = []
    for m in USE.finditer(code):
        end = item_end(code, m.end())
        tree = code[m.end() : end - 1]
        in_use.append((m.start(), end))
        for names in use_paths(tree):
            if len(names) > 1 and names[0] in first_names:
                yield m.end() + offset_of_last_name(tree, names), names
    for m in expression.finditer(code):
        if not any(start <= m.start() < end for start, end in in_use):
            yield m.start(), re.findall(IDENT, m.group(1))


def references(code):
    """(offset, path names) for every crate-internal path in the code."""
    return path_references(code, ('crate', 'super', 'self'), PATH)


def external_references(code, crate_name):
    """(offset, path names) for every path into crate `crate_name`."""
    path = re.compile(r'(?<![A-Za-z0-9_:])(' + crate_name + r'(?:\s*::\s*(?:' + IDENT + r'))+)')
    return path_references(code, (crate_name,), path)


def offset_of_last_name(tree, names):
    """Where in a `use` tree a path's last name stands (its line is the one to
    report in a group over several lines)."""
    found = re.search(r'(?<![A-Za-z0-9_])' + re.escape(names[-1]) + r'(?![A-Za-z0-9_])', tree)
    return found.start() if found else 0


def strongly_connected(graph):
    """Strongly connected components with more than one node (Tarjan), sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def check(srcs):
    found = []
    for src in srcs:
        crate = Crate(src)
        found += crate.cycles() + crate.order_violations() + crate.boundary_violations()
    return found


def self_test():
    """Made-up crates with each kind of finding, and a clean one."""
    cases = {
        'mod.rs cycle': (
            {
                'lib.rs': 'mod api;\n',
                'api/mod.rs': 'mod backend;\nmod models;\n',
                'api/backend.rs': 'use super::models::ModelStore;\n',
                'api/models/mod.rs': 'use super::backend::{Backend, BackendError};\nmod store;\n',
                'api/models/store.rs': 'use super::super::backend::Backend;\n',
            },
            ['module cycle', 'api::backend <-> api::models', 'api/models/mod.rs:1'],
        ),
        'grouped use over lines': (
            {
                'lib.rs': 'mod a;\nmod b;\nmod c;\n',
                'a.rs': 'use crate::{\n    c::C,\n    b::{B, Bee},\n};\n',
                'b.rs': 'pub fn b() { crate::c::f() }\n',
                'c.rs': 'use super::{a as first, b};\n',
            },
            ['module cycle', 'a <-> b <-> c', 'a.rs:3', 'c.rs:1'],
        ),
        'order': (
            {
                'lib.rs': '// module-cycles: ordered\nmod low;\nmod middle;\n#[macro_use]\nmod high;\n',
                'low.rs': '// crate::high in a comment is no use\nconst S: &str = "crate::high";\n',
                'middle.rs': 'use crate::low::S;\n\nfn f() {\n    crate::high::g();\n}\n',
                'high.rs': 'use crate::{low::{self, S}};\npub fn g() {}\n',
            },
            ['module order', 'middle.rs:4: middle uses high', '!low.rs', '!high.rs', '!module cycle'],
        ),
        'nested order': (
            {
                'lib.rs': 'pub mod api;\n',
                'api/mod.rs': '// module-cycles: ordered\npub mod keys;\npub mod gate;\n',
                'api/keys.rs': 'use super::gate::Gate;\n',
                'api/gate.rs': 'pub struct Gate;\n',
            },
            ['module order', 'api/keys.rs:1: api::keys uses api::gate', 'declared below it in api',
             '!module cycle'],
        ),
        'boundary': (
            {
                'lib.rs': '//! module-cycles: uses engine::{api, city::Atlas, VERSION}\nmod glue;\n',
                'glue.rs': (
                    'use engine::api::{self, predict};\nuse engine::city::{Atlas, CityModel};\n'
                    'fn f() -> u8 {\n    engine::grid::RESOLUTION + engine::VERSION\n}\n'
                    '#[cfg(test)]\nmod tests {\n    use engine::scoring::X;\n}\n'
                ),
            },
            [
                'glue.rs:2: engine::city::CityModel is not among',
                'glue.rs:4: engine::grid::RESOLUTION',
                '!engine::city::Atlas ',
                '!engine::api',
                '!engine::VERSION',
                '!scoring',
            ],
        ),
        'clean': (
            {
                'lib.rs': '// module-cycles: ordered\nmod grid;\nmod routing;\n',
                'grid.rs': 'pub const R: u8 = 8;\n#[cfg(test)]\nmod tests {\n    use crate::routing::X;\n}\n',
                'routing/mod.rs': (
                    'use crate::grid::R;\nmod cost;\nmod search;\n#[cfg(test)]\nmod lattice;\n'
                    'pub use self::search::*;\n'
                ),
                'routing/cost.rs': 'pub const C: &str = "super::search";\nuse super::R;\n',
                'routing/search.rs': "use super::{cost::C, R};\nconst Q: char = '\"';\n",
                'routing/lattice.rs': 'use super::search::*;\nuse crate::routing::cost::C;\n',
                'routing/tests.rs': 'use super::search::S;\n',
            },
            [],
        ),
    }
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for relative, text in files.items():
                path = pathlib.Path(root, relative)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            report = '\n'.join(check([root]))
        # '!text': text must not be in the report.
        ok = all((e[1:] not in report) if e.startswith('!') else (e in report) for e in expected)
        ok = ok if expected else report == ''
        if not ok:
            failed += 1
            print(f'self-test {name}: FAILED, expected {expected}, got:\n{report or "(nothing)"}')
    if failed:
        sys.exit(1)
    print(f'module-cycles self-test: {len(cases)} made-up crates checked as expected')


def main():
    args = sys.argv[1:]
    if args == ['--self-test']:
        self_test()
        return
    if not args or any(a.startswith('-') for a in args):
        sys.exit(__doc__)
    found = check(args)
    for finding in found:
        print(finding)
    if found:
        sys.exit(1)
    print(
        f'module-cycles: no module imports another that imports it back, '
        f'layers in declared order, crate boundaries kept ({len(args)} crates)'
    )


if __name__ == '__main__':
    main()
