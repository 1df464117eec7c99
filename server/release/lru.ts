/**
 * The byte-budgeted LRU behind the release's shard cache, the response cache and the study
 * panel cache: one map, least recently used first, evicting until the budget holds.
 */
/** A byte-budgeted LRU; Map iteration order is insertion order, so the first entry is the oldest. */
export class Lru<V> {
  /** Bytes held; exposed for tests. */
  get bytes() {
    return this.used;
  }
  private map = new Map<string, { v: V; size: number }>();
  private used = 0;
  constructor(private budget: number) {}
  /** Keys and counted sizes, least recently used first (tests, benches). */
  entries(): { key: string; size: number }[] {
    return [...this.map].map(([key, e]) => ({ key, size: e.size }));
  }
  get(k: string): V | undefined {
    const e = this.map.get(k);
    if (!e) return undefined;
    this.map.delete(k);
    this.map.set(k, e);
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
    this.map.set(k, { v, size });
    this.used += size;
    for (const [key, e] of this.map) {
      if (this.used <= this.budget) break;
      this.map.delete(key);
      this.used -= e.size;
    }
  }
}
