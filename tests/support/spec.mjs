// The specifications' field tables (../shared/spec), read at test time so that a
// test of member order follows the documents themselves.
import { readFileSync } from 'node:fs';

const SPEC_DIR = new URL('../../../shared/spec/', import.meta.url);

/**
 * The field paths of the first table under the heading that starts with `heading`
 * in `file`, in table order: "location.latitude, location.longitude" gives two paths,
 * "results[].index" a path into array items.
 */
export function fieldPaths(file, heading) {
  const lines = readFileSync(new URL(file, SPEC_DIR), 'utf8').split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '').startsWith(heading));
  if (start < 0) throw new Error(`no heading "${heading}" in ${file}`);
  const paths = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#+ /.test(line)) break;
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 3 || /^-+$/.test(cells[1]) || cells[1] === 'Field') {
      if (paths.length && !line.startsWith('|')) break;
      continue;
    }
    for (const path of cells[1].split(',')) paths.push(path.trim());
  }
  return paths;
}

/**
 * Checks that the members `paths` name appear in `value` in the same order: at every
 * object, the keys the table lists (by first mention) are a subsequence of the
 * object's own keys. Returns the problems found, empty when the order agrees.
 */
export function orderProblems(value, paths) {
  const children = new Map(); // parent path -> child keys in table order
  for (const path of paths) {
    const parts = path.split('.');
    for (let i = 0; i < parts.length; i += 1) {
      const parent = parts.slice(0, i).join('.');
      const key = parts[i].replace(/\[\]$/, '');
      if (!children.has(parent)) children.set(parent, []);
      if (!children.get(parent).includes(key)) children.get(parent).push(key);
    }
  }
  const problems = [];
  for (const [parent, keys] of children) {
    let at = value;
    for (const part of parent ? parent.split('.') : []) {
      at = Array.isArray(at) ? at[0] : at;
      at = at?.[part.replace(/\[\]$/, '')];
    }
    at = Array.isArray(at) ? at[0] : at;
    if (!at || typeof at !== 'object') continue;
    const actual = Object.keys(at).filter((k) => keys.includes(k));
    const expected = keys.filter((k) => actual.includes(k));
    if (actual.join() !== expected.join()) problems.push(`${parent || '(top)'}: ${actual.join(', ')} instead of ${expected.join(', ')}`);
  }
  return problems;
}
