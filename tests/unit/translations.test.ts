import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORDS } from '#shared/email/messages';
import { orderSchema } from '#shared/schemas/order-responses';
import { LINK_STATES } from '#shared/domain/payment-link';
import { STRINGS as PAGE } from '../../web/src/i18n';
import { STRINGS as PORTAL } from '../../web/portal/src/i18n';

/**
 * Every catalogue a person reads (the payment page's, the portal's, the emails') in both
 * languages: each key in English and in Chinese, every key used by its app, no English left in a
 * Chinese string but codes and names, and no Chinese string standing for two different English
 * ones, nor one English string for two Chinese ones, unless {@link SAME_WORD} says why. That is
 * how a link that never expires came to read 从未 ("never happened", the token list's "Never"):
 * two meanings, one word.
 */

type Catalogue = 'page' | 'portal' | 'email';

const CATALOGUES: Record<Catalogue, { en: object; zh: object }> = { page: PAGE, portal: PORTAL, email: WORDS };

/** The sources each catalogue's keys are looked up in, and the catalogue's own file (left out: it only defines them). */
const SOURCES: Record<Catalogue, { folder: string; catalogue: string }> = {
  page: { folder: 'web/src', catalogue: 'web/src/i18n.ts' },
  portal: { folder: 'web/portal/src', catalogue: 'web/portal/src/i18n.ts' },
  // The emails' words are defined and used in the one file: uses are `words.key`, definitions `key:`.
  email: { folder: 'shared/email', catalogue: '' },
};

/** Arguments a string function is read with where the placeholders would not show every text it can give. */
const SAMPLES: Partial<Record<string, unknown[][]>> = {
  'portal.walletLabel': [['SOL'], ['TON'], ['XLM']],
  'portal.walletHint': [['SOL'], ['TON'], ['XLM']],
  'page.mode': [['app'], ['qr']],
  'page.unitsLeft': [[1], [5]],
};

const PLACEHOLDERS = ['{0}', '{1}', '{2}', '{3}', '{4}'];

/** Every string of a catalogue by its path (functions by what they give for placeholders or samples). */
function flatten(catalogue: Catalogue, value: unknown, path = ''): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (node: unknown, at: string) => {
    if (typeof node === 'string') out.set(at, node);
    else if (typeof node === 'function') {
      const samples = SAMPLES[`${catalogue}.${at}`];
      if (samples) samples.forEach((args, index) => out.set(`${at}(${index})`, String(node(...args))));
      else out.set(at, String(node(...PLACEHOLDERS)));
    } else if (node && typeof node === 'object') for (const [key, child] of Object.entries(node)) visit(child, at ? `${at}.${key}` : key);
  };
  visit(value, path);
  return out;
}

/** Pairs of keys ("a|b") whose strings are the same in one language and differ in the other. */
function oneSidedPairs(en: Map<string, string>, zh: Map<string, string>): string[] {
  const keys = [...en.keys()];
  const found: string[] = [];
  for (const [index, first] of keys.entries()) {
    for (const second of keys.slice(index + 1)) {
      if ((en.get(first) === en.get(second)) !== (zh.get(first) === zh.get(second))) found.push(`${first}|${second}`);
    }
  }
  return found;
}

/**
 * Pairs of keys that may share a word in one language while the other tells them apart, each
 * with why it reads right in both places. Each must still be such a pair: a stale entry fails.
 */
const SAME_WORD: Record<Catalogue, Record<string, string>> = {
  page: {},
  portal: {
    'orders|colOrder': 'Chinese has no plural: 订单 is the screen of orders and the column of one.',
    'colOrder|colOrders': 'Chinese has no plural: 订单 is one order and the orders a link made.',
    'colAction|actions': "操作 is an audit entry's action and the actions an order offers: the same idea.",
    'colWhen|attemptAt': '时间 heads a time column in both the audit log and the delivery attempts.',
    'status|colState': '状态 is what an order or a link stands at: English says status of an order, state of a link.',
    'colStatus|colState': '状态 is what an order or a link stands at: English says status of an order, state of a link.',
    'action.refund|refunds': '退款 is the verb (the button) and the noun (the section) alike.',
    'refunds|refundAsk': "退款 is the verb (the form's heading) and the noun (the section) alike.",
    'colName|memberName': 'English "Name" is a token\'s name (名称) and a person\'s (姓名): Chinese tells them apart.',
    'colFrom|from': 'English "From" is where an audit entry came from (来源) and a date filter\'s start (开始日期), each beside its pair ("Who", "To").',
    'emailPaymentsOff|noMemo': 'English "None" is no payment email (不接收) and no memo (无): Chinese says each.',
  },
  email: {},
};

/**
 * Latin text a Chinese string may keep: the language switch names English in English, and names
 * that stay as they are (a protocol, a header, wallet fields, networks, a token standard, an
 * issuer, an example address). Codes in capitals (USDT_TRC20, API, UTC, MEMO_ID) are always kept.
 */
const KEPT_LATIN = [
  'Switch to English',
  'English',
  'Standard Webhooks',
  'webhook-signature',
  'Solana Pay',
  'Arbitrum One',
  'BNB Smart Chain',
  'Polygon PoS',
  'Solana',
  'Stellar',
  'Celo',
  'Base',
  'Toncoin',
  'cUSD',
  'jetton',
  'Circle',
  'comment',
  'memo',
  'Memo',
  'name@example.com',
  'G...',
];

const sourceFiles = (folder: string, except: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name))
    .filter((file) => file !== except);

/**
 * Keys an app reaches by a value rather than by name, with the file and the expression that does
 * it (which must still be there): the page explains an UNRESOLVED reason and a closed link's state
 * by keys named after them, and every app hands its switch strings to web/common/i18n.ts.
 */
const REACHED_BY_VALUE: Record<Catalogue, { keys: readonly string[]; file: string; expression: string }[]> = {
  page: [
    { keys: orderSchema.properties.unresolved_reason.enum, file: 'web/src/render.ts', expression: 'strings[reason](merchant)' },
    { keys: LINK_STATES.filter((state) => state !== 'OPEN' && state !== 'SOLD_OUT'), file: 'web/src/link-page.ts', expression: 'strings[link.state](link.merchant_name)' },
    { keys: ['switchTo', 'switchLabel'], file: 'web/src/render.ts', expression: 'languageSwitch(' },
  ],
  portal: [{ keys: ['switchTo', 'switchLabel'], file: 'web/portal/src/screens/layout.ts', expression: 'languageSwitch(' }],
  email: [],
};

describe.each(Object.keys(CATALOGUES) as Catalogue[])('the %s catalogue', (name) => {
  const en = flatten(name, CATALOGUES[name].en);
  const zh = flatten(name, CATALOGUES[name].zh);

  it('has every string in both languages, none empty', () => {
    expect([...zh.keys()].sort()).toEqual([...en.keys()].sort());
    const empty = [...en, ...zh].filter(([, text]) => text.trim() === '').map(([key]) => key);
    expect(empty).toEqual([]);
  });

  it('gives no word two meanings in either language, but where it says why', () => {
    const found = oneSidedPairs(en, zh);
    const explained = SAME_WORD[name];
    expect(
      found.filter((pair) => !(pair in explained)),
      'pairs sharing a word in one language only',
    ).toEqual([]);
    expect(
      Object.keys(explained).filter((pair) => !found.includes(pair)),
      'explanations of pairs that no longer share a word',
    ).toEqual([]);
  });

  it('keeps no English in Chinese but codes and names', () => {
    const kept = [...KEPT_LATIN].sort((a, b) => b.length - a.length);
    const left = [...zh]
      .map(([key, text]) => {
        let rest = text;
        for (const word of kept) rest = rest.replaceAll(word, '');
        rest = rest.replace(/\{\d\}/g, '').replace(/\b[A-Z0-9][A-Z0-9_]+\b/g, '');
        return [key, rest] as const;
      })
      .filter(([, rest]) => /[A-Za-z]/.test(rest))
      .map(([key]) => `${key}: ${zh.get(key)}`);
    expect(left).toEqual([]);
  });

  it('uses every key', () => {
    const { folder, catalogue } = SOURCES[name];
    const source = sourceFiles(folder, catalogue)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const byValue = REACHED_BY_VALUE[name];
    for (const { file, expression } of byValue) expect(readFileSync(file, 'utf8'), file).toContain(expression);
    const reached = new Set(byValue.flatMap(({ keys }) => keys));
    // A key is used by name (strings.key), or, for an error code, in a list of the codes an app explains.
    const usedByName = (key: string) => new RegExp(`\\.${key}\\b`).test(source) || (/^[A-Z_]+$/.test(key) && new RegExp(`['"]${key}['"]`).test(source));
    const unused = Object.keys(CATALOGUES[name].en).filter((key) => !reached.has(key) && !usedByName(key));
    expect(unused).toEqual([]);
  });
});

describe('the check itself', () => {
  it('finds a Chinese word given to two English ones, and an English word given to two Chinese ones', () => {
    const en = flatten('portal', { never: 'Never', noExpiry: 'No end date', colName: 'Name', memberName: 'Name', yes: 'Yes' });
    const zh = flatten('portal', { never: '从未', noExpiry: '从未', colName: '名称', memberName: '姓名', yes: '是' });
    expect(oneSidedPairs(en, zh)).toEqual(['never|noExpiry', 'colName|memberName']);
  });
});
