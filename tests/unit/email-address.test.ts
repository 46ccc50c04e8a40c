import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkMailbox, isMailbox } from '#shared/domain/email-address';
import { isMailboxOrEmpty } from '#shared/http/validation';
import { createOrderBody, linkOrderBody, portalEmailPreferencesBody } from '#shared/http/validators.generated';
import { recipientOf } from '#shared/email/transport';

const accepted = (text: string) => {
  const checked = checkMailbox(text);
  if ('problem' in checked) throw new Error(`${text} refused: ${checked.problem}`);
  return checked.address;
};

describe('the email address checker (RFC 5321 Mailbox, addr-spec only)', () => {
  it('refuses what mail software reads as something else: lists, names, groups, encoded words', () => {
    for (const text of [
      'a@x.test,b',
      'a@x.test, b@y.test',
      'Eve<a@x.test>',
      'Eve <a@x.test>',
      '<a@x.test>',
      'undisclosed:a@x.test;',
      '=?utf-8?Q?victim=40evil.test?=@example.test',
      'a=?utf-8?B?dmljdGlt?=@example.test',
      'a@=?utf-8?Q?evil.test?=',
      'a@x.test (comment)',
      '(comment)a@x.test',
      '"quoted"@example.test',
      '"a b"@example.test',
      'a@b@example.test',
      'a b@example.test',
      ' a@example.test',
      'a@example.test ',
      'a@example.test\r\nBcc: b@evil.test',
      'a\n@example.test',
    ]) {
      expect(checkMailbox(text), text).toHaveProperty('problem');
    }
  });

  it('refuses malformed local parts and domains', () => {
    for (const text of [
      '',
      'plain',
      '@example.test',
      'a@',
      '.a@example.test',
      'a.@example.test',
      'a..b@example.test',
      'ünicode@example.test',
      'a@localhost',
      'a@example',
      'a@[192.0.2.1]',
      'a@192.0.2.1',
      'a@0x7f.1',
      'a@-example.test',
      'a@example-.test',
      'a@exa_mple.test',
      'a@example..test',
      'a@.example.test',
      'a@example.test.',
      'a@ex%41mple.test',
      'a@xn--zz.test',
      'a@xn--iñvalid.test',
      `a@${'b'.repeat(64)}.test`,
    ]) {
      expect(checkMailbox(text), text).toHaveProperty('problem');
    }
  });

  it('bounds the local part at 64 and the whole address at 254 (on the A-label form)', () => {
    expect(accepted(`${'a'.repeat(64)}@example.test`)).toBe(`${'a'.repeat(64)}@example.test`);
    expect(checkMailbox(`${'a'.repeat(65)}@example.test`)).toHaveProperty('problem');
    const domainOf = (length: number) => `${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(length - 128)}`;
    const longest = `${'a'.repeat(64)}@${domainOf(254 - 65)}`;
    expect(longest).toHaveLength(254);
    expect(accepted(longest)).toBe(longest);
    expect(checkMailbox(`${'a'.repeat(64)}@${domainOf(255 - 65)}`)).toHaveProperty('problem');
    // 254 characters as typed, longer once its domain is A-labels.
    const idn = `${'a'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'ü'.repeat(40)}.${'g'.repeat(20)}`;
    expect(idn).toHaveLength(254);
    expect(`${'a'.repeat(64)}@${domainToASCII(idn.split('@')[1]!)}`.length).toBeGreaterThan(254);
    expect(checkMailbox(idn)).toHaveProperty('problem');
  });

  it('accepts ordinary addresses as they are, the domain lower-cased', () => {
    for (const text of ['buyer@example.test', 'first.last@mail.example.com', "o'brien+tag@sub-domain.example.co", "x!#$%&'*+/?=^_`{|}~-@example.test", 'a@b.cd', '123@456.example']) {
      expect(accepted(text), text).toBe(text);
    }
    expect(accepted('Buyer@Example.TEST')).toBe('Buyer@example.test');
  });

  it('accepts internationalised domains as U-labels and keeps their A-labels', () => {
    expect(accepted('buyer@münchen.example')).toBe('buyer@xn--mnchen-3ya.example');
    expect(accepted('buyer@MÜNCHEN.example')).toBe('buyer@xn--mnchen-3ya.example');
    expect(accepted('buyer@例子.测试')).toBe('buyer@xn--fsqu00a.xn--0zwm56d');
    expect(accepted('buyer@xn--mnchen-3ya.example')).toBe('buyer@xn--mnchen-3ya.example');
    expect(isMailbox('buyer@bücher.example')).toBe(true);
  });

  it("is the schemas' format: the generated validators refuse the bad forms and take the good ones", () => {
    const base = { price_amount: 1, price_currency: 'USD' };
    for (const email of ['a@x.test,b', 'Eve<a@x.test>', 'undisclosed:a@x.test;', '=?utf-8?Q?victim=40evil.test?=@example.test']) {
      expect(createOrderBody({ ...base, email }), email).toBe(false);
      expect(linkOrderBody({ pay_currency: 'BTC', email }), email).toBe(false);
      expect(
        portalEmailPreferencesBody({ address: email, language: 'en', payments: 'each', topics: { unresolved: true, callbacks: true, refund_address: true, new_passkey: true, team: true } }),
        email,
      ).toBe(false);
    }
    expect(createOrderBody({ ...base, email: 'buyer@münchen.example' })).toBe(true);
    expect(linkOrderBody({ pay_currency: 'BTC', email: 'buyer@example.test' })).toBe(true);
    expect(isMailboxOrEmpty('')).toBe(true);
    expect(isMailboxOrEmpty(' ')).toBe(false);
  });

  it('is checked again before a transport is given an address (one stored before the check is refused for good)', () => {
    expect(recipientOf({ to: 'buyer@münchen.example' })).toBe('buyer@xn--mnchen-3ya.example');
    expect(() => recipientOf({ to: 'a@x.test,b' })).toThrow(/not a deliverable address/);
    expect(() => recipientOf({ to: 'Eve <a@x.test>' })).toThrowError(expect.objectContaining({ name: 'EmailRefusedError' }));
  });
});
