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

const CAS = `
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v ~= tonumber(ARGV[1]) then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
return redis.call('INCR', KEYS[2])
`;

export class RedisConflict extends Error {}

export class RedisDoc<T> {
  constructor(private client: Client, readonly name: string, private empty: () => T, private maxRetries = 50) {}

  private get keys() {
    return [`almanac:doc:${this.name}`, `almanac:doc:${this.name}:v`];
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

  private async write<R>(step: (doc: T) => { next: T; result: R }): Promise<{ result: R; doc: T; version: number }> {
    for (let attempt = 0; attempt < this.maxRetries; attempt++) {
      const { doc, version } = await this.read();
      const { next, result } = step(doc);
      const written = Number(await this.client.sendCommand(['EVAL', CAS, '2', ...this.keys, String(version), JSON.stringify(next)]));
      if (written !== -1) return { result, doc: next, version: written };
      // Someone else wrote in between: read again and re-apply (jittered, so writers spread out).
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
    throw new RedisConflict(`${this.name}: ${this.maxRetries} conflicting writers in a row; try again`);
  }
}
