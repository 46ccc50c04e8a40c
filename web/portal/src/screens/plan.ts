import type { PortalPlan } from '#shared/schemas/portal-responses';
import { fill, h } from '../../../common/dom';
import { plansApi } from '../api';
import { formatTime } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { mayChangeBilling, planFields, planPrice, planStateLabel } from './plans';
import { notice, say, sayFailure, showScreen, type Screen, facts, section } from './screen';

/** A plan's page: what it bills, its id for the API, the form that changes it and the archive button (owners and developers). */
export const planScreen: Screen = (main, params) => {
  const strings = t();
  const planId = params.id ?? '';
  const outcome = notice();
  const content = h('div');
  const draw = (plan: PortalPlan) => {
    heading.textContent = strings.planPage(plan.name);
    document.title = heading.textContent;
    fill(
      content,
      section(
        'details-title',
        strings.details,
        facts([
          [strings.colState, planStateLabel(plan)],
          [strings.colPrice, planPrice(plan)],
          [strings.colTrial, plan.trial_days > 0 ? strings.daysOf(plan.trial_days) : strings.noTrial],
          [strings.graceDays, String(plan.grace_days)],
          [strings.invoiceDaysBefore, String(plan.invoice_days_before)],
          [strings.planId, h('code', { id: 'plan-id' }, plan.plan_id)],
          [strings.created, formatTime(plan.created_at)],
          [strings.updated, formatTime(plan.updated_at)],
        ]),
        h('p', { class: 'hint' }, strings.planApiHint),
        mayChangeBilling() ? h('div', { class: 'buttons' }, archiveButton(plan)) : null,
      ),
      mayChangeBilling() ? editForm(plan) : null,
    );
  };
  const archiveButton = (plan: PortalPlan) =>
    h(
      'button',
      {
        type: 'button',
        id: 'archive-plan',
        onclick: async () => {
          const result = await plansApi.change(plan.plan_id, { archived: !plan.archived });
          if (!result.ok) return sayFailure(outcome, result);
          draw(result.data.plan);
          say(outcome, result.data.plan.archived ? strings.planArchived : strings.planRestored);
        },
      },
      plan.archived ? strings.restorePlan(plan.name) : strings.archivePlan(plan.name),
    );
  const editForm = (plan: PortalPlan) => {
    const { fields, values } = planFields('edit', plan);
    return section(
      'edit-plan-title',
      strings.editPlan,
      h('p', null, strings.editPlanLead),
      h(
        'form',
        {
          class: 'inline-form',
          onsubmit: async (event: Event) => {
            event.preventDefault();
            // The API changes what is sent: an empty URL field sends nothing (the plan keeps its URL).
            const result = await plansApi.change(plan.plan_id, values());
            if (!result.ok) return sayFailure(outcome, result);
            draw(result.data.plan);
            say(outcome, strings.planSaved);
          },
        },
        Object.values(fields),
        h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.savePlan)),
      ),
    );
  };
  const heading = showScreen(main, strings.plans, h('p', null, h('a', { href: '#/plans' }, strings.backToPlans)), outcome, content);
  void plansApi.get(planId).then((result) => {
    if (result.ok) return draw(result.data.plan);
    if (result.status === 401) return navigate('#/sign-in');
    if (result.status === 404) return say(outcome, strings.noSuchPlan, 'error');
    sayFailure(outcome, result);
  });
};
