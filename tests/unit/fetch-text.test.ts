import { describe, expect, it } from 'vitest';
import { readTextLimited } from '#shared/core/fetch-text';

const tooLarge = () => new Error('too large');
/** A body that sends its first bytes and then nothing, never ending (a source that trickles and stalls). */
const stalled = () => new Response(new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new TextEncoder().encode('{"jsonrp')) }));

describe('reading an outside source’s answer', () => {
  it('reads a whole body, and refuses one past the bound', async () => {
    const signal = new AbortController().signal;
    expect(await readTextLimited(new Response('{"ok":true}'), 100, tooLarge, signal)).toBe('{"ok":true}');
    await expect(readTextLimited(new Response('x'.repeat(101)), 100, tooLarge, signal)).rejects.toThrow('too large');
  });

  it('ends a stalled body when its signal times out, with the signal’s reason, instead of waiting for the stream', async () => {
    const signal = AbortSignal.timeout(50);
    const error = await readTextLimited(stalled(), 1000, tooLarge, signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe('TimeoutError');
  });

  it('refuses at once when the signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(readTextLimited(stalled(), 1000, tooLarge, controller.signal)).rejects.toThrow('gone');
  });
});
