/** The value `map` holds for `key`, made by `make` and kept there the first time it is asked. */
export function getOrMake<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}
