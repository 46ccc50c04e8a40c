/**
 * What MugglePay's published clients compute, re-implemented from their source for the
 * replays in tests/compat/ (written here, not copied):
 * - the md5 callback token of the PHP SDK (MugglePay/mugglepay-php-sdk Core.php), the WHMCS
 *   plugin (MugglePay/MugglePayForWHMCS bitpayx/class.php), the Xboard plugin
 *   (QENCloud/Mugglepay-Xboard-Payment-Plugin) and the Go SDK (admpub/mugglepay
 *   structs/order.go): md5(md5(<query string>) . secret), the query string built by PHP's
 *   http_build_query or Go's url.Values.Encode over the ksorted fields;
 * - WordPress's portable password hash (phpass), which WooCommerce's plugin
 *   (MugglePay/MugglePayForWooCommerce) uses as its callback token: wp_hash_password(order
 *   key) at creation, wp_check_password(order key, token) on the callback.
 */
import { createHash, randomBytes } from 'node:crypto';

const md5Hex = (text: string | Buffer) => createHash('md5').update(text).digest('hex');

/** PHP's urlencode: letters, digits and `-_.` stay; space is `+`; everything else `%XX` (uppercase). */
function phpUrlencode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (/[A-Za-z0-9_.-]/.test(char)) return char;
      if (char === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** PHP's http_build_query of a flat array, in its order. */
export function phpHttpBuildQuery(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${phpUrlencode(key)}=${phpUrlencode(value)}`)
    .join('&');
}

/** Go's url.Values.Encode: keys sorted, url.QueryEscape (like PHP's, but `~` stays). */
export function goValuesEncode(fields: Record<string, string>): string {
  const escape = (text: string) => phpUrlencode(text).replaceAll('%7E', '~');
  return Object.keys(fields)
    .sort()
    .map((key) => `${escape(key)}=${escape(fields[key]!)}`)
    .join('&');
}

/** PHP's ksort of a flat array (byte order of the keys). */
const ksorted = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * The md5 token scheme: `type` is 'FIAT' for WHMCS, Xboard and the Go SDK, absent for the
 * PHP SDK. `encoder` is the client's query-string builder.
 */
export function md5Token(secret: string, merchantOrderId: string, options: { type?: 'FIAT'; encoder?: 'php' | 'go' } = {}): string {
  const fields: Record<string, string> = { merchant_order_id: merchantOrderId, secret };
  if (options.type) fields.type = options.type;
  const query = options.encoder === 'go' ? goValuesEncode(fields) : phpHttpBuildQuery(ksorted(fields));
  return md5Hex(md5Hex(query) + secret).toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// phpass (Openwall's portable hashes, as WordPress uses them: PasswordHash(8, true))

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function encode64(input: Buffer, count: number): string {
  let output = '';
  let i = 0;
  do {
    let value = input[i++]!;
    output += ITOA64[value & 0x3f];
    if (i < count) value |= input[i]! << 8;
    output += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i]! << 16;
    output += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    output += ITOA64[(value >> 18) & 0x3f];
  } while (i < count);
  return output;
}

function cryptPrivate(password: string, setting: string): string {
  const failed = setting.startsWith('*0') ? '*1' : '*0';
  const id = setting.slice(0, 3);
  if (id !== '$P$' && id !== '$H$') return failed;
  const countLog2 = ITOA64.indexOf(setting[3] ?? '');
  if (countLog2 < 7 || countLog2 > 30) return failed;
  const salt = setting.slice(4, 12);
  if (salt.length !== 8) return failed;
  const secret = Buffer.from(password, 'utf8');
  let hash = createHash('md5')
    .update(Buffer.concat([Buffer.from(salt, 'latin1'), secret]))
    .digest();
  for (let count = 1 << countLog2; count > 0; count -= 1)
    hash = createHash('md5')
      .update(Buffer.concat([hash, secret]))
      .digest();
  return setting.slice(0, 12) + encode64(hash, 16);
}

/** WordPress's wp_hash_password (portable phpass, 2^13 rounds): "$P$B" + salt + hash, 34 characters. */
export function wpHashPassword(password: string): string {
  const setting = `$P$${ITOA64[13]}${encode64(randomBytes(6), 6)}`;
  return cryptPrivate(password, setting);
}

/** WordPress's wp_check_password for a phpass hash. */
export function wpCheckPassword(password: string, hash: string): boolean {
  return hash.length === 34 && cryptPrivate(password, hash) === hash;
}

/** A WooCommerce order key: `wc_order_` and 13 letters and digits (wc_generate_order_key). */
export function wcOrderKey(): string {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return `wc_order_${[...randomBytes(13)].map((byte) => letters[byte % letters.length]).join('')}`;
}
