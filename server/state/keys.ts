/**
 * Keys and the approval queue, in one small JSON file under ALMANAC_STATE_DIR.
 * Keys are stored only as sha256 hashes (a key is 192 random bits, so a plain hash is
 * enough — no salt or slow KDF needed) and compared in constant time. Writers (the keys
 * CLI) replace the file atomically; the server re-reads it when it changes (checked each
 * second, and at once for an unknown key), so a new key works at once and a revoke takes
 * effect within a second, without a restart.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { isPlan, type PlanName } from './plans.ts';

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

export class KeyStore {
  readonly file: string;
  private data: KeyFile = { keys: {}, requests: {} };
  private byHash = new Map<string, { rec: KeyRecord; digest: Buffer }>();
  private mtime = -1;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'keys.json');
    this.reload();
  }

  /** Re-reads the file if it changed since the last read. Cheap enough to call per second. */
  reload() {
    if (!existsSync(this.file)) return;
    const m = statSync(this.file).mtimeMs;
    if (m === this.mtime) return;
    this.data = JSON.parse(readFileSync(this.file, 'utf8'));
    this.byHash = new Map(Object.values(this.data.keys).map((k) => [k.hash, { rec: k, digest: Buffer.from(k.hash, 'hex') }]));
    this.mtime = m;
  }

  private save() {
    writeFileDurable(this.file, JSON.stringify(this.data, null, 1) + '\n');
    this.mtime = -1;
    this.reload();
  }

  /** The key record a presented secret belongs to, or undefined. */
  verify(secret: string): KeyRecord | undefined {
    if (secret.length < 8 || secret.length > 200) return undefined;
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
    return timingSafeEqual(entry.digest, digest) ? entry.rec : undefined;
  }

  create(plan: PlanName, label = '', request?: string): { secret: string; record: KeyRecord } {
    if (!isPlan(plan)) throw new Error(`unknown plan '${plan}'`);
    this.reload();
    const secret = newSecret();
    const hash = hashKey(secret);
    const record: KeyRecord = { id: keyIdOf(hash), hash, plan, status: 'active', label, created: new Date().toISOString() };
    if (request) record.request = request;
    this.data.keys[record.id] = record;
    this.save();
    return { secret, record };
  }

  request(label: string, contact = ''): KeyRequest {
    this.reload();
    const req: KeyRequest = { id: `req_${randomBytes(6).toString('hex')}`, label, contact, created: new Date().toISOString(), status: 'pending' };
    this.data.requests[req.id] = req;
    this.save();
    return req;
  }

  approve(requestId: string, plan: PlanName): { secret: string; record: KeyRecord } {
    this.reload();
    const req = this.data.requests[requestId];
    if (!req) throw new Error(`no request '${requestId}'`);
    if (req.status !== 'pending') throw new Error(`request '${requestId}' is already ${req.status}`);
    const issued = this.create(plan, req.label, req.id);
    // create() re-read the file, so update the request in the fresh copy.
    Object.assign(this.data.requests[requestId], { status: 'approved', plan, key_id: issued.record.id });
    this.save();
    return issued;
  }

  /** Finds a key by its public id or by the secret itself. */
  find(idOrSecret: string): KeyRecord | undefined {
    this.reload();
    return this.data.keys[idOrSecret] ?? this.verify(idOrSecret);
  }

  setStatus(idOrSecret: string, status: KeyRecord['status']): KeyRecord {
    const rec = this.find(idOrSecret);
    if (!rec) throw new Error(`no key '${idOrSecret.slice(0, 16)}'`);
    this.data.keys[rec.id].status = status;
    this.save();
    return this.data.keys[rec.id];
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
