import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAY_CURRENCIES } from '#shared/domain/currencies';
import { ERROR_CODES } from '#shared/schemas/error-responses';
import { REFERENCE_FILE, renderReference } from '#tools/docs/reference';

/**
 * docs/reference.md is what `npm run docs` generates from the code, as docs/openapi.json is
 * what `npm run openapi` does: a change to a currency, a setting, an error code or a CLI flag
 * that is not regenerated fails here.
 */
describe('docs/reference.md', () => {
  const generated = renderReference();

  it('is current: run `npm run docs` and commit the result when this fails', () => {
    expect(readFileSync(REFERENCE_FILE, 'utf8')).toBe(generated);
  });

  it('names every pay currency and every error code of the code', () => {
    for (const code of PAY_CURRENCIES) expect(generated).toContain(`| \`${code}\` |`);
    for (const code of ERROR_CODES.filter((code) => code !== 'INTERNAL_ERROR')) expect(generated).toContain(`| \`${code}\` |`);
  });

  it('gives the settings their defaults as the readers do', () => {
    expect(generated).toContain('| `UNCONFIRMED_TIMEOUT_SECONDS` | 86400 | `unconfirmedTimeoutSeconds` |');
    expect(generated).toContain('| `WATCH_GRACE_SECONDS` | 604800 | `watchGraceSeconds` |');
    expect(generated).toContain('| `PORTAL_SESSION_HOURS` | 12 | `portalSessionHours` |');
    expect(generated).toContain('| `USDT_BNB_CONFIRMATIONS` | 4 | `usdtBnbConfirmations` |');
    expect(generated).toContain('| `TABLE_NAME` | required | set by the stack or Lambda |');
    expect(generated).toContain('| `TOKEN_HMAC_KEY` | required; in AWS the parameter /crypto-pay-orders/token-hmac-key | `tokenHmacKeyParameter` (`TOKEN_HMAC_KEY_PARAMETER`)');
  });
});
