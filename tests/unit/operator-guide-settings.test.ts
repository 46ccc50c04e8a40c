/**
 * The operator guide's configuration tables are written by hand (they explain more than the
 * generated reference can), so they are held against the one declared list of settings
 * (shared/core/settings.ts, shared/payments/setting-families.ts): a row names a declared setting
 * and gives its declared default, or names a variable only the local runtime reads.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_SETTINGS } from '#shared/payments/setting-families';

const GUIDE = readFileSync('docs/operator-guide.md', 'utf8');
/** Every `| `NAME` | default | meaning |` row of the guide's tables. */
const ROWS = [...GUIDE.matchAll(/^\| `([A-Z0-9_<>]+)` \| ([^|]*) \|/gm)].map(([, name, defaultText]) => ({ name: name!, defaultText: defaultText!.trim() }));
/** The local runtime's own variables (infra/local/), not service settings. */
const LOCAL_RUNTIME = readFileSync('infra/local/start.ts', 'utf8') + readFileSync('infra/local/runtime.ts', 'utf8');
/** A per-currency family the guide writes with a placeholder. */
const familyMember = (name: string): string | undefined => Object.keys(ALL_SETTINGS).find((declared) => new RegExp(`^${name.replace(/<[A-Z]+>/g, '[A-Z0-9_]+')}$`).test(declared));

describe("the operator guide's settings tables", () => {
  it('has rows to check', () => {
    expect(ROWS.length).toBeGreaterThan(40);
  });

  it('names declared settings, or variables the local runtime reads', () => {
    const unknown = ROWS.filter(({ name }) => !ALL_SETTINGS[name] && !familyMember(name) && !new RegExp(`\\b${name}\\b`).test(LOCAL_RUNTIME)).map(({ name }) => name);
    expect(unknown).toEqual([]);
  });

  it("gives each declared default as the declaration does (the first value in the row's Default column)", () => {
    const wrong = ROWS.flatMap(({ name, defaultText }) => {
      const declared = ALL_SETTINGS[name];
      if (declared?.default === undefined) return [];
      const written = /^`([^`]+)`|^([^\s(]+)/.exec(defaultText);
      const value = written?.[1] ?? written?.[2];
      return value === String(declared.default) ? [] : [`${name}: the guide says ${JSON.stringify(defaultText)}, declared ${String(declared.default)}`];
    });
    expect(wrong).toEqual([]);
  });
});
