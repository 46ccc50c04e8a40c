import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINK_STATES } from '#shared/domain/payment-link';
import { ROLES } from '#shared/domain/portal';
import { REFUND_STATUSES } from '#shared/domain/refund';
import { PLAN_STATES, STATE_LABELS, type LabelLanguage, type StateLabels } from '#shared/domain/state-labels';
import { CANCEL_REASONS, SUBSCRIPTION_STATUSES } from '#shared/domain/subscription';
import { ORDER_STATUSES } from '#shared/domain/statuses';
import { WORDS } from '#shared/email/messages';
import { callbackDeliverySchema } from '#shared/schemas/callback-responses';
import { orderSchema } from '#shared/schemas/order-responses';
import { STRINGS as PORTAL } from '../../web/portal/src/i18n';

/**
 * One label per state (shared/domain/state-labels.ts): every value of each kind has its label in
 * English and Chinese, no two states share one, and the screens and emails that show a state
 * take that label instead of writing their own.
 */

/** Each kind's values, read from where the service declares them (the domain's lists, or the API's schemas where the domain has a type only). */
const VALUES: Record<keyof StateLabels, readonly string[]> = {
  orderStatus: ORDER_STATUSES,
  unresolvedReason: orderSchema.properties.unresolved_reason.enum,
  deliveryState: callbackDeliverySchema.properties.state.enum,
  refundStatus: REFUND_STATUSES,
  linkState: LINK_STATES,
  role: ROLES,
  subscriptionStatus: SUBSCRIPTION_STATUSES,
  cancelReason: CANCEL_REASONS,
  planState: PLAN_STATES,
};

const LANGUAGES: LabelLanguage[] = ['en', 'zh'];
const KINDS = Object.keys(VALUES) as (keyof StateLabels)[];

describe.each(LANGUAGES)('state labels in %s', (language) => {
  const labels = STATE_LABELS[language];

  it.each(KINDS)('labels every %s, and only those', (kind) => {
    expect(Object.keys(labels[kind]).sort()).toEqual([...VALUES[kind]].sort());
    for (const label of Object.values(labels[kind])) expect(label.trim()).not.toBe('');
  });

  it('gives no two states one label (a label two kinds share is the same state: EXPIRED, for an order and a link)', () => {
    const statesOf = new Map<string, Set<string>>();
    for (const kind of KINDS) {
      for (const [value, label] of Object.entries(labels[kind])) statesOf.set(label, (statesOf.get(label) ?? new Set()).add(value));
    }
    const shared = [...statesOf].filter(([, values]) => values.size > 1).map(([label, values]) => `${label}: ${[...values].join(', ')}`);
    expect(shared).toEqual([]);
  });

  it("is the portal's and the emails' one table of each", () => {
    const portal = PORTAL[language];
    expect(portal.statuses).toBe(labels.orderStatus);
    expect(portal.unresolvedReasons).toBe(labels.unresolvedReason);
    expect(portal.deliveryStates).toBe(labels.deliveryState);
    expect(portal.refundStatuses).toBe(labels.refundStatus);
    expect(portal.linkStates).toBe(labels.linkState);
    expect(portal.roles).toBe(labels.role);
    expect(portal.subscriptionStatuses).toBe(labels.subscriptionStatus);
    expect(portal.cancelReasons).toBe(labels.cancelReason);
    expect(portal.planStates).toBe(labels.planState);
    expect(WORDS[language].reasons).toBe(labels.unresolvedReason);
    expect(WORDS[language].roles).toBe(labels.role);
  });
});

describe('the screens and emails', () => {
  const FOLDERS = ['web/src', 'web/portal/src', 'web/common', 'shared/email'];
  const files = FOLDERS.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(folder, name)),
  );

  it('write no state label of their own (a quoted label is a second definition that drifts)', () => {
    const labels = new Set(LANGUAGES.flatMap((language) => KINDS.flatMap((kind) => Object.values(STATE_LABELS[language][kind]))));
    const written = files.flatMap((file) => {
      // Comments may name a label; only code defines one.
      const source = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      return [...labels].filter((label) => [`'${label}'`, `"${label}"`, `\`${label}\``].some((quoted) => source.includes(quoted))).map((label) => `${file}: ${label}`);
    });
    expect(files.length).toBeGreaterThan(20);
    expect(written).toEqual([]);
  });
});
