import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { InvalidParameterError } from '#shared/domain/errors';

/**
 * The SSRF guard for merchant callbacks (docs/merchant-guide.md, "Callbacks"). One classifier,
 * {@link forbiddenAddressReason}, decides which addresses a callback may reach; it runs when an
 * order is created (on the literal host of `callback_url`, {@link checkCallbackUrl}) and again at
 * connect time on every address DNS returns (shared/callbacks/http-post.ts), so a name that
 * resolves, or later rebinds, to an internal address is refused too.
 *
 * The policy is an allowlist: an address is reachable only if it is global unicast (IPv4
 * `unicast` in ipaddr.js's table; IPv6 `unicast` and inside 2000::/3, the only block IANA
 * allocates for global unicast). Everything else is refused, including ranges ipaddr.js calls
 * `unicast` but nobody routes publicly (IPv4-compatible ::a.b.c.d, fec0::/10 site-local is
 * already its own range, 4000::/3 and the like).
 */

/** Longest `callback_url` accepted (the contract's URL limit). */
export const CALLBACK_URL_MAX_LENGTH = 2048;

export interface SsrfOptions {
  /**
   * Allow loopback (127.0.0.0/8, ::1, `localhost`) and nothing else private. Only the local
   * runtime may set this, by an explicit setting; never on AWS.
   */
  allowLoopback: boolean;
}

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

const IPV4_REASONS: Record<string, string> = {
  unspecified: 'an unspecified address (0.0.0.0/8)',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address (224.0.0.0/4)',
  linkLocal: 'a link-local address (169.254.0.0/16)',
  loopback: 'a loopback address (127.0.0.0/8)',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)',
  reserved: 'a reserved, documentation or benchmarking address',
  as112: 'an AS112 address',
  amt: 'an AMT relay address',
};

const IPV6_REASONS: Record<string, string> = {
  unspecified: 'the unspecified address (::)',
  linkLocal: 'a link-local address (fe80::/10)',
  multicast: 'a multicast address (ff00::/8)',
  loopback: 'the loopback address (::1)',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local address (fec0::/10)',
  discard: 'a discard-only address (100::/64)',
  rfc6145: 'an IPv4-translated address (::ffff:0:0:0/96)',
  rfc6052: 'a NAT64 address (64:ff9b::/96)',
  '6to4': 'a 6to4 address (2002::/16)',
  teredo: 'a Teredo address (2001::/32)',
  benchmarking: 'a benchmarking address (2001:2::/48)',
  reserved: 'a reserved or documentation address',
};

/** 2000::/3: IANA's global unicast block; anything outside it is not publicly routed. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function classifyV4(address: ipaddr.IPv4, options: SsrfOptions): string | undefined {
  if (METADATA_ADDRESSES.has(address.toString())) return 'the cloud metadata address';
  const range = address.range();
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && options.allowLoopback) return undefined;
  return IPV4_REASONS[range] ?? `a special-purpose address (${range})`;
}

function isV4Compatible(address: ipaddr.IPv6): boolean {
  // ::a.b.c.d (deprecated by RFC 4291); :: and ::1 share the prefix but have their own ranges.
  return address.parts.slice(0, 6).every((part) => part === 0) && address.range() === 'unicast';
}

/**
 * Why a callback must not connect to `ip`, or `undefined` when it may. IPv4-mapped IPv6
 * (::ffff:a.b.c.d) is unwrapped and judged as the IPv4 address it reaches. Anything that does
 * not parse as an address (ipaddr.js accepts the inet_aton spellings: 2130706433, 0x7f.1, ...)
 * is refused: the guard fails closed.
 */
export function forbiddenAddressReason(ip: string, options: SsrfOptions): string | undefined {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return 'not a valid IP address';
  }
  if (parsed.kind() === 'ipv4') return classifyV4(parsed as ipaddr.IPv4, options);

  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const reason = classifyV4(v6.toIPv4Address(), options);
    return reason === undefined ? undefined : `${reason}, IPv4-mapped`;
  }
  // Compare without a zone id (fe80::1%eth0): the zone does not change the range.
  const address = new ipaddr.IPv6(v6.parts);
  if (METADATA_ADDRESSES.has(address.toString())) return 'the cloud metadata address';
  if (isV4Compatible(address)) return 'an IPv4-compatible IPv6 address (::a.b.c.d)';
  const range = address.range();
  if (range === 'loopback' && options.allowLoopback) return undefined;
  if (range !== 'unicast') return IPV6_REASONS[range] ?? `a special-purpose address (${range})`;
  if (!address.match(GLOBAL_UNICAST_V6)) return 'outside the global unicast range (2000::/3)';
  return undefined;
}

/**
 * Suffixes of names that only resolve inside a network (RFC 6761 `localhost`, RFC 6762
 * `local`, RFC 8375 `home.arpa`, GCP's `*.internal`, AWS's `*.compute.internal`, common
 * private TLDs). A name is refused when it equals one or ends with `.<suffix>`.
 */
const INTERNAL_NAME_SUFFIXES = ['localhost', 'localdomain', 'local', 'internal', 'intranet', 'lan', 'home.arpa', 'arpa'];

function internalNameReason(name: string, options: SsrfOptions): string | undefined {
  if (name === 'localhost' && options.allowLoopback) return undefined;
  if (name === 'metadata.google.internal' || name === 'metadata') return 'a cloud metadata host';
  for (const suffix of INTERNAL_NAME_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return `an internal host name (.${suffix})`;
  }
  // A name without a dot is completed by the resolver's search list (a cluster or VPC name).
  if (!name.includes('.')) return 'not a fully qualified domain name';
  return undefined;
}

function refuse(reason: string): never {
  throw new InvalidParameterError(`callback_url ${reason}`);
}

/**
 * The creation-time check of a merchant's `callback_url`. Throws {@link InvalidParameterError}
 * (`callback_url ...`) unless the URL is an absolute http(s) URL of at most
 * {@link CALLBACK_URL_MAX_LENGTH} characters, without credentials, whose host is neither an
 * internal name (`localhost`, `*.localhost`, `metadata.google.internal`, `*.internal`,
 * `*.local`, ...) nor a literal address {@link forbiddenAddressReason} refuses.
 *
 * Odd IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.0.0.1, 127.1, full-width digits, a
 * trailing dot) need no code here: the WHATWG URL parser turns them into dotted-quad, exactly
 * as inet_aton would read them, before the host is judged. Names are still resolved and
 * checked again at delivery; this check only refuses early what can never be delivered.
 */
export function checkCallbackUrl(url: string, options: SsrfOptions): void {
  if (url.length > CALLBACK_URL_MAX_LENGTH) refuse(`must be at most ${CALLBACK_URL_MAX_LENGTH} characters`);
  // The URL parser silently drops tabs and newlines and trims spaces; refuse them instead so
  // what is stored is what is delivered to.
  if (/[\s\u0000-\u001f\u007f]/u.test(url)) refuse('must not contain spaces or control characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    refuse('must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') refuse('must be an absolute http or https URL');
  if (parsed.username !== '' || parsed.password !== '') refuse('must not carry credentials (user:password@)');
  const host = parsed.hostname;
  // Unreachable today (the URL parser gives every http and https URL a host, so its mutants
  // survive as equivalent); kept so a parser that ever did not still fails closed.
  // Stryker disable next-line all
  if (host === '') refuse('must have a host');

  if (host.startsWith('[')) {
    const literal = host.slice(1, -1);
    const reason = forbiddenAddressReason(literal, options);
    if (reason !== undefined) refuse(`host ${host} is ${reason}`);
    // Refused even when the IPv4 inside is public: one spelling per address, the one the
    // connect-time check and the merchant's logs show.
    if (ipaddr.IPv6.isValid(literal) && ipaddr.IPv6.parse(literal).isIPv4MappedAddress()) {
      refuse(`host ${host} is an IPv4-mapped IPv6 address (write the IPv4 address instead)`);
    }
    return;
  }
  if (isIP(host) === 4) {
    const reason = forbiddenAddressReason(host, options);
    if (reason !== undefined) refuse(`host ${host} is ${reason}`);
    return;
  }
  // A domain: the parser has lower-cased it and mapped IDNA; "localhost." is "localhost".
  const name = host.replace(/\.+$/u, '');
  const reason = internalNameReason(name, options);
  if (reason !== undefined) refuse(`host ${host} is ${reason}`);
}
