/**
 * The keys document (state/accounts.ts) in one small JSON file under ALMANAC_STATE_DIR,
 * and the one place that reads and writes it. Keys are stored only as sha256 hashes (a
 * key is 192 random bits, so a plain hash is enough — no salt or slow KDF needed) and
 * compared in constant time. Every transition (state/transitions.ts) runs on a fresh
 * copy under keys.lock (state/lock.ts) and the file is replaced atomically, then its
 * audit events are appended (state/audit.ts), so parallel runs lose nothing; the server
 * stats it before the first authentication of each event-loop turn and re-reads it when
 * it changed, so a new key works and a revoke applies from the next turn. A bad file is refused at startup
 * and, while running, reported once with the last good copy kept serving (issue 9).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { writeFileDurable } from './atomic.ts';
import { appendAudit, lastAuditRev, readAudit } from './audit.ts';
import { accessOf, emptyDoc, parseKeyFile, KeyFileError, KEY_ID, type Access, type AuditEvent, type KeyDoc, type KeyRecord, type KeyRequest } from './accounts.ts';
import { withLock } from './lock.ts';
import { isPlan, type PlanName } from './plans.ts';
import * as T from './transitions.ts';

export { KeyFileError, parseKeyFile };
export type { KeyRecord, KeyRequest };

/** Who runs the tools, for the audit log: `--by`, else the OS user. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

export interface KeyStoreOptions {
  /** The clock of transitions and access checks (tests move it). */
  now?: () => number;
  /** Milliseconds between two checks of keys.json by a running server (default 1000; 0: once per event-loop turn, for tests of CLI flows). */
  checkMs?: number;
  /**
   * The document is held elsewhere (Redis, state/redis-state.ts): never read keys.json;
   * `adopt` sets the copy in memory and `run` applies a transition to it and leaves the
   * result in `pending` for the caller to write.
   */
  external?: boolean;
}

export class KeyStore {
  readonly file: string;
  readonly lockFile: string;
  readonly auditFile: string;
  /** Recorded as `by` in the audit log. */
  actor = osUser();
  readonly now: () => number;
  private data: KeyDoc = emptyDoc();
  private byHash = new Map<string, { rec: KeyRecord; digest: Buffer }>();
  /**
   * Presented secret → its record, so the same key is not hashed on every request
   * (SHA-256 was 3.6 µs of ~48 µs per request, issue 14). Only keys that verified are
   * kept, so unknown keys cannot evict real ones; bounded (the oldest goes first) and
   * emptied whenever keys.json is re-read, so a revoke or plan change found by the
   * per-turn stat applies from the next event-loop turn.
   */
  private known = new Map<string, KeyRecord>();
  static readonly KNOWN_MAX = 10_000;
  /** inode, mtime and size of the copy in memory: an atomic replace always changes the inode. */
  private seen = '';
  private reported = '';
  private readonly external: boolean;
  /** External mode: the document a transition produced, for the caller to write (with its events). */
  pending: KeyDoc | undefined;
  /** External mode: the audit log as read from where the document lives. */
  auditEvents: AuditEvent[] | undefined;

  constructor(readonly dir: string, private log: (msg: string) => void = (m) => console.error(m), opts: KeyStoreOptions = {}) {
    mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, 'keys.json');
    this.lockFile = path.join(dir, 'keys.lock');
    this.auditFile = path.join(dir, 'audit.log');
    this.now = opts.now ?? Date.now;
    this.checkMs = opts.checkMs ?? KeyStore.CHECK_MS;
    this.external = !!opts.external;
    if (this.external) return;
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
    if (this.external) return;
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
      this.data = sig === 'absent' ? emptyDoc() : parseKeyFile(readFileSync(this.file, 'utf8'), this.file);
    } catch (err) {
      if (strict || !(err instanceof KeyFileError)) throw err;
      if (this.reported !== sig) this.log(`keys reload skipped, still serving the last good keys: ${err.message}`);
      this.reported = sig;
      return;
    }
    this.index();
    this.seen = sig;
    this.reported = '';
  }

  private index() {
    this.byHash = new Map(Object.values(this.data.keys).map((k) => [k.hash, { rec: k, digest: Buffer.from(k.hash, 'hex') }]));
    this.known.clear();
  }

  /** Cleared by the first check after a second, set again by that check's timer. */
  private checkedRecently = false;
  private readonly endWait = () => { this.checkedRecently = false; };

  /**
   * `reload()` at most once a second: the server's check before each authentication. A
   * stat per event-loop turn was 3.5 % of a busy server's CPU (issue 41; one turn holds only
   * a few requests when the lanes are full), and a revoke by the CLI needs no faster
   * answer than the second it already had (docs/operations.md). A key created a moment ago
   * still works at once: verify() re-reads keys.json for a key it does not know.
   */
  reloadEachSecond() {
    if (this.checkedRecently) return;
    this.checkedRecently = true;
    if (this.checkMs > 0) setTimeout(this.endWait, this.checkMs).unref();
    else setImmediate(this.endWait);
    this.reload();
  }
  static readonly CHECK_MS = 1000;
  private readonly checkMs: number;

  /** External mode: serve this document from now on (a revoke in it applies to the next request). */
  adopt(doc: KeyDoc) {
    this.data = doc;
    this.index();
  }

  /** The audit log, oldest first (keys.json's audit.log, or what the external store gave). */
  audit(): { events: AuditEvent[]; skipped: number } {
    return this.auditEvents ? { events: this.auditEvents, skipped: 0 } : readAudit(this.auditFile);
  }

  /** Settles the document, applies `fn` and stamps rev and last_events: the part of a transition every store shares. */
  private apply<R>(doc: KeyDoc, fn: (doc: KeyDoc, tx: T.Tx) => R): R {
    const tx: T.Tx = { now: this.now(), by: this.actor, events: [] };
    // rev 0 with keys: read from a version-1 file; the first write saves it as version 2.
    if (doc.rev === 0 && Object.keys(doc.keys).length) tx.events.push({ what: 'document.migrate', from_version: 1, keys: Object.keys(doc.keys).length });
    T.settle(doc, tx.now);
    const out = fn(doc, tx);
    doc.rev += 1;
    const at = new Date(tx.now).toISOString();
    doc.last_events = tx.events.map((e) => ({ rev: doc.rev, at, by: tx.by, ...e }));
    return out;
  }

  /**
   * One transition: under keys.lock, on a private copy of the file as it is now; the
   * file is replaced atomically and the events appended to the audit log. A transition
   * that throws leaves both untouched.
   */
  run<R>(fn: (doc: KeyDoc, tx: T.Tx) => R): R {
    if (this.external) {
      const doc = structuredClone(this.data);
      const out = this.apply(doc, fn);
      this.pending = doc;
      this.adopt(doc);
      return out;
    }
    return withLock(this.lockFile, () => {
      this.seen = '';
      this.reload(true);
      const doc = structuredClone(this.data);
      // A crash after the last replace but before its audit append: log those events now.
      if (doc.last_events?.length && lastAuditRev(this.auditFile) < doc.rev) appendAudit(this.auditFile, doc.last_events);
      const out = this.apply(doc, fn);
      writeFileDurable(this.file, JSON.stringify(doc, null, 1) + '\n');
      appendAudit(this.auditFile, doc.last_events ?? []);
      this.seen = '';
      this.reload(true);
      return out;
    });
  }

  /** The document as last read (re-read if the file changed). Callers must not change it. */
  doc(): KeyDoc {
    this.reload();
    return this.data;
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

  /** Whether the key may be served now and with which limits (state/accounts.ts `accessOf`). */
  access(rec: KeyRecord, now = this.now()): Access {
    return accessOf(this.data, rec, now);
  }

  /** A key in an account and project of its own, subscribed to `plan` (development: an exception). */
  create(plan: PlanName, label = ''): T.Issued {
    if (!isPlan(plan)) throw new Error(`unknown plan '${plan}'`);
    return this.run((doc, tx) => T.quickCreate(doc, tx, { plan, label }));
  }

  request(label: string, contact = '', more: { account_name?: string; use?: string } = {}): KeyRequest {
    return this.run((doc, tx) => T.request(doc, tx, { label, contact, ...more }));
  }

  /** Approves with a plan (a subscription) or an exception; returns the key, shown once. */
  approve(requestId: string, with_: PlanName | { reason: string; ends_at?: string; limits?: PlanName }, account?: string): T.Issued {
    return this.run((doc, tx) => T.approve(doc, tx, typeof with_ === 'string' ? { request: requestId, plan: with_, account } : { request: requestId, exception: with_, account }));
  }

  /** Finds a key by its public id or by the secret itself. */
  find(idOrSecret: string): KeyRecord | undefined {
    this.reload();
    return this.data.keys[idOrSecret] ?? this.verify(idOrSecret);
  }

  setStatus(idOrSecret: string, status: KeyRecord['status']): KeyRecord {
    return this.run((doc, tx) => {
      const rec = doc.keys[idOrSecret] ?? doc.keys[this.verify(idOrSecret)?.id ?? ''];
      // Never echo what might be a secret, not even part of it: only a key id is safe to print.
      if (!rec) throw new Error(`no key ${KEY_ID.test(idOrSecret) ? `'${idOrSecret}'` : 'matching the given id or secret'} in ${this.file}`);
      return T.setKeyStatus(doc, tx, { key: rec, status });
    });
  }

  keys(): KeyRecord[] {
    return Object.values(this.doc().keys);
  }

  requests(): KeyRequest[] {
    return Object.values(this.doc().requests);
  }
}
