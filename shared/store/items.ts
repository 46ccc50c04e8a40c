/** A table item as the document client reads and writes it. */
export type Item = Record<string, unknown>;

const STORAGE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK', 'GSI4PK', 'GSI4SK', 'type'];

/** The stored entity without its table and index keys and its type. */
export function stripKeys<T>(item: Item): T {
  const copy: Item = { ...item };
  for (const attribute of STORAGE_ATTRIBUTES) delete copy[attribute];
  return copy as T;
}
