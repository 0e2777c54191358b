// The operator's command line: issues, revokes and lists hexrisk API keys in the
// Worker's key store (D1), and decides the partner portal's accounts.
//
//   node scripts/operator.mjs issue --kind sandbox|live [--tier sandbox|partner|enterprise]
//        [--limit N] [--origin URL]... [--label TEXT] [--issued-at ISO]
//   node scripts/operator.mjs revoke --id ID | --key KEY
//   node scripts/operator.mjs list
//   node scripts/operator.mjs partners                      the partner portal's accounts
//   node scripts/operator.mjs approve|reject|suspend --partner ID
//   node scripts/operator.mjs tier --partner ID --tier sandbox|partner|enterprise [--limit N]
//   node scripts/operator.mjs enrol --partner ID [--hours N] [--portal URL]
//        prints a one-time link that registers a passkey for the account (recovery)
//   node scripts/operator.mjs operator --email ADDRESS [--portal URL]
//        the operator's account (made if there is none with that email) and its link
//
// Only the SHA-256 digest of a key is stored; the key itself is printed once. The
// Worker's key gates reread a key's row at most every HEXRISK_KEY_RECORD_TTL_SECONDS
// (60 s), so a revocation takes effect within that time.
// Works on the local store of `wrangler dev --persist-to $HEXRISK_STATE`
// (default .state/wrangler); pass --remote to act on the deployed database, through the
// config `make deploy` writes (build/wrangler.deploy.toml, or --config FILE): the committed
// wrangler.toml holds a placeholder database id.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_STATE = path.join(root, '.state/wrangler');
export const DEPLOY_CONFIG = path.join(root, 'build/wrangler.deploy.toml');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Daily request limits by tier, for the keys issued here. The partner portal makes keys
// with `Tier::default_limit` (edge-worker/src/api/access/keys.rs); tests/api/portal.test.mjs
// checks that the two agree. Each key's record stores its limit, which the Worker
// enforces; enterprise keys need --limit.
export const TIER_LIMITS = { sandbox: 100, partner: 10000 };
const SANDBOX_LIFETIME_MS = 30 * 24 * 3600 * 1000;

/** 32 base62 characters from the CSPRNG, without modulo bias (about 190 bits). */
export function randomSecret(length = 32) {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function digest(key) {
  return createHash('sha256').update(key).digest('hex');
}

function sqlString(value) {
  return value === null || value === undefined ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`;
}

async function d1(sql, { stateDir = DEFAULT_STATE, remote = false, config } = {}) {
  const bin = path.join(root, 'node_modules/.bin');
  const where = remote ? ['--remote'] : ['--local', '--persist-to', stateDir];
  if (config) where.push('-c', config);
  const { stdout } = await run(path.join(bin, 'wrangler'), ['d1', 'execute', 'hexrisk-keys', ...where, '--json', '--command', sql], {
    cwd: path.join(root, 'edge-worker'),
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    maxBuffer: 16 << 20,
  });
  return JSON.parse(stdout);
}

/** Creates the key table if needed (the migration in edge-worker/migrations). */
export async function applyMigrations({ stateDir = DEFAULT_STATE } = {}) {
  const bin = path.join(root, 'node_modules/.bin');
  await run(path.join(bin, 'wrangler'), ['d1', 'migrations', 'apply', 'hexrisk-keys', '--local', '--persist-to', stateDir], {
    cwd: path.join(root, 'edge-worker'),
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: 'true' },
  });
}

/**
 * A new key's record and the statement that stores it, after checking `options` (see
 * `issueKey`); throws on an option no key may have.
 */
function newKey({ kind, tier, dailyLimit, origins = [], label = '', issuedAt = new Date() } = {}) {
  if (!['sandbox', 'live'].includes(kind)) throw new Error('kind must be sandbox or live');
  tier ??= kind === 'sandbox' ? 'sandbox' : 'partner';
  if (!['sandbox', 'partner', 'enterprise'].includes(tier)) throw new Error('tier must be sandbox, partner or enterprise');
  if (kind === 'sandbox' && tier !== 'sandbox') throw new Error('sandbox keys have the sandbox tier');
  const limit = dailyLimit ?? TIER_LIMITS[tier];
  if (!Number.isInteger(limit) || limit < 0) throw new Error('enterprise keys need --limit N (a whole number)');
  for (const origin of origins) {
    if (!/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/.test(origin)) throw new Error(`not an origin: ${origin}`);
  }
  const key = `hexrisk_${kind}_${randomSecret()}`;
  const id = randomUUID();
  const issued = new Date(issuedAt);
  const expiresAt = kind === 'sandbox' ? new Date(issued.getTime() + SANDBOX_LIFETIME_MS).toISOString() : null;
  const insert = `INSERT INTO api_keys (id, digest, kind, tier, daily_limit, issued_at, expires_at, revoked_at, origins, label) VALUES (${[
    id, digest(key), kind, tier, limit, issued.toISOString(), expiresAt, null, JSON.stringify(origins), label,
  ].map((v) => (typeof v === 'number' ? String(v) : sqlString(v))).join(', ')})`;
  return { record: { key, id, kind, tier, dailyLimit: limit, expiresAt, origins }, insert };
}

/**
 * Issues a key; resolves to `{ key, id, kind, tier, dailyLimit, expiresAt, origins }`.
 * Options: `kind` (sandbox or live), `tier`, `dailyLimit`, `origins`, `label`,
 * `issuedAt`, and where the store is (`stateDir`, or `remote` with `config`).
 */
export async function issueKey(options = {}) {
  const [record] = await issueKeys([options], options);
  return record;
}

/**
 * Issues one key per entry of `specs` (`issueKey`'s options) in one statement batch,
 * into the store the options name (one wrangler start instead of one per key). Every
 * entry is checked before any is stored. Resolves to their records, in order.
 */
export async function issueKeys(specs, { stateDir, remote, config } = {}) {
  const made = specs.map(newKey);
  if (made.length) await d1(made.map((k) => k.insert).join('; '), { stateDir, remote, config });
  return made.map((k) => k.record);
}

/** Revokes a key by id or by the key itself; effective on the next request. */
export async function revokeKey({ id, key, stateDir, remote, config } = {}) {
  const where = id ? `id = ${sqlString(id)}` : `digest = ${sqlString(digest(key))}`;
  const result = await d1(`UPDATE api_keys SET revoked_at = ${sqlString(new Date().toISOString())} WHERE ${where} AND revoked_at IS NULL`, { stateDir, remote, config });
  return result[0]?.meta?.changes ?? 0;
}

export async function listKeys({ stateDir, remote, config } = {}) {
  const result = await d1('SELECT id, kind, tier, daily_limit, issued_at, expires_at, revoked_at, origins, label FROM api_keys ORDER BY issued_at', { stateDir, remote, config });
  return result[0]?.results ?? [];
}

/** The partner portal's accounts (docs/PORTAL.md), oldest first. */
export async function listPartners({ stateDir, remote, config } = {}) {
  const result = await d1('SELECT id, organisation, email, intended_use, status, role, created_at FROM partners ORDER BY created_at', { stateDir, remote, config });
  return result[0]?.results ?? [];
}

// What each operator decision may change: from which statuses to which (as the
// portal's own, edge-worker/src/api/portal/operator.rs; tests/api/portal.test.mjs
// checks that they agree).
/** The statuses that end an account's sessions and refuse its sign-ins. */
const SIGNED_OUT = ['suspended', 'rejected'];
export const DECISIONS = { approve: { to: 'approved', from: ['applied', 'suspended'] }, reject: { to: 'rejected', from: ['applied'] }, suspend: { to: 'suspended', from: ['approved'] } };

/**
 * The operator's decision on an account (approve, reject or suspend), written with its
 * audit line in one batch; resolves to the number of accounts changed (0 when the
 * account is not in a status the decision applies to).
 */
export async function decidePartner({ partner, decision, stateDir, remote, config } = {}) {
  const rule = DECISIONS[decision];
  if (!rule) throw new Error(`unknown decision ${decision}`);
  if (!partner) throw new Error(`${decision} needs --partner ID`);
  const from = rule.from.map(sqlString).join(', ');
  const at = sqlString(new Date().toISOString());
  const result = await d1(
    `UPDATE partners SET status = ${sqlString(rule.to)} WHERE id = ${sqlString(partner)} AND status IN (${from}) RETURNING id; `
    + `INSERT INTO audit_log (at, partner_id, actor, action, subject, address) SELECT ${at}, ${sqlString(partner)}, 'operator-cli', ${sqlString(rule.to)}, NULL, NULL WHERE changes() > 0;`
    // A suspended or rejected account is signed out everywhere at once, as the
    // portal's own decision does (docs/PORTAL.md).
    + (SIGNED_OUT.includes(rule.to)
      ? ` UPDATE sessions SET ended_at = ${at} WHERE partner_id = ${sqlString(partner)} AND ended_at IS NULL;`
      : ''),
    { stateDir, remote, config },
  );
  // A batch reports no change counts: the update returns the row it changed.
  return result[0]?.results?.length ?? 0;
}

/**
 * Sets the tier of an account's live keys (enterprise with its agreed `dailyLimit`);
 * keys made afterwards get it. Resolves to the number of accounts changed.
 */
export async function setPartnerTier({ partner, tier, dailyLimit, stateDir, remote, config } = {}) {
  if (!partner) throw new Error('tier needs --partner ID');
  if (!(tier in TIER_LIMITS) && tier !== 'enterprise') throw new Error('tier must be sandbox, partner or enterprise');
  const limit = tier === 'enterprise' ? dailyLimit : null;
  if (tier === 'enterprise' && !(Number.isInteger(limit) && limit >= 0)) throw new Error('the enterprise tier needs --limit N (a whole number)');
  const at = sqlString(new Date().toISOString());
  const result = await d1(
    `UPDATE partners SET tier = ${sqlString(tier)}, daily_limit = ${limit === null ? 'NULL' : String(limit)} WHERE id = ${sqlString(partner)} RETURNING id; `
    + `INSERT INTO audit_log (at, partner_id, actor, action, subject, address) SELECT ${at}, ${sqlString(partner)}, 'operator-cli', 'tier_set', ${sqlString(tier)}, NULL WHERE changes() > 0;`,
    { stateDir, remote, config },
  );
  return result[0]?.results?.length ?? 0;
}

/** How long an enrolment link works, by default. */
export const ENROLMENT_HOURS = 24;

/** The portal's origin for printed links: HEXRISK_PORTAL_ORIGIN, or make run's. */
function portalOrigin(portal) {
  return (portal ?? process.env.HEXRISK_PORTAL_ORIGIN ?? `http://localhost:${process.env.PORT ?? 8787}`).replace(/\/$/, '');
}

/**
 * A one-time link that registers a passkey for the account `partner` within `hours`:
 * the secret goes in the URL fragment (no server sees it in a request line), the store
 * keeps its digest. Resolves to `{ link, expiresAt }`.
 */
export async function enrolmentLink({ partner, hours = ENROLMENT_HOURS, portal, stateDir, remote, config } = {}) {
  if (!partner) throw new Error('enrol needs --partner ID');
  if (!(Number.isFinite(hours) && hours > 0 && hours <= 168)) throw new Error('--hours must be more than 0 and at most 168');
  const token = randomSecret(43);
  const expiresAt = new Date(Date.now() + hours * 3600e3).toISOString();
  const at = sqlString(new Date().toISOString());
  const result = await d1(
    `INSERT INTO enrolments (digest, partner_id, expires_at, used_at) SELECT ${sqlString(digest(token))}, id, ${sqlString(expiresAt)}, NULL FROM partners WHERE id = ${sqlString(partner)} RETURNING partner_id; `
    + `INSERT INTO audit_log (at, partner_id, actor, action, subject, address) SELECT ${at}, ${sqlString(partner)}, 'operator-cli', 'enrolment_link_made', NULL, NULL WHERE changes() > 0;`,
    { stateDir, remote, config },
  );
  if ((result[0]?.results?.length ?? 0) === 0) throw new Error(`no account ${partner}`);
  return { link: `${portalOrigin(portal)}/portal/#enrol=${token}`, expiresAt };
}

/**
 * The operator's account for `email` (made, approved and with the operator role if
 * there is none) and a fresh enrolment link for it: `{ id, link, expiresAt }`.
 */
export async function operatorAccount({ email, portal, stateDir, remote, config } = {}) {
  if (!email) throw new Error('operator needs --email ADDRESS');
  const found = await d1(`SELECT id FROM partners WHERE role = 'operator' AND email = ${sqlString(email)}`, { stateDir, remote, config });
  let id = found[0]?.results?.[0]?.id;
  if (!id) {
    id = randomBytes(16).toString('hex');
    await d1(
      `INSERT INTO partners (id, user_handle, organisation, email, intended_use, status, role, tier, daily_limit, created_at) VALUES (${[
        id, randomBytes(32).toString('hex'), 'hexrisk operator', email, 'operating the service', 'approved', 'operator', 'sandbox',
      ].map(sqlString).join(', ')}, NULL, ${sqlString(new Date().toISOString())})`,
      { stateDir, remote, config },
    );
  }
  return { id, ...(await enrolmentLink({ partner: id, portal, stateDir, remote, config })) };
}

function parseArgs(argv) {
  const args = { origins: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () => { i += 1; if (i >= argv.length) throw new Error(`${flag} needs a value`); return argv[i]; };
    switch (flag) {
      case '--kind': args.kind = value(); break;
      case '--tier': args.tier = value(); break;
      case '--limit': args.dailyLimit = Number(value()); break;
      case '--origin': args.origins.push(value()); break;
      case '--label': args.label = value(); break;
      case '--issued-at': args.issuedAt = value(); break;
      case '--id': args.id = value(); break;
      case '--key': args.key = value(); break;
      case '--partner': args.partner = value(); break;
      case '--hours': args.hours = Number(value()); break;
      case '--portal': args.portal = value(); break;
      case '--email': args.email = value(); break;
      case '--state': args.stateDir = value(); break;
      case '--remote': args.remote = true; break;
      case '--config': args.config = path.resolve(value()); break;
      default: throw new Error(`unknown option ${flag}`);
    }
  }
  args.stateDir ??= process.env.HEXRISK_STATE ?? DEFAULT_STATE;
  if (args.remote) {
    args.config ??= DEPLOY_CONFIG;
    if (!existsSync(args.config)) throw new Error(`--remote needs the deploy config ${path.relative(process.cwd(), args.config)}: run make deploy first, or pass --config FILE`);
  }
  return args;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...rest] = process.argv.slice(2);
  try {
    const args = parseArgs(rest);
    if (!args.remote) await applyMigrations(args);
    if (command === 'issue') {
      const issued = await issueKey(args);
      console.log(JSON.stringify(issued, null, 2));
    } else if (command === 'revoke') {
      if (!args.id && !args.key) throw new Error('revoke needs --id or --key');
      console.log(`revoked ${await revokeKey(args)} key(s); refused within HEXRISK_KEY_RECORD_TTL_SECONDS (60 s by default) of now`);
    } else if (command === 'list') {
      console.table(await listKeys(args));
    } else if (command === 'partners') {
      console.table(await listPartners(args));
    } else if (command === 'enrol') {
      const { link, expiresAt } = await enrolmentLink(args);
      console.log(`${link}\n(one passkey, until ${expiresAt}; the link is shown once)`);
    } else if (command === 'operator') {
      const { id, link, expiresAt } = await operatorAccount(args);
      console.log(`operator account ${id}: register a passkey at\n${link}\n(until ${expiresAt})`);
    } else if (command === 'tier') {
      if (await setPartnerTier(args) === 0) throw new Error(`no account ${args.partner}`);
      console.log(`${args.partner}: tier ${args.tier}`);
    } else if (command in DECISIONS) {
      const changed = await decidePartner({ ...args, decision: command });
      if (changed === 0) throw new Error(`no account ${args.partner} that can be ${DECISIONS[command].to}`);
      console.log(`${args.partner}: ${DECISIONS[command].to}`);
    } else {
      throw new Error('usage: operator.mjs issue|revoke|list|partners|approve|reject|suspend|tier|enrol|operator [options]');
    }
  } catch (err) {
    console.error(`keys: ${err.message}`);
    process.exit(2);
  }
}
