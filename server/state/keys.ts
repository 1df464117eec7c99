/**
 * Keys and the approval queue, in one small JSON file under ALMANAC_STATE_DIR.
 * Keys are stored only as sha256 hashes (a key is 192 random bits, so a plain hash is
 * enough — no salt or slow KDF needed) and compared in constant time. Writers (the keys
 * CLI) read, modify and replace the file atomically under keys.lock (state/lock.ts), so
 * parallel runs lose nothing; the server stats it before every authentication and re-reads
 * it when it changed, so a new key works and a revoke applies from the next request. A bad
 * file is refused at startup and, while running, reported once with the last good copy
 * kept serving (issue 9, faults 2, 3 and the revoke delay).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { withLock } from './lock.ts';
import { PLANS, isPlan, type PlanName } from './plans.ts';

export interface KeyRecord {
  id: string;
  hash: string;
  plan: PlanName;
  status: 'active' | 'revoked';
  label: string;
  created: string;
  /** Approval request this key was issued for, if any. */
  request?: string;
}

export interface KeyRequest {
  id: string;
  label: string;
  contact: string;
  created: string;
  status: 'pending' | 'approved';
  plan?: PlanName;
  key_id?: string;
}

interface KeyFile {
  keys: Record<string, KeyRecord>;
  requests: Record<string, KeyRequest>;
}

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const newSecret = () => `alm_${randomBytes(24).toString('base64url')}`;
/** Public id of a key: derived from its hash, safe to show and log. */
const keyIdOf = (hash: string) => `key_${hash.slice(0, 12)}`;

/** A keys.json that cannot be trusted; the message names the file and the fault, never its contents. */
export class KeyFileError extends Error {}

const KEY_ID = /^key_[0-9a-f]{12}$/;

/** Parses and checks keys.json; throws KeyFileError naming the file and what is wrong. */
export function parseKeyFile(text: string, file: string): KeyFile {
  const bad = (why: string) => new KeyFileError(`${file}: ${why}; fix the file or restore it from a backup (the server keeps its last good copy)`);
  let data: any;
  try {
    data = JSON.parse(text);
  } catch (err) {
    // JSON.parse quotes the text around the fault, which may hold secrets: keep only the position.
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw bad(`is not valid JSON${at ? ` (at byte ${at})` : ''}`);
  }
  if (!data || typeof data !== 'object' || typeof data.keys !== 'object' || !data.keys || typeof data.requests !== 'object' || !data.requests) {
    throw bad('must be an object with "keys" and "requests" objects');
  }
  for (const [id, k] of Object.entries<any>(data.keys)) {
    const name = KEY_ID.test(id) ? id : 'an entry';
    if (!k || typeof k !== 'object' || k.id !== id || !KEY_ID.test(id)) throw bad(`${name} has an id that does not match its entry`);
    if (typeof k.hash !== 'string' || !/^[0-9a-f]{64}$/.test(k.hash)) throw bad(`key ${id} has no sha256 hash`);
    if (!isPlan(k.plan)) throw bad(`key ${id} has an unknown plan (plans: ${Object.keys(PLANS).join(', ')})`);
    if (k.status !== 'active' && k.status !== 'revoked') throw bad(`key ${id} has status other than active or revoked`);
  }
  for (const [id, r] of Object.entries<any>(data.requests)) {
    if (!r || typeof r !== 'object' || r.id !== id || (r.status !== 'pending' && r.status !== 'approved')) throw bad('a request entry is malformed');
  }
  return data as KeyFile;
}

export class KeyStore {
  readonly file: string;
  readonly lockFile: string;
  private data: KeyFile = { keys: {}, requests: {} };
  private byHash = new Map<string, { rec: KeyRecord; digest: Buffer }>();
  /**
   * Presented secret → its record, so the same key is not hashed on every request
   * (SHA-256 was 3.6 µs of ~48 µs per request, issue 14). Only keys that verified are
   * kept, so unknown keys cannot evict real ones; bounded (the oldest goes first) and
   * emptied whenever keys.json is re-read, so a revoke or plan change found by the
   * per-request stat applies to the very next request as before.
   */
  private known = new Map<string, KeyRecord>();
  static readonly KNOWN_MAX = 10_000;
  /** inode, mtime and size of the copy in memory: an atomic replace always changes the inode. */
  private seen = '';
  private reported = '';

  constructor(readonly dir: string, private log: (msg: string) => void = (m) => console.error(m)) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'keys.json');
    this.lockFile = path.join(dir, 'keys.lock');
    // At startup a bad file is fatal (the error names it); later it is reported and skipped.
    this.reload(true);
  }

  /**
   * Re-reads the file if it changed since the last read (one stat, about 2 µs: the server
   * calls it before every authentication so a revoke applies to the next request). A bad
   * file is reported once per version and the last good copy keeps serving, unless
   * `strict`, when it throws.
   */
  reload(strict = false) {
    let sig: string;
    try {
      const st = statSync(this.file);
      sig = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      sig = 'absent';
    }
    if (sig === this.seen) return;
    try {
      this.data = sig === 'absent' ? { keys: {}, requests: {} } : parseKeyFile(readFileSync(this.file, 'utf8'), this.file);
    } catch (err) {
      if (strict || !(err instanceof KeyFileError)) throw err;
      if (this.reported !== sig) this.log(`keys reload skipped, still serving the last good keys: ${err.message}`);
      this.reported = sig;
      return;
    }
    this.byHash = new Map(Object.values(this.data.keys).map((k) => [k.hash, { rec: k, digest: Buffer.from(k.hash, 'hex') }]));
    this.known.clear();
    this.seen = sig;
    this.reported = '';
  }

  /** One read–modify–write of keys.json under keys.lock, from the file as it is now. */
  private mutate<T>(fn: (data: KeyFile) => T): T {
    return withLock(this.lockFile, () => {
      this.seen = '';
      this.reload(true);
      const out = fn(this.data);
      writeFileDurable(this.file, JSON.stringify(this.data, null, 1) + '\n');
      this.seen = '';
      this.reload(true);
      return out;
    });
  }

  /** The key record a presented secret belongs to, or undefined. */
  verify(secret: string): KeyRecord | undefined {
    if (secret.length < 8 || secret.length > 200) return undefined;
    const cached = this.known.get(secret);
    if (cached) return cached;
    const digest = createHash('sha256').update(secret).digest();
    const hex = digest.toString('hex');
    let entry = this.byHash.get(hex);
    if (!entry) {
      // A key created a moment ago by the CLI should work at once: re-read if the file changed.
      this.reload();
      entry = this.byHash.get(hex);
      if (!entry) return undefined;
    }
    // The map lookup is on a hash of the secret; confirm byte-for-byte in constant time.
    if (!timingSafeEqual(entry.digest, digest)) return undefined;
    if (this.known.size >= KeyStore.KNOWN_MAX) this.known.delete(this.known.keys().next().value!);
    this.known.set(secret, entry.rec);
    return entry.rec;
  }

  create(plan: PlanName, label = '', request?: string): { secret: string; record: KeyRecord } {
    if (!isPlan(plan)) throw new Error(`unknown plan '${plan}'`);
    return this.mutate((data) => this.issue(data, plan, label, request));
  }

  private issue(data: KeyFile, plan: PlanName, label: string, request?: string) {
    const secret = newSecret();
    const hash = hashKey(secret);
    const record: KeyRecord = { id: keyIdOf(hash), hash, plan, status: 'active', label, created: new Date().toISOString() };
    if (request) record.request = request;
    data.keys[record.id] = record;
    return { secret, record };
  }

  request(label: string, contact = ''): KeyRequest {
    return this.mutate((data) => {
      const req: KeyRequest = { id: `req_${randomBytes(6).toString('hex')}`, label, contact, created: new Date().toISOString(), status: 'pending' };
      data.requests[req.id] = req;
      return req;
    });
  }

  approve(requestId: string, plan: PlanName): { secret: string; record: KeyRecord } {
    if (!isPlan(plan)) throw new Error(`unknown plan '${plan}'`);
    return this.mutate((data) => {
      const req = data.requests[requestId];
      if (!req) throw new Error(`no request '${requestId.slice(0, 40)}'`);
      if (req.status !== 'pending') throw new Error(`request '${requestId}' is already ${req.status}`);
      const issued = this.issue(data, plan, req.label, req.id);
      Object.assign(req, { status: 'approved', plan, key_id: issued.record.id });
      return issued;
    });
  }

  /** Finds a key by its public id or by the secret itself. */
  find(idOrSecret: string): KeyRecord | undefined {
    this.reload();
    return this.data.keys[idOrSecret] ?? this.verify(idOrSecret);
  }

  setStatus(idOrSecret: string, status: KeyRecord['status']): KeyRecord {
    return this.mutate((data) => {
      const rec = data.keys[idOrSecret] ?? this.verify(idOrSecret);
      // Never echo what might be a secret, not even part of it: only a key id is safe to print.
      if (!rec) throw new Error(`no key ${KEY_ID.test(idOrSecret) ? `'${idOrSecret}'` : 'matching the given id or secret'} in ${this.file}`);
      data.keys[rec.id].status = status;
      return data.keys[rec.id];
    });
  }

  keys(): KeyRecord[] {
    this.reload();
    return Object.values(this.data.keys);
  }

  requests(): KeyRequest[] {
    this.reload();
    return Object.values(this.data.requests);
  }
}
