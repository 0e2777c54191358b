// The deploy configuration of the edge Worker, without network:
//
//   node scripts/deploy-config.mjs check [--config FILE]
//        fails when wrangler.toml holds a placeholder that `make deploy` would not replace
//   node scripts/deploy-config.mjs write --database-id UUID [--portal-origin https://HOST] [--config FILE] [--out FILE]
//        writes the generated deploy config (default build/wrangler.deploy.toml); with a
//        portal origin, the deployment serves the partner portal there
//   node scripts/deploy-config.mjs r2-buckets [--config FILE]   the bucket_name of each [[r2_buckets]]
//   node scripts/deploy-config.mjs d1-uuid NAME    < `wrangler d1 list --json`   prints NAME's uuid
//   node scripts/deploy-config.mjs r2-has NAME     < `wrangler r2 bucket list`   exit 0 if listed, 1 if not
//
// The committed edge-worker/wrangler.toml is never edited: deploy writes a copy with the real
// D1 database id, production vars and its relative paths rewritten for the copy's folder
// (wrangler resolves `main`, `migrations_dir` and `[assets] directory` against the folder of
// the config file it reads). docs/DEPLOY.md describes the steps that use this.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE_CONFIG = path.join(root, 'edge-worker/wrangler.toml');
export const DEPLOY_CONFIG = path.join(root, 'build/wrangler.deploy.toml');
/** The key store: the only placeholder deploy replaces is this database's `database_id`. */
export const D1_DATABASE_NAME = 'hexrisk-keys';
/**
 * The vars production runs with (the clock empty = real time; no partner portal unless
 * `make deploy PORTAL_ORIGIN=https://...` names its public origin: the local one would
 * bind passkeys to localhost).
 */
export const PRODUCTION_VARS = {
  HEXRISK_ENVIRONMENT: 'production', HEXRISK_CLOCK: '', HEXRISK_BENCH_NOOP: '0', HEXRISK_PORTAL_ORIGIN: '',
};
// Keys whose values are paths relative to the config file, by the table they sit in ('' = top level).
const PATH_KEYS = { '': ['main', 'base_dir', 'tsconfig'], d1_databases: ['migrations_dir'], assets: ['directory'], site: ['bucket'], build: ['cwd', 'watch_dir'] };
/** A deployed portal's origin: HTTPS, a host name (not an address), an optional port, no path. */
const PORTAL_ORIGIN = /^https:\/\/(?=[^/:]*[a-z])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const PLACEHOLDER_WORDS = /REPLACE[_ -]?ME|REPLACE[_ -]WITH|CHANGE[_ -]?ME|PLACEHOLDER|\bTODO\b|\bFIXME\b|\bTBD\b|\bYOUR[_-][A-Z0-9_-]+|<[^<>]+>|\{\{[^}]*\}\}|\$\{[^}]*\}|^x{3,}$/i;

/**
 * True for a value that stands in for a real one: an id (32 hex digits or a UUID) that is
 * nearly all zeros or one repeated digit, or a "REPLACE_ME" / "<your id>" / "TODO" style text.
 */
export function isPlaceholder(value) {
  if (HEX_ID.test(value)) {
    const digits = value.replaceAll('-', '').toLowerCase();
    const nonZero = digits.replaceAll('0', '').length;
    return nonZero <= 4 || new Set(digits).size <= 2;
  }
  return PLACEHOLDER_WORDS.test(value);
}

/** The string literals of one TOML line outside its comment, with their positions. */
function stringsOf(line) {
  const found = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '#') break;
    if (c === '"' || c === "'") {
      const triple = line.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      let value = '';
      while (j < line.length && !line.startsWith(quote, j)) {
        if (c === '"' && line[j] === '\\' && j + 1 < line.length) { value += line[j + 1]; j += 2; continue; }
        value += line[j];
        j += 1;
      }
      found.push({ value, start: i, end: j + quote.length });
      i = j + quote.length;
      continue;
    }
    i += 1;
  }
  return found;
}

/**
 * A line-by-line reading of a wrangler.toml, enough for the keys deploy cares about:
 * each line's table (`[vars]`, `[[d1_databases]]` ...), the index of its block for
 * arrays of tables, its key and its string values. Not a general TOML parser.
 */
export function scanToml(text) {
  const lines = text.split('\n');
  const entries = [];
  let table = '';
  let block = -1;
  const blockCount = {};
  let key = null;
  let depth = 0; // open brackets of a multi-line array or inline table value
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    const header = depth === 0 && line.match(/^\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$/);
    if (header) {
      table = header[2];
      block = header[1] === '[[' ? (blockCount[table] = (blockCount[table] ?? -1) + 1) : -1;
      key = null;
      return;
    }
    const strings = stringsOf(line);
    let rest = line;
    if (depth === 0) {
      const assignment = line.match(/^\s*([A-Za-z0-9_.-]+|"[^"]*")\s*=/);
      if (!assignment) return;
      key = assignment[1].replaceAll('"', '');
      rest = line.slice(assignment[0].length);
    }
    // Track brackets outside strings, to attribute continuation lines to their key.
    let masked = rest;
    for (const s of stringsOf(rest).reverse()) masked = masked.slice(0, s.start) + masked.slice(s.end);
    masked = masked.replace(/#.*$/, '');
    depth += (masked.match(/[[{]/g) ?? []).length - (masked.match(/[\]}]/g) ?? []).length;
    if (depth < 0) depth = 0;
    entries.push({ line: index + 1, table, block, key, strings });
  });
  return { lines, entries };
}

function blockValue(entries, table, block, key) {
  return entries.find((e) => e.table === table && e.block === block && e.key === key)?.strings[0]?.value;
}

/** The [[d1_databases]] block index of the key store, or -1. */
function keyStoreBlock(entries) {
  const blocks = new Set(entries.filter((e) => e.table === 'd1_databases').map((e) => e.block));
  return [...blocks].find((b) => blockValue(entries, 'd1_databases', b, 'database_name') === D1_DATABASE_NAME) ?? -1;
}

/**
 * Placeholders in a wrangler.toml text: `{ line, table, key, value, replacedByDeploy }` each.
 * `replacedByDeploy` marks the one deploy substitutes (the key store's `database_id`).
 */
export function findPlaceholders(text) {
  const { entries } = scanToml(text);
  const store = keyStoreBlock(entries);
  const found = [];
  for (const entry of entries) {
    for (const { value } of entry.strings) {
      if (!isPlaceholder(value)) continue;
      const replacedByDeploy = entry.table === 'd1_databases' && entry.block === store && store >= 0 && entry.key === 'database_id';
      found.push({ line: entry.line, table: entry.table || '(top level)', key: entry.key, value, replacedByDeploy });
    }
  }
  return found;
}

/** The problems `check` reports: placeholders deploy leaves in place, and a missing key store. */
export function checkConfigText(text) {
  const problems = findPlaceholders(text)
    .filter((p) => !p.replacedByDeploy)
    .map((p) => `line ${p.line}: ${p.table} ${p.key} = "${p.value}" is a placeholder that deploy does not replace`);
  const { entries } = scanToml(text);
  if (keyStoreBlock(entries) < 0) problems.push(`no [[d1_databases]] block with database_name = "${D1_DATABASE_NAME}" (deploy replaces its database_id)`);
  return problems;
}

function tomlString(value) {
  return JSON.stringify(value); // a TOML basic string for the values used here
}

/**
 * The deploy config for `sourceText` read from `sourcePath`, written to live at `outPath`:
 * the key store's `database_id` set to `databaseId`, the production vars, and every path
 * key rewritten relative to the new folder. Throws when a step finds nothing to change, or
 * when the result still holds a placeholder.
 */
export function deployConfigText(sourceText, { databaseId, portalOrigin = '', sourcePath = SOURCE_CONFIG, outPath = DEPLOY_CONFIG, now = new Date() }) {
  if (!UUID.test(databaseId ?? '') || isPlaceholder(databaseId)) throw new Error(`not a D1 database id: ${databaseId}`);
  if (portalOrigin !== '' && !PORTAL_ORIGIN.test(portalOrigin)) {
    throw new Error(`not a portal origin: ${portalOrigin} (https://host[:port], lowercase, no path: passkeys are bound to its host)`);
  }
  const vars = { ...PRODUCTION_VARS, HEXRISK_PORTAL_ORIGIN: portalOrigin };
  const { lines, entries } = scanToml(sourceText);
  const out = [...lines];
  const store = keyStoreBlock(entries);
  const idEntry = entries.find((e) => e.table === 'd1_databases' && e.block === store && e.key === 'database_id');
  if (store < 0 || !idEntry) throw new Error(`${path.basename(sourcePath)} has no database_id for the D1 database ${D1_DATABASE_NAME}`);
  const replaceValue = (entry, value) => {
    const s = entry.strings[0];
    const line = out[entry.line - 1];
    out[entry.line - 1] = line.slice(0, s.start) + tomlString(value) + line.slice(s.end);
  };
  replaceValue(idEntry, databaseId);

  const fromDir = path.dirname(path.resolve(sourcePath));
  const toDir = path.dirname(path.resolve(outPath));
  for (const entry of entries) {
    if (!(PATH_KEYS[entry.table] ?? []).includes(entry.key) || entry.strings.length !== 1) continue;
    const target = path.resolve(fromDir, entry.strings[0].value);
    replaceValue(entry, path.relative(toDir, target).split(path.sep).join('/') || '.');
  }

  const varsHeader = lines.findIndex((l) => /^\s*\[vars\]\s*(#.*)?$/.test(l));
  if (varsHeader < 0) throw new Error(`${path.basename(sourcePath)} has no [vars] table`);
  const missing = [];
  for (const [name, value] of Object.entries(vars)) {
    const entry = entries.find((e) => e.table === 'vars' && e.key === name && e.strings.length === 1);
    if (entry) replaceValue(entry, value);
    else missing.push(`${name} = ${tomlString(value)}`);
  }
  out.splice(varsHeader + 1, 0, ...missing);

  const banner = [
    `# Generated by scripts/deploy-config.mjs from ${path.relative(toDir, path.resolve(sourcePath)).split(path.sep).join('/')}`,
    `# on ${now.toISOString()} for \`make deploy\`: the real D1 database id, production vars,`,
    '# paths relative to this folder. Do not edit or commit; edit the source and deploy again.',
  ];
  const text = [...banner, ...out].join('\n');
  const left = findPlaceholders(text);
  if (left.length) throw new Error(`the deploy config still holds placeholders: ${left.map((p) => `${p.key} = "${p.value}"`).join(', ')}`);
  return text;
}

/** Writes the deploy config; resolves to its path. */
export function writeDeployConfig({ databaseId, portalOrigin, sourcePath = SOURCE_CONFIG, outPath = DEPLOY_CONFIG, now } = {}) {
  const text = deployConfigText(readFileSync(sourcePath, 'utf8'), { databaseId, portalOrigin, sourcePath, outPath, now });
  mkdirSync(path.dirname(outPath), { recursive: true });
  writeFileSync(outPath, text);
  return outPath;
}

/** The `bucket_name` of every [[r2_buckets]] block. */
export function r2BucketNames(text) {
  return scanToml(text).entries.filter((e) => e.table === 'r2_buckets' && e.key === 'bucket_name').map((e) => e.strings[0]?.value).filter(Boolean);
}

/** The uuid of database `name` in the JSON of `wrangler d1 list --json`, or null. */
export function d1UuidFromList(json, name) {
  const list = JSON.parse(json);
  if (!Array.isArray(list)) throw new Error('wrangler d1 list --json did not print a list');
  const found = list.filter((db) => db?.name === name);
  if (found.length > 1) throw new Error(`${found.length} D1 databases are named ${name}`);
  const uuid = found[0]?.uuid ?? null;
  if (uuid !== null && !UUID.test(uuid)) throw new Error(`D1 database ${name} has an unexpected uuid: ${uuid}`);
  return uuid;
}

/** Whether `wrangler r2 bucket list` (its "name: ..." lines) lists bucket `name`. */
export function r2ListHas(output, name) {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').some((line) => line.match(/^\s*name:\s+(\S+)\s*$/)?.[1] === name);
}

function option(args, flag, fallback) {
  const i = args.indexOf(flag);
  if (i < 0) return fallback;
  if (i + 1 >= args.length) throw new Error(`${flag} needs a value`);
  return args[i + 1];
}

async function stdin() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...args] = process.argv.slice(2);
  try {
    const config = path.resolve(option(args, '--config', SOURCE_CONFIG));
    if (command === 'check') {
      const problems = checkConfigText(readFileSync(config, 'utf8'));
      const shown = path.relative(process.cwd(), config) || config;
      if (problems.length) {
        console.error(`${shown}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
        process.exit(1);
      }
      const replaced = findPlaceholders(readFileSync(config, 'utf8')).filter((p) => p.replacedByDeploy);
      console.log(`${shown}: no placeholder left that deploy would not replace${replaced.length ? ` (deploy replaces ${replaced.map((p) => `${p.key} "${p.value}" on line ${p.line}`).join(', ')})` : ''}`);
    } else if (command === 'write') {
      const out = writeDeployConfig({
        databaseId: option(args, '--database-id'), portalOrigin: option(args, '--portal-origin', ''),
        sourcePath: config, outPath: path.resolve(option(args, '--out', DEPLOY_CONFIG)),
      });
      console.log(out);
    } else if (command === 'r2-buckets') {
      for (const name of r2BucketNames(readFileSync(config, 'utf8'))) console.log(name);
    } else if (command === 'd1-uuid') {
      if (!args[0]) throw new Error('d1-uuid needs a database name');
      const uuid = d1UuidFromList(await stdin(), args[0]);
      if (uuid) console.log(uuid);
    } else if (command === 'r2-has') {
      if (!args[0]) throw new Error('r2-has needs a bucket name');
      process.exit(r2ListHas(await stdin(), args[0]) ? 0 : 1);
    } else {
      throw new Error('usage: deploy-config.mjs check|write|r2-buckets|d1-uuid|r2-has [options]');
    }
  } catch (err) {
    console.error(`deploy-config: ${err.message}`);
    process.exit(2);
  }
}

