/**
 * A small in-process cache of a warm function: at most `maxEntries` values, each kept at most
 * `maxAgeMs` after it was stored. When full, the entry stored first goes. A `maxAgeMs` or
 * `maxEntries` of 0 keeps nothing (a cache turned off by configuration). Only values found are
 * kept: a miss is asked again next time (a merchant created a moment later is seen at once).
 */
export class ExpiringCache<K, V> {
  private readonly entries = new Map<K, { value: V; storedAt: number }>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: { maxEntries: number; maxAgeMs: number; now?: () => number }) {
    this.maxEntries = options.maxEntries;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now ?? Date.now;
  }

  /** The value stored for `key` if it is younger than `maxAgeMs`. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt < this.maxAgeMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: K, value: V): void {
    if (this.maxAgeMs <= 0 || this.maxEntries <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, storedAt: this.now() });
  }

  /** The cached value, else `load`'s (kept when it found one). */
  async getOrLoad(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const loaded = await load();
    if (loaded !== undefined) this.set(key, loaded);
    return loaded;
  }

  get size(): number {
    return this.entries.size;
  }
}
