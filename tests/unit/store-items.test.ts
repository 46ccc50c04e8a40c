import { describe, expect, it } from 'vitest';
import { stripKeys } from '#shared/store/items';

describe('stripKeys', () => {
  const item = { PK: 'ORDER#o1', SK: 'ORDER', GSI1PK: 'M#1', GSI1SK: 's', GSI3SK: 'due#o1', type: 'ORDER', title: 'T', description: 'D', version: 3 };

  it('drops the table and index keys and the type, keeping every other attribute in its order', () => {
    const stripped = stripKeys<Record<string, unknown>>(item);
    expect(Object.entries(stripped)).toEqual([
      ['title', 'T'],
      ['description', 'D'],
      ['version', 3],
    ]);
  });

  it("puts the item's attributes after the base's, an attribute both have keeping the base's place and the item's value", () => {
    const stripped = stripKeys<Record<string, unknown>>(item, { description: '', order_id: 'o1', fast: false });
    expect(Object.entries(stripped)).toEqual([
      ['description', 'D'],
      ['order_id', 'o1'],
      ['fast', false],
      ['title', 'T'],
      ['version', 3],
    ]);
  });

  it('keeps an own "__proto__" attribute as an attribute, never as the prototype', () => {
    const hostile = JSON.parse('{"PK":"X","__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const stripped = stripKeys<Record<string, unknown>>(hostile);
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(Object.keys(stripped)).toEqual(['__proto__', 'a']);
    expect((stripped as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
