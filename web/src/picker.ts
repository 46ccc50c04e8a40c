import { h, type Child } from '../common/dom';
import { t } from './state';

/**
 * The currency buttons of the payment page and of the payment link page: one button per code,
 * its name in the page's language; the current one pressed, all of them inert while a request runs.
 */
export function currencyPicker(currencies: readonly string[], options: { current?: string; busy: boolean; pick: (code: string) => void }): HTMLElement {
  const strings = t();
  return h(
    'fieldset',
    { class: 'picker' },
    h('legend', null, strings.payWith),
    h(
      'div',
      { class: 'grid' },
      currencies.map((code) =>
        h(
          'button',
          {
            type: 'button',
            'data-k': `cur-${code}`,
            'aria-pressed': String(code === options.current),
            'aria-disabled': String(options.busy),
            onclick: () => options.pick(code),
          },
          h('strong', null, breakAfterUnderscores(code)),
          h('span', null, strings.currencies[code] ?? code),
        ),
      ),
    ),
  );
}

/** USDT_ERC20 may wrap after its underscore on a narrow phone, and nowhere else. */
const breakAfterUnderscores = (code: string): Child[] => code.split('_').flatMap((part, index, parts) => (index < parts.length - 1 ? [`${part}_`, h('wbr')] : [part]));
