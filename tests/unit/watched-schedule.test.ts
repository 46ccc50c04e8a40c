import { describe, expect, it } from 'vitest';
import type { WatchedAddress } from '#shared/store/watch-list';
import { WatchedSchedule } from '#shared/watchers/sources/watched-schedule';

const at = (iso: string) => new Date(iso);
const entry = (address: string, openUntil: string, currency = 'USDT_TRC20'): WatchedAddress => ({
  chain: 'TRON',
  address,
  currency,
  since: '2026-11-25T10:00:00.000Z',
  open_until: openUntil,
  until: '2026-12-02T11:00:00.000Z',
});

describe('when a per-address source asks about a watched address', () => {
  const open = entry('open', '2026-11-25T11:00:00.000Z');
  const late = entry('late', '2026-11-25T10:30:00.000Z');
  const other = entry('other', '2026-11-25T11:00:00.000Z', 'USDC_SOL');

  it('open invoices every step; expired ones in their late window every 10 minutes; only its own currency', () => {
    const schedule = new WatchedSchedule();
    const list = [open, late, other];
    expect(schedule.due(list, 'USDT_TRC20', at('2026-11-25T10:45:00Z'), 100).map((e) => e.address)).toEqual(['open', 'late']);
    expect(schedule.due(list, 'USDT_TRC20', at('2026-11-25T10:45:10Z'), 100).map((e) => e.address)).toEqual(['open']);
    expect(schedule.due(list, 'USDT_TRC20', at('2026-11-25T10:54:59Z'), 100).map((e) => e.address)).toEqual(['open']);
    expect(schedule.due(list, 'USDT_TRC20', at('2026-11-25T10:55:00Z'), 100).map((e) => e.address)).toEqual(['open', 'late']);
  });

  it('at most `limit` addresses a step', () => {
    expect(new WatchedSchedule().due([open, late], 'USDT_TRC20', at('2026-11-25T10:45:00Z'), 1)).toHaveLength(1);
  });

  it('more open invoices than a step asks about: the next step goes on where it stopped, so the newest are asked too', () => {
    const schedule = new WatchedSchedule();
    const list = Array.from({ length: 5 }, (_, i) => entry(`a${i}`, '2026-11-25T11:00:00.000Z'));
    const steps = [0, 10, 20].map((s) => schedule.due(list, 'USDT_TRC20', at(`2026-11-25T10:45:${String(s).padStart(2, '0')}Z`), 2).map((e) => e.address));
    expect(steps).toEqual([
      ['a0', 'a1'],
      ['a2', 'a3'],
      ['a4', 'a0'],
    ]);
    // Back under the limit: every one, every step.
    expect(schedule.due(list.slice(0, 2), 'USDT_TRC20', at('2026-11-25T10:45:30Z'), 2).map((e) => e.address)).toEqual(['a0', 'a1']);
  });
});
