/**
 * A JSON document in Redis with optimistic concurrency (issue 14): the keys document
 * (keys, requests, and what the accounts work adds) or the reviews, stored as ONE value
 * beside a version number, so a pure transition `(doc) => doc'` runs unchanged whether the
 * document lives in a file under a lock or here.
 *
 * `update(fn)` reads the document and its version, applies `fn` to a private copy, and
 * writes it back with a Lua compare-and-set that succeeds only if the version is still the
 * one read (then increments it); on a conflict it reads again and re-applies `fn`, so
 * parallel writers on any machines all land and none is lost (tested with parallel
 * updaters). `fn` may run more than once: it must be a pure function of the document.
 * Readers poll `version()` (one small GET) to know when to re-read.
 */
/** What this needs of a node-redis client (any RESP version or modules). */
interface Client {
  sendCommand(args: string[]): Promise<unknown>;
}

const READ = `return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}`;

// KEYS[3], when given, is a list the write appends ARGV[3..] to in the same step (the audit
// log: a transition and its events land together or not at all). Every write PUBLISHes the
// new version on `<KEYS[1]>:changed`, so servers re-read at once (redis-sync.ts).
const CAS = `
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v ~= tonumber(ARGV[1]) then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
if KEYS[3] then
  for i = 3, #ARGV do redis.call('RPUSH', KEYS[3], ARGV[i]) end
end
local n = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', KEYS[1] .. ':changed', tostring(n))
return n
`;

export class RedisConflict extends Error {}

/** What one attempt of a change decides: the next document (none: nothing is written), its result and log lines. */
type Step<T, R> = { next?: T; result: R; log?: string[] };

export class RedisDoc<T> {
  constructor(private client: Client, readonly name: string, private empty: () => T, private maxRetries = 50) {}

  private get keys() {
    return [`almanac:doc:${this.name}`, `almanac:doc:${this.name}:v`];
  }

  /** The channel every write publishes its new version on. */
  get channel(): string {
    return `almanac:doc:${this.name}:changed`;
  }

  /** The list `change` appends log lines to (the audit log of the keys document). */
  get logKey(): string {
    return `almanac:doc:${this.name}:log`;
  }

  /** The whole log, oldest first. */
  async log(): Promise<string[]> {
    return (await this.client.sendCommand(['LRANGE', this.logKey, '0', '-1'])) as string[];
  }

  /** The version (0 before the first write): changes with every successful update. */
  async version(): Promise<number> {
    return Number((await this.client.sendCommand(['GET', this.keys[1]])) ?? 0);
  }

  /** The document and its version, read together (one script: never a document of one version with another's number). */
  async read(): Promise<{ doc: T; version: number }> {
    const [text, v] = (await this.client.sendCommand(['EVAL', READ, '2', ...this.keys])) as [string | null, string | null];
    return { doc: text ? JSON.parse(text) : this.empty(), version: Number(v ?? 0) };
  }

  /**
   * KeyStore.mutate's shape: `fn` changes the document in place and returns a result.
   * Returns the result with the document and version written.
   */
  update<R>(fn: (doc: T) => R): Promise<{ result: R; doc: T; version: number }> {
    return this.write((doc) => {
      const result = fn(doc);
      return { next: doc, result };
    });
  }

  /** A pure transition `(doc) => doc'` (the accounts work's shape). */
  async transition(fn: (doc: T) => T): Promise<{ doc: T; version: number }> {
    const { doc, version } = await this.write((d) => ({ next: fn(d), result: undefined }));
    return { doc, version };
  }

  /**
   * The general form: `step` returns the next document (or none: nothing is written, as for
   * a read-only command) and log lines appended to `logKey` in the same compare-and-set.
   * `expect`, when given, is the version the document must be at (0: only if absent).
   */
  change<R>(step: (doc: T, version: number) => Step<T, R> | Promise<Step<T, R>>, expect?: number): Promise<{ result: R; doc: T; version: number; written: boolean }> {
    return this.write(step, expect);
  }

  private async write<R>(step: (doc: T, version: number) => Step<T, R> | Promise<Step<T, R>>, expect?: number): Promise<{ result: R; doc: T; version: number; written: boolean }> {
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const { doc, version } = await this.read();
      if (expect !== undefined && version !== expect) return { result: undefined as R, doc, version, written: false };
      // A step may read (the review command checks a token against the release) before it decides.
      const { next, result, log = [] } = await step(doc, version);
      if (next === undefined) return { result, doc, version, written: false };
      const keys = log.length ? ['3', ...this.keys, this.logKey] : ['2', ...this.keys];
      const written = Number(await this.client.sendCommand(['EVAL', CAS, ...keys, String(version), JSON.stringify(next), ...log]));
      if (written !== -1) return { result, doc: next, version: written, written: true };
      if (expect !== undefined) return { result, doc, version: written, written: false };
      // Someone else wrote in between: read again and re-apply (jittered, so writers spread out).
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
    throw new RedisConflict(`${this.name}: ${this.maxRetries} conflicting writers in a row; try again`);
  }
}
