/**
 * A stored merchant reaches every function as its profile (profileOf, shared/domain/merchant.ts):
 * each use case that answers a merchant is asked, against DynamoDB Local, about a merchant whose
 * callback secret was rolled (so every secret field is set), and its answer must carry none of
 * them, neither as a field nor as a value anywhere in it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Merchant } from '#shared/domain/merchant';
import type { PortalUser } from '#shared/domain/portal';
import { apiTokenHash, findMerchantByApiToken } from '#shared/services/api-tokens';
import { changeSettings, merchantProfile, merchantProfiles, rollCallbackSecret, setDisabled } from '#shared/services/merchants';
import { createOrder } from '#shared/services/orders';
import { getPayPage } from '#shared/services/pay-page';
import { actOnOrder, PORTAL_ACTIONS } from '#shared/services/portal/actions';
import { authenticateSession, sha256 } from '#shared/services/portal/sessions';
import { db, tableName } from '#shared/store/client';
import { findMerchant } from '#shared/store/merchants';
import { userItem } from '#shared/store/portal-users';
import { insertSession } from '#shared/store/sessions';
import { newMerchant } from '../support/api';

/** Listed here, not imported: the test says what a secret is on its own. */
const SECRET_FIELDS = ['token_hash', 'callback_secret', 'previous_callback_secret', 'previous_callback_secret_until'];
const actor = { who: 'operator:test', from: 'cli@test' };

/** A merchant with every secret field set (its secret rolled), a portal session of its owner, and one order. */
async function rolledMerchant(): Promise<{ stored: Merchant; token: string; sessionId: string; orderId: string }> {
  const made = await newMerchant(true, 'Profile Shop');
  await rollCallbackSecret(made.user_id, 1, actor);
  const stored = (await findMerchant(made.user_id))!;
  for (const field of SECRET_FIELDS) expect(stored[field as keyof Merchant], field).toBeTruthy();

  const now = new Date();
  const user: PortalUser = {
    user_id: randomUUID(),
    merchant_id: made.user_id,
    role: 'owner',
    name: 'Owner',
    webauthn_user_id: randomUUID(),
    created_at: now.toISOString(),
  };
  await db().send(new PutCommand({ TableName: tableName(), Item: userItem(user) }));
  const sessionId = randomUUID();
  await insertSession(sha256(sessionId), {
    user_id: user.user_id,
    merchant_id: made.user_id,
    csrf_token: randomUUID(),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
  });
  const { order } = await createOrder((await merchantProfile(made.user_id)) as never, { price_amount: 3 }, now);
  return { stored, token: made.api_token, sessionId, orderId: order.order_id };
}

/** No secret field at any depth, and no secret value anywhere in the answer. */
function expectNoSecret(what: string, answer: unknown, stored: Merchant): void {
  const keys: string[] = [];
  JSON.stringify(answer, (key, value: unknown) => {
    keys.push(key);
    return value;
  });
  expect(
    keys.filter((key) => SECRET_FIELDS.includes(key)),
    what,
  ).toEqual([]);
  const text = JSON.stringify(answer);
  for (const field of SECRET_FIELDS) expect(text, `${what}: the value of ${field}`).not.toContain(String(stored[field as keyof Merchant]));
}

describe("a merchant's profile", () => {
  it('no use case that answers a merchant carries any of its secrets', async () => {
    const { stored, token, sessionId, orderId } = await rolledMerchant();
    const userId = stored.user_id;

    const answers: Record<string, unknown> = {
      'API token authentication': (await findMerchantByApiToken(token, await apiTokenHash(token)))?.merchant,
      'portal session': (await authenticateSession(sessionId)).merchant,
      'settings change': (await changeSettings(userId, { callbackStatuses: 'all' }, actor)).merchant,
      'enable/disable': await setDisabled(userId, false, actor),
      'one profile': await merchantProfile(userId),
      'every profile': (await merchantProfiles()).find((profile) => profile.user_id === userId),
      'pay page': (await getPayPage(orderId)).merchant,
    };
    // The portal's order buttons hand the merchant to the API's use cases: catch what they are given.
    const original = PORTAL_ACTIONS.resend_callback;
    const given: unknown[] = [];
    (PORTAL_ACTIONS as Record<string, unknown>).resend_callback = async (merchant: unknown) => {
      given.push(merchant);
    };
    try {
      await actOnOrder(await authenticateSession(sessionId), 'resend_callback', orderId, new Date());
    } finally {
      (PORTAL_ACTIONS as Record<string, unknown>).resend_callback = original;
    }
    answers['portal order action'] = given[0];

    for (const [what, answer] of Object.entries(answers)) {
      expect(answer, what).toMatchObject({ user_id: userId });
      expectNoSecret(what, answer, stored);
    }
  });

  it('the check finds a secret when one is there (it can fail)', async () => {
    const { stored } = await rolledMerchant();
    expect(() => expectNoSecret('the stored merchant', stored, stored)).toThrow();
    const { previous_callback_secret: previous } = stored;
    expect(() => expectNoSecret('a secret under another name', { user_id: stored.user_id, note: previous }, stored)).toThrow();
  });
});
