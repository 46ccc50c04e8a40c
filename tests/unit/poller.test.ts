import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerOrder, type Look, type Pace, poller } from '../../web/common/poller';

/** The page's document as the poller reads it: whether the tab is hidden, and its visibilitychange listeners. */
class FakeDocument {
  hidden = false;
  readonly listeners = new Set<() => void>();
  addEventListener(_type: string, listener: () => void) {
    this.listeners.add(listener);
  }
  removeEventListener(_type: string, listener: () => void) {
    this.listeners.delete(listener);
  }
  show(hidden: boolean) {
    this.hidden = hidden;
    for (const listener of this.listeners) listener();
  }
}

const PACE: Pace = { visibleMs: 1_000, hiddenMs: 10_000, maxBackoffMs: 8_000 };
let page: FakeDocument;
let start: number;

beforeEach(() => {
  vi.useFakeTimers();
  start = Date.now();
  page = new FakeDocument();
  vi.stubGlobal('document', page);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** A look that answers what `answers` gives, counting the time of each look from the start (ms). */
function looks(answers: (n: number) => Look = () => ({ ok: true })) {
  const at: number[] = [];
  return {
    at,
    look: async (): Promise<Look> => {
      at.push(Date.now() - start);
      return answers(at.length);
    },
  };
}

describe('the pages’ poller', () => {
  it('looks at once, then at the visible pace, the hidden pace in a hidden tab, and at once when the tab is shown', async () => {
    const seen = looks();
    const polls = poller(PACE, seen.look);
    await polls.now();
    await vi.advanceTimersByTimeAsync(2_500);
    expect(seen.at).toEqual([0, 1_000, 2_000]);
    page.show(true);
    await vi.advanceTimersByTimeAsync(15_000);
    // Hidden at 2,500: the next look 10 s from then.
    expect(seen.at).toEqual([0, 1_000, 2_000, 12_500]);
    page.show(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.at).toEqual([0, 1_000, 2_000, 12_500, 17_500]);
    polls.stop();
  });

  it('waits twice as long after each failure in a row, up to its cap, and at the pace again after an answer', async () => {
    const seen = looks((n) => (n <= 5 ? { ok: false, retryAfterMs: 0 } : { ok: true }));
    const polls = poller(PACE, seen.look);
    await polls.now();
    await vi.advanceTimersByTimeAsync(32_000);
    const gaps = seen.at.slice(1).map((time, i) => time - seen.at[i]!);
    expect(gaps.slice(0, 7)).toEqual([2_000, 4_000, 8_000, 8_000, 8_000, 1_000, 1_000]);
    polls.stop();
  });

  it('sends nothing before the wait the service asked for, and says how long is left', async () => {
    const seen = looks((n) => (n === 1 ? { ok: false, retryAfterMs: 5_000 } : { ok: true }));
    const polls = poller(PACE, seen.look);
    await polls.now();
    expect(polls.waitLeftMs()).toBe(5_000);
    await polls.now();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(seen.at).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.at).toEqual([0, 5_000]);
    expect(polls.waitLeftMs()).toBe(0);
    polls.holdOff(3_000);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen.at).toEqual([0, 5_000]);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.at).toEqual([0, 5_000, 8_000]);
    polls.stop();
  });

  it('holds a look while the reader is busy, keeps a slower pace when asked, and schedules none when no news is wanted', async () => {
    let busy = true;
    let wanted: boolean | number = true;
    const seen = looks();
    const polls = poller(PACE, seen.look, { held: () => busy, wanted: () => wanted });
    await polls.now();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(seen.at).toEqual([]);
    busy = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen.at).toEqual([4_000]);
    wanted = 3_000;
    await vi.advanceTimersByTimeAsync(7_000);
    // The look at 5,000 was set before the slower pace was asked for.
    expect(seen.at).toEqual([4_000, 5_000, 8_000, 11_000]);
    wanted = false;
    // The look set for 14,000 goes out no more, nor one asked for.
    await vi.advanceTimersByTimeAsync(10_000);
    await polls.now();
    expect(seen.at).toEqual([4_000, 5_000, 8_000, 11_000]);
    polls.stop();
  });

  it('a look asked while one is under way follows it at once, and two never run together', async () => {
    const at: number[] = [];
    let running = 0;
    let most = 0;
    let answer: (() => void) | undefined;
    const polls = poller(PACE, async () => {
      at.push(Date.now() - start);
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => (answer = resolve));
      running -= 1;
      return { ok: true };
    });
    void polls.now();
    await vi.advanceTimersByTimeAsync(300);
    void polls.now();
    void polls.now();
    expect(at).toEqual([0]);
    answer!();
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual([0, 300]);
    answer!();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(at).toEqual([0, 300, 1_300]);
    expect(most).toBe(1);
    polls.stop();
    answer!();
  });

  it('a poller not started (a page loaded but not shown) looks at nothing when the tab is shown', async () => {
    const idle = looks();
    poller(PACE, idle.look);
    page.show(true);
    page.show(false);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(idle.at).toEqual([]);
    expect(page.listeners.size).toBe(0);
  });

  it("looks no more once stopped, or once a look says 'stop', and leaves the tab's events alone", async () => {
    const stopped = looks();
    const polls = poller(PACE, stopped.look);
    await polls.now();
    polls.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    page.show(false);
    await polls.now();
    expect(stopped.at).toEqual([0]);
    const ended = looks((n) => (n === 2 ? 'stop' : { ok: true }));
    const second = poller(PACE, ended.look);
    await second.now();
    expect(page.listeners.size).toBe(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(ended.at).toEqual([5_000, 6_000]);
    expect(page.listeners.size).toBe(0);
  });
});

describe('answers in the order their requests went out', () => {
  it('draws an answer unless an answer to a later request was drawn first', () => {
    const turn = answerOrder();
    // A look on its way, an action sent after it: the action's answer comes first.
    const look = turn();
    const action = turn();
    expect(action()).toBe(true);
    expect(look()).toBe(false);
    // Answers that come in the order they were asked are all drawn.
    const first = turn();
    const second = turn();
    expect(first()).toBe(true);
    expect(second()).toBe(true);
    // One that comes after a later one was drawn is left, however late it is.
    const slow = turn();
    const quick = turn();
    expect(quick()).toBe(true);
    expect(slow()).toBe(false);
    expect(turn()()).toBe(true);
  });

  it('keeps each page’s order apart', () => {
    const one = answerOrder();
    const other = answerOrder();
    const early = one();
    other()();
    other()();
    expect(early()).toBe(true);
  });
});
