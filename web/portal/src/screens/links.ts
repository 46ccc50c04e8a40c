import { MAX_LINK_QUANTITY } from '#shared/domain/limits';
import { h } from '../../../common/dom';
import { linksApi, type PaymentLinkRow } from '../api';
import { formatAmount } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { signedInUser } from '../session';
import { field, pagedRows, say, sayFailure, showScreen, type Screen, type Column, columnRow, dataTable, section } from './screen';

/** Price currencies a link may use: fiat and stable coins (the API refuses others, naming the field). */
const LINK_CURRENCIES = ['USD', 'EUR', 'GBP', 'CNY', 'JPY', 'HKD', 'SGD', 'USDT', 'USDC'];

/** What a link asks: its price, or the range the buyer chooses in. */
export const linkPrice = (link: PaymentLinkRow): string =>
  link.price_amount !== null
    ? formatAmount(link.price_amount, link.price_currency)
    : t().chooseRange(formatAmount(link.min_amount ?? '', link.price_currency), formatAmount(link.max_amount ?? '', link.price_currency));

export const stateLabel = (link: PaymentLinkRow) => h('span', { class: `pill l-${link.state.toLowerCase()}` }, t().linkStates[link.state] ?? link.state);

/** May the signed-in user create and change links (owners and developers; the API checks too)? */
export const mayChangeLinks = (): boolean => ['owner', 'developer'].includes(signedInUser()?.role ?? '');

/** The payment links: each with its state, paid count and total; a form to create one (owners and developers). */
export const linksScreen: Screen = (main) => {
  const strings = t();
  const columns: Column<PaymentLinkRow>[] = [
    [strings.colLink, (link) => h('a', { href: `#/links/${link.link_id}` }, link.title)],
    [strings.colPrice, linkPrice],
    [strings.colState, stateLabel],
    [strings.colOrders, (link) => String(link.order_count)],
    [strings.colPaid, (link) => String(link.paid_count)],
    [strings.colTotal, (link) => formatAmount(link.paid_total, link.price_currency)],
  ];
  const read = async (cursor?: string) => {
    const result = await linksApi.list(cursor);
    return result.ok ? { ...result, data: { rows: result.data.links, next_cursor: result.data.next_cursor } } : result;
  };
  const { body, outcome, more, load } = pagedRows(read, columnRow(columns), strings.noLinks);
  showScreen(
    main,
    strings.links,
    h('p', null, strings.linksLead),
    mayChangeLinks() ? createForm(outcome, (id) => navigate(`#/links/${id}`)) : null,
    outcome,
    dataTable({ class: 'links', caption: strings.linksCaption }, columns, body),
    more,
  );
  void load();
};

function createForm(outcome: HTMLElement, created: (linkId: string) => void): HTMLElement {
  const strings = t();
  const input = (id: string, props: Record<string, string | boolean> = {}) => h('input', { id, name: id, autocomplete: 'off', ...props });
  const title = input('link-title', { required: true, maxlength: '200' });
  const description = input('link-description', { maxlength: '800' });
  const fixed = h('input', { id: 'pricing-fixed', name: 'pricing', type: 'radio', value: 'fixed', checked: true });
  const chosen = h('input', { id: 'pricing-chosen', name: 'pricing', type: 'radio', value: 'chosen' });
  const amount = input('link-price', { inputmode: 'decimal' });
  const min = input('link-min', { inputmode: 'decimal' });
  const max = input('link-max', { inputmode: 'decimal' });
  const currency = h(
    'select',
    { id: 'link-currency', name: 'price_currency' },
    LINK_CURRENCIES.map((code) => h('option', { value: code }, code)),
  );
  const currencies = input('link-currencies', { 'aria-describedby': 'link-currencies-hint', spellcheck: 'false' });
  const quantity = input('link-quantity', { type: 'number', min: '1', max: String(MAX_LINK_QUANTITY), step: '1', inputmode: 'numeric', 'aria-describedby': 'link-quantity-hint' });
  const expires = input('link-expires', { type: 'datetime-local' });
  const success = input('link-success', { type: 'url', maxlength: '2048' });
  const askEmail = h('input', { id: 'link-ask-email', name: 'ask_email', type: 'checkbox' });
  const fixedFields = h('div', { class: 'field' }, field('link-price', strings.priceAmount, amount));
  const chosenFields = h('div', { class: 'inline-form', hidden: true }, field('link-min', strings.minAmount, min), field('link-max', strings.maxAmount, max));
  const switchPricing = () => {
    fixedFields.hidden = !fixed.checked;
    chosenFields.hidden = fixed.checked;
  };
  fixed.addEventListener('change', switchPricing);
  chosen.addEventListener('change', switchPricing);
  return section(
    'new-link-title',
    strings.newLink,
    h(
      'form',
      {
        class: 'inline-form',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const codes = currencies.value
            .split(/[\s,]+/)
            .filter(Boolean)
            .map((code) => code.toUpperCase());
          const body: Record<string, unknown> = {
            title: title.value.trim(),
            price_currency: currency.value,
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
            ...(fixed.checked ? { price_amount: amount.value.trim() } : { min_amount: min.value.trim(), max_amount: max.value.trim() }),
            ...(codes.length ? { currencies: codes } : {}),
            ...(quantity.value ? { quantity: Number(quantity.value) } : {}),
            ...(expires.value ? { expires_at: `${expires.value}:00Z` } : {}),
            ...(success.value.trim() ? { success_url: success.value.trim() } : {}),
            ask_email: askEmail.checked,
          };
          const result = await linksApi.create(body);
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.linkCreated);
          created(result.data.link.link_id);
        },
      },
      field('link-title', strings.linkTitle, title),
      field('link-description', strings.linkDescription, description),
      h(
        'fieldset',
        { class: 'choice' },
        h('legend', null, strings.pricing),
        h('label', { for: 'pricing-fixed', class: 'check' }, fixed, ' ', strings.fixedPrice),
        h('label', { for: 'pricing-chosen', class: 'check' }, chosen, ' ', strings.buyerChooses),
      ),
      fixedFields,
      chosenFields,
      field('link-currency', strings.priceCurrency, currency),
      field('link-currencies', strings.linkCurrencies, currencies, strings.linkCurrenciesHint),
      field('link-quantity', strings.quantity, quantity, strings.quantityHint),
      field('link-expires', strings.expiresAt, expires),
      field('link-success', strings.successUrl, success),
      h('label', { for: 'link-ask-email', class: 'check' }, askEmail, ' ', strings.askEmail),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.createLink)),
    ),
  );
}
