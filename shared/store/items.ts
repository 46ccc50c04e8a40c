/** A table item as the document client reads and writes it. */
export type Item = Record<string, unknown>;

const STORAGE_ATTRIBUTES = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK', 'GSI4PK', 'GSI4SK', 'type']);

/**
 * The stored entity without its table and index keys and its type: `base`'s attributes, then
 * the item's (one the item has too takes the item's value in its place), as `{...base, ...item}`
 * would make them. Copied attribute by attribute: a copy with the keys deleted would be a slow
 * dictionary-mode object that every later read and spread of it pays for (Get Orders maps ten).
 */
export function stripKeys<T>(item: Item, base: Item = {}): T {
  const copy: Item = { ...base };
  for (const name of Object.keys(item)) {
    if (STORAGE_ATTRIBUTES.has(name)) continue;
    // An own "__proto__" attribute stays an attribute (as a spread copies it), never the prototype.
    if (name === '__proto__') Object.defineProperty(copy, name, { value: item[name], writable: true, enumerable: true, configurable: true });
    else copy[name] = item[name];
  }
  return copy as T;
}
