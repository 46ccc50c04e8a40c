import { InvalidParameterError, ParametersMissingError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { ORDER_ACTORS } from '#shared/domain/portal';
import { PortalInputError, PortalNotFoundError } from '#shared/domain/portal-errors';
import { type Plan, periodDue, type Subscription, type SubscriptionStatus } from '#shared/domain/subscription';
import { PlanNotFoundError, SubscriptionNotFoundError } from '#shared/domain/subscription-errors';
import { churn, monthlyRecurringRevenue } from '#shared/domain/subscription-figures';
import type { PortalSubscriptionsQuery } from '#shared/schemas/portal-subscriptions';
import type { PortalPlan, PortalSubscriptionAction, PortalSubscriptionFigures, PortalSubscriptionPage, PortalSubscriptionRow, PortalSubscriptions, PortalView } from '#shared/schemas/portal-responses';
import { type AdvanceClockBody, type CancelSubscriptionBody, type CreatePlanBody, type ListPlansQuery, planView, subscriptionView, type UpdatePlanBody } from '#shared/schemas/subscriptions';
import { requireRole } from '#shared/services/portal/account';
import { csvExport } from '#shared/services/portal/export';
import type { PortalContext } from '#shared/services/portal/sessions';
import { advanceClock, cancelSubscription, changePlan, createPlan, getPlan, getSubscription, listMerchantPlans, listMerchantSubscriptions, withPlans } from '#shared/services/subscriptions';
import { batchGetAll } from '#shared/store/batches';
import { orderKey } from '#shared/store/keys';
import { orderFromItem } from '#shared/store/orders';
import { findSubscription, findSubscriptionIdsBySearch, listPeriods, listSubscriptions } from '#shared/store/subscriptions';

/**
 * The portal's recurring billing: plans, subscriptions, their figures and CSV, on the API's
 * services with the signed-in user's merchant. Every role reads; owners and developers create
 * and change plans, cancel subscriptions and move a sandbox subscription's test clock (as they
 * change payment links and orders). Another merchant's plan or subscription is the portal's
 * uniform 404; a refused field is INVALID_INPUT naming it.
 *
 * The search finds a subscription by its customer's email or customer id (case ignored) through
 * the search items written with it (shared/store/keys.ts `subscriptionSearchKey`): a Query of
 * the matches' own partition, never a filtered read of the merchant's whole list, so it costs
 * the same at ten subscriptions or a million. A subscription id finds its subscription too.
 */

/** Periods (orders) shown on a subscription's page: the newest. */
export const PERIODS_SHOWN = 50;
/** Subscriptions a search answers at most (the newest matches). */
export const SEARCH_MOST = 50;
/**
 * The most subscriptions of each status (active, past due, canceled) the figures read, newest
 * first by creation from the status index: the figures of a merchant with more say they count
 * the newest only (`complete: false`), in the answer and on the screen.
 */
export const FIGURES_READ_LIMIT = 2_000;
/** Subscriptions per Query when the figures or the export read a list (a Query reads at most 1 MB anyway). */
const READ_PAGE = 500;

async function asPortal<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PlanNotFoundError || error instanceof SubscriptionNotFoundError) throw new PortalNotFoundError();
    if (error instanceof InvalidParameterError || error instanceof ParametersMissingError) throw new PortalInputError(error.message);
    throw error;
  }
}

// --- Plans -------------------------------------------------------------------------------------

const portalPlan = (plan: Plan): PortalPlan => planView(plan);

export const portalListPlans = (context: PortalContext, query: ListPlansQuery) =>
  asPortal(async () => {
    const page = await listMerchantPlans(context.merchant, query);
    return { plans: page.plans.map(portalPlan), next_cursor: page.nextCursor };
  });

export const portalGetPlan = (context: PortalContext, planId: unknown) => asPortal(async () => portalPlan(await getPlan(context.merchant, planId)));

export const portalCreatePlan = (context: PortalContext, body: CreatePlanBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    return portalPlan(await createPlan(context.merchant, body, now));
  });

/** Changes a plan; `archived: true` archives it (no new subscriber), false takes new ones again. */
export const portalUpdatePlan = (context: PortalContext, planId: unknown, body: UpdatePlanBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    return portalPlan(await changePlan(context.merchant, planId, body, now));
  });

// --- Subscriptions -----------------------------------------------------------------------------

/** A subscription as the list and the CSV show it: the API's view with its plan's name and price. */
export function subscriptionRow(subscription: Subscription, plan: Plan, now: Date): PortalSubscriptionRow {
  return {
    ...subscriptionView(subscription, plan, now),
    plan_name: plan.name,
    price_amount: plan.price_amount,
    price_currency: plan.price_currency,
    interval_unit: plan.interval_unit,
    interval_count: plan.interval_count,
    sandbox: subscription.sandbox,
  };
}

/** The merchant's subscriptions the search text names (customer email or id, or a subscription id), newest first, in `status` if given. */
async function searchSubscriptions(merchantId: number, text: string, status: SubscriptionStatus | undefined): Promise<Subscription[]> {
  const ids = new Set(await findSubscriptionIdsBySearch(merchantId, text, SEARCH_MOST));
  if (isId(text)) ids.add(text);
  const found = await Promise.all([...ids].map((id) => findSubscription(id)));
  return found
    .filter((subscription): subscription is Subscription => subscription !== undefined && subscription.user_id === merchantId && (!status || subscription.status === status))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
}

/** A page of the merchant's subscriptions (in one status, or all) by cursor, or with `q` what the search finds. */
export const portalListSubscriptions = (context: PortalContext, query: PortalSubscriptionsQuery, now: Date): Promise<PortalView<PortalSubscriptions>> =>
  asPortal(async () => {
    const text = query.q?.trim() ?? '';
    if (text !== '') {
      const found = await withPlans(await searchSubscriptions(context.user.merchant_id, text, query.status));
      return { subscriptions: found.map(({ subscription, plan }) => subscriptionRow(subscription, plan, now)), next_cursor: null };
    }
    const page = await listMerchantSubscriptions(context.merchant, { status: query.status, limit: query.limit ?? 25, cursor: query.cursor });
    return { subscriptions: page.subscriptions.map(({ subscription, plan }) => subscriptionRow(subscription, plan, now)), next_cursor: page.nextCursor };
  });

/** The merchant's subscriptions in `status`, newest first, at most `most` (pages of the status index), and whether that was all of them. */
async function readStatus(merchantId: number, status: SubscriptionStatus, most: number): Promise<{ subscriptions: Subscription[]; complete: boolean }> {
  const subscriptions: Subscription[] = [];
  let after: string | undefined;
  do {
    const page = await listSubscriptions(merchantId, status, Math.min(READ_PAGE, most - subscriptions.length), after);
    subscriptions.push(...page.items);
    after = page.last;
  } while (after && subscriptions.length < most);
  return { subscriptions, complete: after === undefined };
}

/**
 * Monthly recurring revenue and churn (shared/domain/subscription-figures.ts says how each is
 * counted), from the status index's active, past due and canceled subscriptions, at most
 * {@link FIGURES_READ_LIMIT} of each.
 */
export const portalSubscriptionFigures = (context: PortalContext, now: Date): Promise<PortalView<PortalSubscriptionFigures>> =>
  asPortal(async () => {
    const merchantId = context.user.merchant_id;
    const [active, pastDue, canceled] = await Promise.all([
      readStatus(merchantId, 'active', FIGURES_READ_LIMIT),
      readStatus(merchantId, 'past_due', FIGURES_READ_LIMIT),
      readStatus(merchantId, 'canceled', FIGURES_READ_LIMIT),
    ]);
    const paying = [...active.subscriptions, ...pastDue.subscriptions];
    return {
      mrr: monthlyRecurringRevenue(await withPlans(paying)),
      churn: churn([...paying, ...canceled.subscriptions], now),
      active: active.subscriptions.length,
      past_due: pastDue.subscriptions.length,
      read_limit: FIGURES_READ_LIMIT,
      complete: active.complete && pastDue.complete && canceled.complete,
    };
  });

/** What the user may do to the subscription now. */
function actionsFor(context: PortalContext, subscription: Subscription): PortalSubscriptionAction[] {
  if (!ORDER_ACTORS.includes(context.user.role) || subscription.status === 'canceled') return [];
  const actions: PortalSubscriptionAction[] = ['cancel'];
  // At the period's end only when a period is paid or a trial runs: otherwise the API cancels now either way.
  if (!subscription.cancel_at_period_end && (subscription.periods_paid > 0 || subscription.status === 'trialing')) actions.push('cancel_at_period_end');
  if (subscription.sandbox) actions.push('advance_clock');
  return actions;
}

/** A subscription's page: its row, its plan, what is due next, its newest periods with their orders' statuses, its actions. */
async function subscriptionPage(context: PortalContext, subscriptionId: unknown, now: Date): Promise<PortalView<PortalSubscriptionPage>> {
  const { subscription, plan } = await getSubscription(context.merchant, subscriptionId);
  const periods = await listPeriods(subscription.subscription_id, PERIODS_SHOWN);
  const orders = new Map((await batchGetAll(periods.map((period) => orderKey(period.order_id)))).map(orderFromItem).map((order) => [order.order_id, order]));
  // The current period's price is its order's once made (a later change of the plan's price does not reach it).
  const current = periods.find((period) => period.period === subscription.period && period.order_id === subscription.period_order_id);
  return {
    subscription: subscriptionRow(subscription, plan, now),
    plan: portalPlan(plan),
    due:
      subscription.status === 'canceled'
        ? null
        : {
            period: subscription.period + 1,
            due_at: periodDue(plan, subscription.anchor_at, subscription.period).toISOString(),
            price_amount: current?.price_amount ?? plan.price_amount,
            price_currency: current?.price_currency ?? plan.price_currency,
          },
    periods: periods.map((period) => ({
      period: period.period + 1,
      attempt: period.attempt,
      due_at: period.due_at,
      price_amount: period.price_amount,
      price_currency: period.price_currency,
      order_id: period.order_id,
      order_status: orders.get(period.order_id)?.status ?? null,
      created_at: period.created_at,
    })),
    actions: actionsFor(context, subscription),
  };
}

export const portalGetSubscription = (context: PortalContext, subscriptionId: unknown, now: Date) => asPortal(() => subscriptionPage(context, subscriptionId, now));

/** Cancels now (with the period's unpaid order) or at the end of the period paid; answers the page as it is afterwards. */
export const portalCancelSubscription = (context: PortalContext, subscriptionId: unknown, body: CancelSubscriptionBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    await cancelSubscription(context.merchant, subscriptionId, body, now);
    return subscriptionPage(context, subscriptionId, now);
  });

/** A sandbox subscription's test clock moved forward (every step it owes taken); answers the page as it is afterwards. */
export const portalAdvanceClock = (context: PortalContext, subscriptionId: unknown, body: AdvanceClockBody, now: Date) =>
  asPortal(async () => {
    requireRole(context, ORDER_ACTORS);
    await advanceClock(context.merchant, subscriptionId, body.days, now);
    return subscriptionPage(context, subscriptionId, now);
  });

// --- CSV ---------------------------------------------------------------------------------------

/** The subscriptions CSV's columns: machine values (the API's decimals, ISO times, codes), one row per subscription. */
export const SUBSCRIPTION_EXPORT_COLUMNS = [
  'subscription_id',
  'status',
  'customer_email',
  'customer_id',
  'plan_id',
  'plan_name',
  'price_amount',
  'price_currency',
  'interval_unit',
  'interval_count',
  'period',
  'period_due_at',
  'periods_paid',
  'cancel_at_period_end',
  'canceled_at',
  'cancel_reason',
  'started_at',
  'created_at',
  'sandbox',
] as const satisfies readonly (keyof PortalSubscriptionRow)[];

/**
 * The subscriptions CSV of the list's filters (status, or a search), newest first, streamed a
 * page at a time like the orders export: no row cap, the function's time bounds it, and an
 * export that cannot finish ends with its incomplete line and a cut transfer.
 */
export function exportSubscriptionsCsv(context: PortalContext, query: Pick<PortalSubscriptionsQuery, 'status' | 'q'>, time: { remainingTimeMs: () => number }, now: Date) {
  return csvExport(
    {
      columns: SUBSCRIPTION_EXPORT_COLUMNS,
      what: 'subscriptions',
      incomplete: (rows) => `# EXPORT INCOMPLETE after ${rows} subscriptions: this file is not the whole export. Export again, or one status at a time.\r\n`,
      read: async (cursor) => {
        const page = await portalListSubscriptions(context, { ...query, limit: READ_PAGE, ...(cursor ? { cursor } : {}) }, now);
        return { rows: page.subscriptions, next_cursor: page.next_cursor };
      },
    },
    time,
  );
}
