import { fill, h } from '../../../common/dom';
import { QUIET, qrModules, qrSvg } from '../../../common/qr';
import type { PortalOrderRow as OrderRow } from '#shared/schemas/portal-responses';
import { linksApi, type PaymentLinkRow } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { linkPrice, mayChangeLinks, stateLabel } from './links';
import { keepFresh, notice, say, sayFailure, showScreen, type Screen, facts, type Column, columnRow, dataTable, statusPill, section } from './screen';

/** Pixels per QR module in the PNG: a 33-module code with its quiet zone is 410 px, sharp in print at 3.5 cm. */
const PNG_SCALE = 10;

/** The link's QR code as a PNG (drawn from the same modules as the SVG), as a data: URL for a download link. */
function qrPngUrl(text: string): string {
  const { count, isDark } = qrModules(text);
  const size = (count + QUIET * 2) * PNG_SCALE;
  const canvas = h('canvas', { width: size, height: size });
  const context = canvas.getContext('2d')!;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, size, size);
  context.fillStyle = '#000';
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (isDark(row, col)) context.fillRect((col + QUIET) * PNG_SCALE, (row + QUIET) * PNG_SCALE, PNG_SCALE, PNG_SCALE);
    }
  }
  return canvas.toDataURL('image/png');
}

/** A payment link's page: its URL and QR code (PNG, SVG), figures, its orders, and disable/enable. */
export const linkScreen: Screen = (main, params) => {
  const strings = t();
  const linkId = params.id ?? '';
  const outcome = notice();
  const content = h('div');
  let drawnFor = '';
  const orderColumns: Column<OrderRow>[] = [
    [strings.colOrder, (order) => h('a', { href: `#/orders/${order.order_id}` }, order.order_id)],
    [strings.colStatus, (order) => statusPill(order.status)],
    [strings.colAmount, (order) => formatAmount(order.price_amount, order.price_currency)],
    [strings.colCreated, (order) => formatTime(order.created_at)],
  ];
  const qrSection = (link: PaymentLinkRow) => {
    const code = qrSvg(link.url, strings.qrLabel(link.title));
    code.setAttribute('class', 'link-qr');
    const svgText = new XMLSerializer().serializeToString(code);
    return section(
      'qr-title',
      strings.qrTitle,
      code,
      h(
        'div',
        { class: 'buttons' },
        h('a', { class: 'button', id: 'qr-png', href: qrPngUrl(link.url), download: `payment-link-${link.link_id}.png` }, strings.downloadPng),
        h('a', { class: 'button', id: 'qr-svg', href: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`, download: `payment-link-${link.link_id}.svg` }, strings.downloadSvg),
      ),
    );
  };
  const draw = (link: PaymentLinkRow, orders: OrderRow[]) => {
    const toggle = mayChangeLinks()
      ? h(
          'button',
          {
            type: 'button',
            id: 'toggle-link',
            onclick: async () => {
              const result = await linksApi.change(link.link_id, { enabled: !link.enabled });
              if (!result.ok) return sayFailure(outcome, result);
              say(outcome, result.data.link.enabled ? strings.linkEnabled : strings.linkDisabled);
              await fresh.now();
            },
          },
          link.enabled ? strings.disableLink(link.title) : strings.enableLink(link.title),
        )
      : null;
    const copy = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          await navigator.clipboard
            .writeText(link.url)
            .then(() => say(outcome, strings.copied))
            .catch(() => undefined);
        },
      },
      strings.copyLink,
    );
    fill(
      content,
      section(
        'details-title',
        strings.details,
        facts([
          [strings.colState, stateLabel(link)],
          [strings.linkUrl, h('span', { class: 'link-url' }, h('a', { href: link.url, id: 'link-url', target: '_blank', rel: 'noopener' }, link.url), copy)],
          [strings.colPrice, linkPrice(link)],
          [strings.unitsLeft, link.units_left === null ? strings.unlimited : `${link.units_left} / ${link.quantity}`],
          [strings.expiresAt, link.expires_at ? formatTime(link.expires_at) : strings.noExpiry],
          [strings.colOrders, String(link.order_count)],
          [strings.colPaid, h('span', { id: 'paid-count' }, String(link.paid_count))],
          [strings.colTotal, formatAmount(link.paid_total, link.price_currency)],
        ]),
        toggle ? h('div', { class: 'buttons' }, toggle) : null,
      ),
      // The QR code is drawn once per URL (a poll must not rebuild the downloads).
      drawnFor === link.url ? content.querySelector('section[aria-labelledby="qr-title"]') : qrSection(link),
      section(
        'link-orders-title',
        strings.linkOrders,
        orders.length ? dataTable({ class: 'orders', labelledBy: 'link-orders-title' }, orderColumns, h('tbody', null, orders.map(columnRow(orderColumns)))) : h('p', null, strings.noLinkOrders),
      ),
    );
    drawnFor = link.url;
  };
  const heading = showScreen(main, strings.links, h('p', null, h('a', { href: '#/links' }, strings.backToLinks)), outcome, content, h('p', { class: 'hint' }, strings.live));
  const fresh = keepFresh(
    outcome,
    () => linksApi.get(linkId),
    ({ link, orders }) => {
      heading.textContent = strings.linkPage(link.title);
      document.title = heading.textContent;
      draw(link, orders);
    },
    strings.noSuchLink,
  );
  return fresh.leave;
};
