// The code map, the README and the docs name real paths: a renamed or removed file or
// folder that one of them still names fails here, so none of them quietly goes stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Written by builds, so absent from a fresh clone.
const BUILD_OUTPUTS = ['build/', 'pkg/dist/', 'edge-worker/build/', 'target/', 'node_modules/', '.tools/', '.state/'];

// A `code` span is taken for a path when it starts at one of the repository's top-level
// entries (or at ../shared/): `engine/src/grid/`, `Makefile`; `routing/cch/` inside a
// paragraph about the engine is prose, `application/json` is not a path.
const TOP_LEVEL = readdirSync(root).filter((name) => !name.startsWith('.') || name === '.ci');

/** Repository paths a Markdown text names: `code` spans that start at the root, and relative links. */
export function namedPaths(markdown) {
  const spans = [...markdown.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]);
  const links = [...markdown.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]);
  const fromRoot = (s) => /^[A-Za-z0-9_.\-/*]+$/.test(s)
    && (s.startsWith('../shared/') || TOP_LEVEL.some((name) => s === name || s.startsWith(`${name}/`)));
  return [...new Set([...spans.filter(fromRoot), ...links.filter((l) => !/^[a-z]+:/.test(l))])];
}

/** Whether a named path exists: a `*` stands for any file name in its folder. */
function exists(base, path) {
  if (!path.includes('*')) return existsSync(join(base, path));
  const folder = join(base, dirname(path));
  if (!existsSync(folder)) return false;
  const pattern = new RegExp(`^${path.split('/').pop().replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
  return readdirSync(folder).some((name) => pattern.test(name));
}

/** The named paths of one document that exist neither from the repository root nor from the document's folder. */
function missing(doc) {
  const text = readFileSync(join(root, doc), 'utf8');
  const docFolder = join(root, dirname(doc));
  return namedPaths(text)
    .filter((p) => !BUILD_OUTPUTS.some((prefix) => p.startsWith(prefix)))
    .filter((p) => !exists(root, p) && !exists(docFolder, p));
}

test('the path finder sees spans and links, and leaves out URLs and placeholders', () => {
  const found = namedPaths('`engine/src/grid/` and `a::b` and `/v1/predict` and `application/json` and [x](docs/API.md#errors) '
    + 'and [y](https://e.x/a) and `build/<city>/x` and `Makefile`');
  assert.deepEqual(found, ['engine/src/grid/', 'Makefile', 'docs/API.md']);
});

test('a path that does not exist is reported', () => {
  assert.deepEqual(namedPaths('`engine/src/no_such_module/`').filter((p) => !exists(root, p)), ['engine/src/no_such_module/']);
});

for (const doc of ['ARCHITECTURE.md', 'README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
  test(`every path ${doc} names exists`, () => {
    assert.deepEqual(missing(doc), [], `${doc} names paths that do not exist`);
  });
}

// The code map stays one that a reader takes in at one sitting (issue 43: at most 150
// lines, none over 100 characters): what changes weekly belongs in the files' docs.
test('ARCHITECTURE.md is at most 150 lines, none over 100 characters', () => {
  const lines = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8').replace(/\n$/, '').split('\n');
  assert.ok(lines.length <= 150, `${lines.length} lines`);
  assert.deepEqual(lines.filter((line) => [...line].length > 100), []);
});
