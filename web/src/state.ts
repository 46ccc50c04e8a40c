import type { PayInvoice, PayOrder, PayView } from './api';
import { GATEWAY_CURRENCIES } from '#shared/domain/currencies';
import type { OrderStatus } from '#shared/domain/statuses';
import { initialLang } from '../common/i18n';
import { LANG_KEY, STRINGS, type Lang, type Strings } from './i18n';

/**
 * What the page knows, shared by its three parts: render.ts draws it, polling.ts keeps the
 * order fresh, actions.ts runs what the buyer asks for. Neither of the last two imports the
 * first: they ask for a new drawing through {@link rerender}, which main.ts connects.
 */
export interface State {
  lang: Lang;
  view?: PayView;
  failure?: 'notFound' | 'load';
  /** The control whose request is running (its data-k). */
  busy?: string;
  /** The cancel control asks for confirmation. */
  asking?: boolean;
  /** Why the last action failed. */
  problem?: string;
  /** Leaving for the merchant's page. */
  leaving?: boolean;
}

export const state: State = { lang: initialLang(LANG_KEY) };
export const t = (): Strings => STRINGS[state.lang];

const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const orderId = new URLSearchParams(location.search).get('id') ?? '';
export const validOrderId = (): boolean => ORDER_ID.test(orderId);

/** Statuses no buyer action or payment can change any more: polling stops. */
export const SETTLED: readonly OrderStatus[] = ['PAID', 'RESOLVED', 'CANCELED', 'REFUND_PENDING', 'REFUNDED'];

/** A NEW order whose invoice ran out: the expiry job has not caught up yet, but it cannot be paid. */
export const ranOut = (order: PayOrder, invoice: PayInvoice | undefined): boolean => order.status === 'NEW' && invoice !== undefined && Date.now() >= invoice.expired_at_t;

/** The invoice of a view, when one has been made (a checkout). */
export const invoiceOf = (view: PayView): PayInvoice | undefined => ('pay_amount' in view.invoice ? (view.invoice as PayInvoice) : undefined);

/** The sandbox gateway's page: `.../sandbox-gateway/<alipay|aliglobal|wechat>`; the gateway's code. */
export function gatewayPath(): string | undefined {
  const name = /\/sandbox-gateway\/([a-z]+)\/?$/.exec(location.pathname)?.[1]?.toUpperCase();
  return name && (GATEWAY_CURRENCIES as readonly string[]).includes(name) ? name : undefined;
}

/** The control to focus after the next render (else the one focused before it, by data-k). */
let focusNext: string | undefined;
export const focusAfterRender = (key: string): void => {
  focusNext = key;
};
export function takeFocusRequest(): string | undefined {
  const key = focusNext;
  focusNext = undefined;
  return key;
}

let drawing: () => void = () => undefined;
/** main.ts connects the renderer here. */
export const onRerender = (draw: () => void): void => {
  drawing = draw;
};
/** Draws the page again from {@link state}. */
export const rerender = (): void => drawing();
