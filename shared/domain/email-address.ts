import { domainToASCII } from 'node:url';

/**
 * The one check of an email address the service is given (a buyer's on an order or a payment
 * link, a portal user's in their preferences): SMTP's Mailbox (RFC 5321 4.1.2), an addr-spec and
 * nothing else. Mail software reads much more into an address string: a display name
 * (`Eve <a@x>`), a list (`a@x, b`), a group (`undisclosed: a@x;`), comments, and RFC 2047
 * encoded words that a client decodes into another address. Anything of that kind is refused
 * here, so what is stored is exactly where mail goes.
 *
 * - Local part: a dot-string (atoms of RFC 5321 atext joined by single dots), at most 64
 *   octets. Quoted local parts (`"a b"@x`) are refused: they are legal but rare, and each
 *   program unquotes them its own way. Non-ASCII local parts (SMTPUTF8) are refused too: SES
 *   does not take them.
 * - No encoded word (`=?`) anywhere: RFC 2047 5 forbids one in an addr-spec, and clients decode it.
 * - Domain: LDH labels (letters, digits, inner hyphens, 1 to 63 each), at least two, the last
 *   not all digits (never an IP address). An internationalised domain is accepted as U-labels
 *   and kept as its A-labels (`url.domainToASCII`: UTS 46), so the address stored and sent is
 *   ASCII. Address literals (`a@[192.0.2.1]`) are refused.
 * - At most 254 octets in all, counted on the A-label form.
 */

export const MAX_LOCAL_PART = 64;
export const MAX_ADDRESS = 254;

/** RFC 5321 atext, in dot-separated atoms. */
const DOT_STRING = /^[A-Za-z0-9!#$%&'*+\/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+\/=?^_`{|}~-]+)*$/;
/** One LDH label of an ASCII domain (lower case: domainToASCII lowers it). */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/**
 * What a domain may be written with before conversion: ASCII letters, digits, hyphens and dots,
 * and any non-ASCII character (UTS 46 maps or refuses those). Every other ASCII character is
 * refused first, since domainToASCII would read some of them (`%41` is percent-decoded).
 */
const DOMAIN_TEXT = /^[A-Za-z0-9.\-\u0080-\u{10FFFF}]+$/u;

export type MailboxCheck = { address: string } | { problem: string };

/** `text` as the address stored and sent (the domain as lower-case A-labels), or why it is not one. */
export function checkMailbox(text: string): MailboxCheck {
  const at = text.lastIndexOf('@');
  if (at < 0) return { problem: 'must be an address like name@example.com' };
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (text.includes('=?')) return { problem: 'must not contain an encoded word (=?...?=)' };
  if (local === '') return { problem: 'has nothing before the @' };
  if (local.startsWith('"')) return { problem: 'must not have a quoted local part' };
  if (!DOT_STRING.test(local)) {
    return { problem: "must be a single address (no name, comment, list, group or space; the part before the @ in letters, digits and !#$%&'*+/=?^_`{|}~-, dots between)" };
  }
  if (local.length > MAX_LOCAL_PART) return { problem: `must have at most ${MAX_LOCAL_PART} characters before the @` };
  const ascii = asciiDomain(domain);
  if (ascii === undefined) return { problem: 'must have a domain of letters, digits and hyphens (like example.com)' };
  const address = `${local}@${ascii}`;
  if (address.length > MAX_ADDRESS) return { problem: `must be at most ${MAX_ADDRESS} characters` };
  return { address };
}

/** Whether `text` is an address {@link checkMailbox} accepts (the schemas' `email-address` format). */
export const isMailbox = (text: string): boolean => 'address' in checkMailbox(text);

/** The domain as lower-case A-labels, or undefined when it is not a domain of LDH labels. */
function asciiDomain(domain: string): string | undefined {
  if (!DOMAIN_TEXT.test(domain)) return undefined;
  // '' for what UTS 46 refuses (a bad A-label, a disallowed character).
  const ascii = domainToASCII(domain);
  const labels = ascii.split('.');
  if (ascii === '' || labels.length < 2 || ascii.length > 253) return undefined;
  if (!labels.every((label) => LDH_LABEL.test(label))) return undefined;
  // domainToASCII reads `0x7f.1` as an IPv4 address: a top-level label is never all digits.
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return undefined;
  return ascii;
}
