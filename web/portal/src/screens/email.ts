import { h } from '../../../common/dom';
import { portalApi, type EmailPreferences } from '../api';
import { t } from '../i18n';
import { field, notice, say, sayFailure, showScreen, type Screen } from './screen';

const TOPICS = ['unresolved', 'callbacks', 'refund_address', 'new_passkey', 'team'] as const;

/** The signed-in user's own email: where it goes, its language, payments (each, daily, off) and which events. Every role. */
export const emailScreen: Screen = (main) => {
  const strings = t();
  const outcome = notice();
  const content = h('div', null, h('p', null, strings.loading));
  showScreen(main, strings.email, outcome, content);
  void portalApi.emailPreferences().then((result) => {
    if (!result.ok) return sayFailure(outcome, result);
    draw(result.data.preferences);
  });

  function draw(preferences: EmailPreferences): void {
    const address = h('input', {
      id: 'email-address',
      name: 'address',
      type: 'email',
      autocomplete: 'email',
      maxlength: '254',
      value: preferences.address ?? '',
      'aria-describedby': 'email-address-hint',
    });
    const language = h(
      'select',
      { id: 'email-language', name: 'language' },
      h('option', { value: 'en', selected: preferences.language === 'en' }, 'English'),
      h('option', { value: 'zh', selected: preferences.language === 'zh', lang: 'zh-CN' }, '中文'),
    );
    const payments = h(
      'select',
      { id: 'email-payments', name: 'payments' },
      (['each', 'daily', 'off'] as const).map((choice) =>
        h('option', { value: choice, selected: preferences.payments === choice }, { each: strings.emailPaymentsEach, daily: strings.emailPaymentsDaily, off: strings.emailPaymentsOff }[choice]),
      ),
    );
    const boxes = Object.fromEntries(TOPICS.map((topic) => [topic, h('input', { type: 'checkbox', id: `email-topic-${topic}`, name: topic, checked: preferences.topics[topic] })])) as Record<
      (typeof TOPICS)[number],
      HTMLInputElement
    >;
    const form = h(
      'form',
      {
        class: 'settings',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const result = await portalApi.changeEmailPreferences({
            address: address.value.trim(),
            language: language.value as 'en' | 'zh',
            payments: payments.value as 'each' | 'daily' | 'off',
            topics: Object.fromEntries(TOPICS.map((topic) => [topic, boxes[topic].checked])) as Record<(typeof TOPICS)[number], boolean>,
          });
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.emailSaved);
        },
      },
      field('email-address', strings.emailAddress, address, strings.emailAddressHint),
      field('email-language', strings.emailLanguage, language),
      field('email-payments', strings.emailPayments, payments),
      h(
        'fieldset',
        null,
        h('legend', null, strings.emailTopics),
        TOPICS.map((topic) => h('label', { class: 'check' }, boxes[topic], strings.emailTopicNames[topic]!)),
      ),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.save)),
    );
    content.replaceChildren(h('p', null, strings.emailLead), form);
  }
};
