/**
 * The JSON encoders of MugglePay's client languages, byte for byte, so the replays in
 * tests/compat/ send exactly what each client sends. Checked against the real PHP 8.2 and
 * CPython 3 output in encoders.test.ts (goldens recorded from `php -r` and `python3 -c`).
 *
 * Values: plain JS values; objects keep their key order (PHP arrays and Python dicts keep
 * insertion order; Go structs their field order). {@link Float} marks a float where the
 * language prints floats differently from integers (Python's 10.0).
 */

/** A float-typed number (PHP's (double), Python's float, Go's float64). */
export class Float {
  constructor(readonly value: number) {}
}

type Escaper = (code: number, char: string) => string | undefined;

const hex4 = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function encodeString(text: string, escape: Escaper): string {
  let out = '"';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    const code = text.charCodeAt(i);
    const special = escape(code, char);
    if (special !== undefined) out += special;
    else if (SHORT_ESCAPES[char]) out += SHORT_ESCAPES[char];
    else if (code < 0x20) out += hex4(code);
    else out += char;
  }
  return `${out}"`;
}

function encode(value: unknown, options: { string: Escaper; float: (value: number) => string; comma: string; colon: string }): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Float) return options.float(value.value);
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return encodeString(value, options.string);
  if (Array.isArray(value)) return `[${value.map((item) => encode(item, options)).join(options.comma)}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, item]) => `${encodeString(key, options.string)}${options.colon}${encode(item, options)}`).join(options.comma)}}`;
}

/**
 * PHP's `json_encode($value)` with its default flags: `/` escaped as `\/`, every non-ASCII
 * character as `\uXXXX` (lowercase hex, UTF-16 pairs), floats in their shortest form.
 * An empty PHP array is `[]` (pass `[]`).
 */
export function phpJsonEncode(value: unknown): string {
  return encode(value, {
    string: (code, char) => (char === '/' ? '\\/' : code > 0x7f ? hex4(code) : undefined),
    float: (number) => String(number),
    comma: ',',
    colon: ':',
  });
}

/**
 * Python's repr of a float: 10.0 keeps its ".0"; below 1e-4 and from 1e16 up it is written
 * with an exponent of two digits at least (1e-05, 1e+16).
 */
function pythonFloat(number: number): string {
  const size = Math.abs(number);
  if (number !== 0 && (size < 1e-4 || size >= 1e16)) return number.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return Number.isInteger(number) ? `${number}.0` : String(number);
}

/**
 * Python's `json.dumps(value)` as `requests.post(json=...)` calls it: separators `', '` and
 * `': '`, ensure_ascii (non-ASCII as `\uXXXX`), `/` not escaped.
 */
export function pythonJsonDumps(value: unknown): string {
  return encode(value, {
    // Python escapes everything outside ' '..'~', DEL included.
    string: (code) => (code > 0x7e ? hex4(code) : undefined),
    float: pythonFloat,
    comma: ', ',
    colon: ': ',
  });
}

/**
 * Go's `json.Marshal` (encoding/json): UTF-8 kept as is, but `<`, `>`, `&`, U+2028 and U+2029
 * escaped as `\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029` (HTML-safe by default); float64
 * in its shortest form. Struct fields in declaration order: pass an object with that order.
 */
export function goJsonMarshal(value: unknown): string {
  return encode(value, {
    string: (code, char) => ('<>&'.includes(char) || code === 0x2028 || code === 0x2029 ? hex4(code) : undefined),
    float: (number) => String(number),
    comma: ',',
    colon: ':',
  });
}
