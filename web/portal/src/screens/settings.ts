import { h } from '../../../common/dom';
import { WALLET_NETWORKS } from '#shared/domain/networks';
import type { SettingsBody } from '#shared/schemas/portal';
import type { PortalSettings } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { t } from '../i18n';
import { field, notice, say, sayFailure, showScreen, type Screen, facts } from './screen';

const KEY_CURRENCIES = ['BTC', 'LTC', 'BCH', 'ETH'] as const;
const RECEIVE_CURRENCIES = ['USD', 'USDT', 'USDC'];

/** Payment settings: the mode shown plainly, receive currency, callback statuses, and each key with its first addresses before saving. */
export const settingsScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const content = h('div', null, h('p', null, strings.loading));
  showScreen(main, strings.settings, outcome, content);
  void portalApi.settings().then((result) => {
    if (!result.ok) return sayFailure(outcome, result);
    draw(result.data.settings);
  });

  function draw(settings: PortalSettings['settings']): void {
    const receive = h(
      'select',
      { id: 'receive-currency', name: 'receive_currency' },
      RECEIVE_CURRENCIES.map((code) => h('option', { value: code, selected: settings.receive_currency === code }, code)),
    );
    const statuses = h(
      'select',
      { id: 'callback-statuses', name: 'callback_statuses' },
      h('option', { value: 'paid', selected: settings.callback_statuses === 'paid' }, strings.callbacksPaid),
      h('option', { value: 'all', selected: settings.callback_statuses === 'all' }, strings.callbacksAll),
    );
    const keys = Object.fromEntries(
      KEY_CURRENCIES.map((code) => [
        code,
        h('input', {
          id: `key-${code}`,
          name: `key-${code}`,
          value: settings.xpubs[code]?.key ?? '',
          spellcheck: 'false',
          autocomplete: 'off',
          maxlength: '200',
          'aria-describedby': `key-${code}-hint`,
        }),
      ]),
    ) as Record<string, HTMLInputElement>;
    const previews = Object.fromEntries(KEY_CURRENCIES.map((code) => [code, h('div', { id: `addresses-${code}`, 'aria-live': 'polite' })])) as Record<string, HTMLElement>;
    const showAddresses = (addresses: Record<string, string[]>) => {
      for (const code of KEY_CURRENCIES) {
        const list = addresses[code];
        previews[code]!.replaceChildren(
          ...(list?.length
            ? [
                h('p', { class: 'hint' }, strings.firstAddresses(code)),
                h(
                  'ol',
                  { class: 'addresses', start: '0' },
                  list.map((address) => h('li', null, h('code', null, address))),
                ),
              ]
            : []),
        );
      }
    };
    showAddresses(Object.fromEntries(Object.entries(settings.xpubs).map(([code, entry]) => [code, entry.addresses])));
    const wallets = Object.fromEntries(
      WALLET_NETWORKS.map((network) => [
        network,
        h('input', {
          id: `wallet-${network}`,
          name: `wallet-${network}`,
          value: settings.wallets?.[network] ?? '',
          spellcheck: 'false',
          autocomplete: 'off',
          maxlength: '100',
          'aria-describedby': `wallet-${network}-hint`,
        }),
      ]),
    ) as Record<string, HTMLInputElement>;
    const changedWallets = () =>
      Object.fromEntries(WALLET_NETWORKS.filter((network) => wallets[network]!.value.trim() !== (settings.wallets?.[network] ?? '')).map((network) => [network, wallets[network]!.value.trim()]));
    const changedKeys = () => Object.fromEntries(KEY_CURRENCIES.filter((code) => keys[code]!.value.trim() !== (settings.xpubs[code]?.key ?? '')).map((code) => [code, keys[code]!.value.trim()]));
    const preview = h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          const shown = Object.fromEntries(KEY_CURRENCIES.filter((code) => keys[code]!.value.trim()).map((code) => [code, keys[code]!.value.trim()]));
          const result = await portalApi.previewKeys(shown);
          if (!result.ok) return sayFailure(outcome, result);
          showAddresses(result.data.addresses);
          say(outcome, strings.checkAddresses);
        },
      },
      strings.previewKeys,
    );
    const form = h(
      'form',
      {
        class: 'settings',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const xpubs = changedKeys();
          const walletChanges = changedWallets();
          const change: SettingsBody = {
            receive_currency: receive.value,
            callback_statuses: statuses.value as SettingsBody['callback_statuses'],
            ...(Object.keys(xpubs).length ? { xpubs } : {}),
            ...(Object.keys(walletChanges).length ? { wallets: walletChanges } : {}),
          };
          const result = await portalApi.changeSettings(change);
          if (!result.ok) return sayFailure(outcome, result);
          // As saved: a TON wallet is kept in its one form (UQ...).
          settings.wallets = result.data.wallets;
          for (const network of WALLET_NETWORKS) wallets[network]!.value = result.data.wallets[network] ?? '';
          for (const [code, key] of Object.entries(xpubs)) settings.xpubs[code] = { key, addresses: result.data.addresses[code] ?? [] };
          for (const [code, key] of Object.entries(xpubs)) if (key === '') delete settings.xpubs[code];
          say(outcome, strings.saved);
        },
      },
      field('receive-currency', strings.receiveCurrency, receive),
      field('callback-statuses', strings.callbackStatuses, statuses),
      h('h2', null, strings.keysTitle),
      h('p', null, strings.keysLead),
      KEY_CURRENCIES.map((code) => h('div', { class: 'key' }, field(`key-${code}`, strings.keyLabel(code), keys[code]!, strings.keyHint), previews[code]!)),
      h('h2', null, strings.walletsTitle),
      h('p', null, strings.walletsLead),
      WALLET_NETWORKS.map((network) => h('div', { class: 'key' }, field(`wallet-${network}`, strings.walletLabel(network), wallets[network]!, strings.walletHint(network)))),
      h('div', { class: 'buttons' }, preview, h('button', { type: 'submit', class: 'primary' }, strings.save)),
    );
    content.replaceChildren(
      facts([[strings.mode, h('strong', { class: settings.sandbox ? 'mode sandbox' : 'mode live' }, settings.sandbox ? strings.modeSandbox : strings.modeLive)]]),
      h('p', null, strings.settingsLead),
      form,
    );
  }
};
