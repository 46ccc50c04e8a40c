/**
 * In-memory token buckets, one per key (a merchant, a client address), bounded in number.
 * Each bucket holds up to `burst` tokens and gains `rate` per second; a request takes one.
 * When `maxKeys` buckets exist, the one used least recently is dropped to make room: a key
 * that comes back starts full again, so a flood of new keys can only ever give an old key more
 * room, never less, and memory stays bounded.
 */
export interface BucketLimit {
  /** Tokens gained per second (may be fractional; 0 turns the limit off). */
  rate: number;
  /** Bucket size: the requests a key may send at once. */
  burst: number;
}

export type Take = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: { maxKeys: number; now?: () => number }) {
    this.maxKeys = Math.max(1, options.maxKeys);
    this.now = options.now ?? Date.now;
  }

  /** Takes a token from `key`'s bucket; when it has none, says how long until it has one. */
  take(key: string, limit: BucketLimit): Take {
    if (limit.rate <= 0) return { allowed: true };
    const now = this.now();
    const bucket = this.buckets.get(key);
    let tokens = limit.burst;
    if (bucket) {
      tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
      this.buckets.delete(key); // re-inserted below: the map's order is least recently used first
    } else {
      while (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    }
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, at: now });
      return { allowed: true };
    }
    this.buckets.set(key, { tokens, at: now });
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / limit.rate)) };
  }

  get size(): number {
    return this.buckets.size;
  }
}

/**
 * The quota key of a client address: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber usually holds a whole /64, so keying single addresses would give it 2^64
 * buckets). An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientAddressKey(raw: string): string {
  const address = raw.split('%', 1)[0]!; // an IPv6 zone (fe80::1%eth0) names no other client
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::', 2);
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
