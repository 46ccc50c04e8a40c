/**
 * Lambda event filter patterns (FilterCriteria of an event source mapping): the CDK stack sets
 * them on AWS, and the local runtime's pollers apply the same pattern with
 * {@link filterPredicate}, so both deliver the same records to a function.
 */

/** An exact value a field may have (a leaf of an event filter pattern). */
export type FilterValue = string | number | boolean | null;

/**
 * A Lambda event filter pattern (the EventBridge pattern syntax), in the subset this service
 * uses: objects nested like the event, whose leaves are arrays of exact values. A field matches
 * when its value equals one of its array's values (or, for an array field, when one of its
 * elements does); every field of the pattern must match.
 */
export interface FilterPattern {
  readonly [field: string]: FilterPattern | readonly FilterValue[];
}

/**
 * The predicate a pattern stands for, as Lambda evaluates it on a record. Refuses (throws on)
 * syntax outside the supported subset, such as content filters (`{ "prefix": ... }`), rather
 * than match differently from AWS.
 */
export function filterPredicate(pattern: FilterPattern): (event: unknown) => boolean {
  assertSupported(pattern, '');
  return (event) => matches(pattern, event);
}

function assertSupported(pattern: FilterPattern, path: string): void {
  if (typeof pattern !== 'object' || pattern === null || Array.isArray(pattern) || Object.keys(pattern).length === 0) {
    throw new TypeError(`filter pattern${path ? ` at ${path}` : ''} must be a non-empty object`);
  }
  for (const [field, expected] of Object.entries(pattern)) {
    const at = path ? `${path}.${field}` : field;
    if (!Array.isArray(expected)) {
      assertSupported(expected as FilterPattern, at);
      continue;
    }
    if (expected.length === 0) throw new TypeError(`filter pattern at ${at} lists no values`);
    for (const value of expected as unknown[]) {
      if (value !== null && typeof value === 'object') {
        throw new TypeError(`filter pattern at ${at}: only exact values are supported, not ${JSON.stringify(value)}`);
      }
    }
  }
}

function matches(pattern: FilterPattern, event: unknown): boolean {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return false;
  const fields = event as Record<string, unknown>;
  return Object.entries(pattern).every(([field, expected]) => {
    if (!Object.hasOwn(fields, field)) return false;
    const actual = fields[field];
    if (!Array.isArray(expected)) return matches(expected as FilterPattern, actual);
    const values = expected as readonly FilterValue[];
    return Array.isArray(actual) ? actual.some((element) => values.includes(element)) : values.includes(actual as FilterValue);
  });
}
