/**
 * The byte-budgeted LRU behind the release's shard cache, the response cache and the study
 * panel cache: one map, least recently used first, evicting until the budget holds.
 */
/**
 * A byte-budgeted LRU; Map iteration order is insertion order, so the first entry is the oldest.
 * A hit moves its entry to the end only when something was inserted since the entry last
 * moved: a delete and a set of the map on every hit were 12 % of a cached lookup's core
 * time (issue 41), and entries touched between two inserts are equally recent for eviction,
 * which only an insert does.
 */
export class Lru<V> {
  /** Bytes held; exposed for tests. */
  get bytes() {
    return this.used;
  }
  private map = new Map<string, { v: V; size: number; gen: number }>();
  private used = 0;
  /** Inserts so far: an entry whose `gen` is this one has not been passed by an insert since it moved. */
  private gen = 0;
  constructor(private budget: number) {}
  /** Keys and counted sizes, least recently used first (tests, benches). */
  entries(): { key: string; size: number }[] {
    return [...this.map].map(([key, e]) => ({ key, size: e.size }));
  }
  get(k: string): V | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    if (e.gen !== this.gen) {
      this.map.delete(k);
      this.map.set(k, e);
      e.gen = this.gen;
    }
    return e.v;
  }
  set(k: string, v: V, size: number) {
    const old = this.map.get(k);
    if (old) {
      // Replacing an entry must not count its old size twice.
      this.map.delete(k);
      this.used -= old.size;
    }
    if (size > this.budget) return;
    this.map.set(k, { v, size, gen: ++this.gen });
    this.used += size;
    for (const [key, e] of this.map) {
      if (this.used <= this.budget) break;
      this.map.delete(key);
      this.used -= e.size;
    }
  }
}
