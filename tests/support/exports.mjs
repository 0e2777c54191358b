// The build's exports under build/backtest, read as rows of named columns.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const root = new URL('../../', import.meta.url);

/** The rows of `build/backtest/<name>` (a gzipped CSV), each an object keyed by column. */
export function readExport(name) {
  const text = gunzipSync(readFileSync(new URL(`build/backtest/${name}`, root))).toString();
  const [header, ...lines] = text.trim().split('\n');
  const names = header.split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
  });
}
