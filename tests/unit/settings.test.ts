import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '#infra/cdk/paths';
import { readApiConfig, readPortalConfig, readQuotaConfig, readWatchConfig } from '#shared/core/config';
import { ConfigError } from '#shared/core/env';
import { SETTINGS, setting } from '#shared/core/settings';
import { ALL_SETTINGS } from '#shared/payments/setting-families';
import { sourcesUnder } from '../support/import-graph';

/**
 * One declared list of settings (shared/core/settings.ts and its families): every name a reader
 * reads is declared there, and the readers apply the declared defaults, so the list the stack
 * and the reference are built from is the list the handlers read.
 */
describe('the settings list', () => {
  const read = /\b(?:requiredString|optionalString|positiveInteger|nonNegativeInteger|flag|secretSource|genesisSetting|setting)\(env, '([A-Z][A-Z0-9_]*)'/g;
  const literal = sourcesUnder('shared').flatMap((file) => [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(read)].map((match) => ({ file, name: match[1]! })));

  it('declares every variable a reader in shared/ reads by its literal name', () => {
    expect(literal.length).toBeGreaterThan(60);
    expect(literal.filter(({ name }) => !(name in ALL_SETTINGS)).map(({ file, name }) => `${file}: ${name}`)).toEqual([]);
  });

  it('is read in shared/core/config.ts through the declarations only (no name with a default of its own)', () => {
    const config = readFileSync(join(REPO_ROOT, 'shared/core/config.ts'), 'utf8');
    expect(config).not.toMatch(/\b(?:requiredString|optionalString|positiveInteger|nonNegativeInteger|flag|secretSource)\(env, '/);
    expect(literal.filter(({ file }) => file === 'shared/core/config.ts').length).toBeGreaterThan(50);
  });

  it('gives the declared defaults, and checks values by the declared type', () => {
    const api = readApiConfig({ PAYMENT_PAGE_URL: 'https://pay.example/' });
    expect(api.invoiceTtlCryptoSeconds).toBe(SETTINGS.INVOICE_TTL_CRYPTO_SECONDS.default);
    expect(api.latePaymentWindowSeconds).toBe(604_800);
    expect(readWatchConfig({})).toEqual({ watchIntervalSeconds: 10, graceSeconds: 604_800, idleLookSeconds: 170, refundWatchSeconds: 2_592_000 });
    expect(readQuotaConfig({ QUOTA_AUTH_FAILURES: '0' }).authFailures).toEqual({ limit: 0, windowSeconds: 60 });
    const portal = readPortalConfig({ PORTAL_ORIGIN: 'https://portal.example.com', PORTAL_SESSION_HOURS: '8' });
    expect(portal).toMatchObject({ rpId: 'portal.example.com', rpName: 'Crypto Pay Orders', sessionHours: 8, signInPerMinute: 20 });
    expect(() => readWatchConfig({ WATCH_GRACE_SECONDS: '0' })).toThrow(/WATCH_GRACE_SECONDS must be a positive integer/);
    expect(() => readApiConfig({})).toThrow(ConfigError);
    expect(setting({}, 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT')).toBeUndefined();
    expect(setting({ PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773' }, 'PARAMETERS_SECRETS_EXTENSION_HTTP_PORT')).toBe(2773);
    expect(setting({ TOKEN_HMAC_KEY_FILE: '/tmp/key' }, 'TOKEN_HMAC_KEY')).toEqual({ kind: 'file', ref: '/tmp/key', variable: 'TOKEN_HMAC_KEY_FILE' });
    expect(setting({ CALLBACK_ALLOW_LOOPBACK: '1' }, 'CALLBACK_ALLOW_LOOPBACK')).toBe(true);
  });

  it('says of every setting what it does, and of the computed defaults what they are', () => {
    for (const [name, declared] of Object.entries(ALL_SETTINGS)) {
      expect(declared.about.length, name).toBeGreaterThan(10);
      if (declared.required || declared.type === 'flag') expect(declared.default, name).toBeUndefined();
    }
  });
});
