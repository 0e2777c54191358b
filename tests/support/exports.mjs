// The build's exports under build/backtest, read as rows of named columns.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const root = new URL('../../', import.meta.url);

/** The rows of `build/backtest/<name>` (a gzipped CSV), each an object keyed by column. */
export function readExport(name) {
  const text = gunzipSync(readFileSync(new URL(`build/backtest/${name}`, root))).toString();
  const lines = text.trim().split('\n');
  const names = lines[0].split(',');
  // One object literal per row from a function made for this header: the rows share
  // one shape, where Object.fromEntries over [name, cell] pairs allocated a pair
  // array per cell and left the rows in slow dictionary mode (most of the suites' GC).
  const row = new Function('cells', `return { ${names.map((n, i) => `${JSON.stringify(n)}: cells[${i}]`).join(', ')} };`);
  const rows = new Array(lines.length - 1);
  for (let i = 1; i < lines.length; i += 1) rows[i - 1] = row(lines[i].split(','));
  return rows;
}
