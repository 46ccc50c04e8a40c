import { type CfnElement, type NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { WATCHER_FOLDER } from '#infra/cdk/constructs/chain-watchers';
import type { ServiceFunction } from '#infra/cdk/constructs/service-function';
import type { Allowance, Call, Resource } from '#infra/cdk/permissions';
import type { CryptoPayStack } from '#infra/cdk/stack';
import { serviceFunctions } from './support.ts';

/**
 * The check of tests/infra/permissions.test.ts: each function's role, as the synthesized
 * templates have it, holds exactly the calls its code makes (a fresh scan of its bundle) that
 * its declaration allows (the allowances its wiring gave it), and besides those only what the
 * service itself does with the role: writing the function's logs, and an event source reading
 * its stream or queue. Resources are compared by what they are (the table, its indexes, which
 * queue, which parameter, which function), whichever stack's template names them.
 */

type Json = Record<string, unknown>;

/**
 * Whether an allowance lets a role be granted a call, read here from the allowance's documented
 * meaning (its resource; only its `actions`, and only calls made at its `sites`, where it names
 * them), not with infra/cdk/permissions.ts's `covers`, by which the stack grants: a mistake
 * there would otherwise be made on both sides of the comparison.
 */
const allows = (allowance: Allowance, call: Call): boolean =>
  call.resource === allowance.resource && (allowance.actions?.includes(call.action) ?? true) && (allowance.sites?.includes(call.site) ?? true);

/** Every template of the assembly by stack key (`main`, or a nested stack's id), each with where its parameters come from. */
export interface Assembly {
  readonly templates: Record<string, Json>;
  /** A nested stack's resource id in the main template -> its key. */
  readonly nested: Record<string, string>;
}

export function assemblyOf(stack: CryptoPayStack): Assembly {
  const templates: Record<string, Json> = { main: Template.fromStack(stack).toJSON() };
  const nested: Record<string, string> = {};
  for (const child of [stack.routeFunctions, stack.watchers, stack.email].filter((inner): inner is NestedStack => inner !== undefined)) {
    templates[child.node.id] = Template.fromStack(child).toJSON();
    nested[stack.getLogicalId(child.nestedStackResource!)] = child.node.id;
  }
  return { templates, nested };
}

const resourcesIn = (template: Json): Record<string, Json> => (template.Resources ?? {}) as Record<string, Json>;

/**
 * A value of the template `at` in terms every template shares: a nested stack's parameter is
 * what the main stack passes it, a nested stack's output what it outputs, and every other
 * reference names its template (`Email/Queue1234`). Pseudo parameters stay as they are.
 */
export function canonical(assembly: Assembly, value: unknown, at: string): unknown {
  if (Array.isArray(value)) return value.map((inner) => canonical(assembly, inner, at));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Json;
  const keys = Object.keys(object);
  if (keys.length === 1 && typeof object.Ref === 'string') {
    const ref = object.Ref;
    if (ref.startsWith('AWS::')) return object;
    if (at !== 'main' && ref in ((assembly.templates[at]!.Parameters ?? {}) as Json)) {
      const nestedId = Object.entries(assembly.nested).find(([, key]) => key === at)![0];
      const passed = (resourcesIn(assembly.templates.main!)[nestedId]!.Properties as Json).Parameters as Json;
      return canonical(assembly, passed[ref], 'main');
    }
    return { Ref: `${at}/${ref}` };
  }
  if (keys.length === 1 && Array.isArray(object['Fn::GetAtt'])) {
    const [id, attribute] = object['Fn::GetAtt'] as [string, string];
    const child = at === 'main' ? assembly.nested[id] : undefined;
    if (child && attribute.startsWith('Outputs.')) {
      const outputs = assembly.templates[child]!.Outputs as Record<string, { Value: unknown }>;
      return canonical(assembly, outputs[attribute.slice('Outputs.'.length)]!.Value, child);
    }
    return { 'Fn::GetAtt': [`${at}/${id}`, attribute] };
  }
  return Object.fromEntries(keys.map((key) => [key, canonical(assembly, object[key], at)]));
}

/** JSON with sorted keys: conditions and resources compare whatever order CDK wrote them in. */
const stable = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner as Json).sort(([a], [b]) => a.localeCompare(b))) : inner,
  );

/** What Lambda's event source mappings do with the role (service-side calls, not the code's), by the kind of source. */
export const EVENT_SOURCE_ACTIONS = {
  queue: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
  stream: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
  /** A stream source's on-failure destination: the records of a failed batch are sent there. */
  failures: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
} as const;

/** What Lambda does with every role: the function's own log lines. */
export const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];

export interface Finding {
  /** The function's key (`get-order`, `watch-chain-btc`). */
  readonly fn: string;
  readonly problem: 'not granted' | 'not needed';
  readonly action: string;
  readonly resource: string;
  readonly condition?: string;
  /** Where the code makes the call (a missing grant). */
  readonly sites?: readonly string[];
}

export const describeFinding = (finding: Finding): string =>
  `${finding.fn}: ${finding.action} on ${finding.resource}${finding.condition ? ` when ${finding.condition}` : ''} ${
    finding.problem === 'not granted' ? `is called (${finding.sites?.join(', ')}) but not granted` : 'is granted but no call needs it'
  }`;

export interface PermissionReport {
  readonly findings: Finding[];
  /** Calls each function's code can make that its declaration does not allow (IAM refuses them), by function. */
  readonly withheld: ReadonlyMap<string, readonly Call[]>;
  /** How many (action, resource) pairs were compared, over every role. */
  readonly compared: number;
}

/**
 * Compares every function's role in `assembly` (default: the stack's own templates; tests
 * plant changes in a copy) with the calls `calls` says each function folder's code makes.
 */
export function checkPermissions(stack: CryptoPayStack, calls: ReadonlyMap<string, readonly Call[]>, assembly: Assembly = assemblyOf(stack)): PermissionReport {
  const keyOf = (construct: IConstruct) => (Stack.of(construct) === stack ? 'main' : Stack.of(construct).node.id);
  /** A resource's logical id in its own template. */
  const idOf = (construct: IConstruct) => Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
  const arnOf = (construct: IConstruct, attribute = 'Arn') => stable(canonical(assembly, { 'Fn::GetAtt': [idOf(construct), attribute] }, keyOf(construct)));
  const tableArn = canonical(assembly, { 'Fn::GetAtt': [idOf(stack.table.table), 'Arn'] }, 'main');
  const names = new Map<string, string>([
    [stable(tableArn), 'the table'],
    [stable({ 'Fn::Join': ['', [tableArn, '/index/*']] }), 'the table indexes'],
    [arnOf(stack.table.table, 'StreamArn'), 'the table stream'],
  ]);
  const queues: [string, Queue | undefined][] = [
    ['callback queue', stack.callbacks.queue],
    ['callback dead-letter queue', stack.callbacks.deadLetterQueue],
    ['stream failure queue', stack.callbacks.streamFailureQueue],
    ['email queue', stack.email?.queue],
    ['email dead-letter queue', stack.email?.deadLetterQueue],
    ['watch tick queue', stack.watchers?.ticks],
    ['renewal queue', stack.renewals.queue],
    ['renewal dead-letter queue', stack.renewals.deadLetterQueue],
  ];
  for (const [name, queue] of queues) if (queue) names.set(arnOf(queue), name);
  const watchers = [...(stack.watchers?.functions ?? [])].filter(([, fn]) => fn.folder === WATCHER_FOLDER);
  for (const [key, fn] of watchers) names.set(arnOf(fn.function), `function ${key}`);
  const placed = serviceFunctions(stack);
  for (const [key, { fn }] of placed) names.set(arnOf(fn.logGroup), `log group of ${key}`);
  const nameOf = (resource: unknown): string => {
    const json = stable(resource);
    const known = names.get(json);
    if (known) return known;
    const parameter = /:parameter(\/[^"]+)"/.exec(json)?.[1];
    if (parameter) return `parameter ${parameter}`;
    if (json.includes(':identity/')) return 'the SES identity';
    if (json.includes(':configuration-set/')) return 'the SES configuration set';
    return json;
  };
  const QUEUE_NAMES: Partial<Record<Resource, string>> = {
    'callback-queue': 'callback queue',
    'callback-dead-letters': 'callback dead-letter queue',
    'email-queue': 'email queue',
    'email-dead-letters': 'email dead-letter queue',
    'renewal-queue': 'renewal queue',
    'renewal-dead-letters': 'renewal dead-letter queue',
    'watch-ticks': 'watch tick queue',
  };
  const namesOf = (resource: Resource, fn: ServiceFunction): string[] => {
    if (resource === 'table') return ['the table'];
    if (resource === 'indexes') return ['the table indexes'];
    if (resource === 'parameters') return fn.parameterNames.map((name) => `parameter ${name}`);
    if (resource === 'watchers') return watchers.map(([key]) => `function ${key}`);
    if (resource === 'email-sending') return ['the SES identity', 'the SES configuration set'];
    return [QUEUE_NAMES[resource]!];
  };

  const findings: Finding[] = [];
  const withheld = new Map<string, Call[]>();
  let compared = 0;
  for (const [key, { fn }] of placed) {
    const at = keyOf(fn);
    const template = assembly.templates[at]!;
    const made = calls.get(fn.folder);
    if (!made) throw new Error(`no calls for functions/${fn.folder}`);
    const expected = new Map<string, { action: string; resource: string; condition?: string; sites: string[] }>();
    const expect = (action: string, resource: string, condition?: string, sites: string[] = []) => {
      const id = `${action} ${resource} ${condition ?? ''}`;
      const known = expected.get(id);
      if (known) known.sites.push(...sites);
      else expected.set(id, { action, resource, ...(condition ? { condition } : {}), sites: [...sites] });
    };
    for (const allowance of fn.allowances) {
      const condition = allowance.conditions ? stable(allowance.conditions) : undefined;
      const allowed = made.filter((call) => allows(allowance, call));
      for (const action of new Set(allowed.map((call) => call.action))) {
        const sites = allowed.filter((call) => call.action === action).map((call) => call.site);
        for (const resource of namesOf(allowance.resource, fn)) expect(action, resource, condition, sites);
      }
    }
    withheld.set(
      key,
      made.filter((call) => !fn.allowances.some((allowance) => allows(allowance, call))),
    );
    for (const action of LOG_ACTIONS) expect(action, `log group of ${key}`);
    const fnRef = stable({ Ref: idOf(fn.function) });
    for (const mapping of Object.values(resourcesIn(template)).filter((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping')) {
      const properties = mapping.Properties as Json;
      if (stable(properties.FunctionName) !== fnRef) continue;
      const source = nameOf(canonical(assembly, properties.EventSourceArn, at));
      for (const action of source === 'the table stream' ? EVENT_SOURCE_ACTIONS.stream : EVENT_SOURCE_ACTIONS.queue) expect(action, source);
      const failures = ((properties.DestinationConfig as Json | undefined)?.OnFailure as Json | undefined)?.Destination;
      if (failures) for (const action of EVENT_SOURCE_ACTIONS.failures) expect(action, nameOf(canonical(assembly, failures, at)));
    }

    const granted = new Map<string, { action: string; resource: string; condition?: string }>();
    const roleRef = stable({ Ref: idOf(fn.role) });
    for (const policy of Object.values(resourcesIn(template)).filter((resource) => resource.Type === 'AWS::IAM::Policy')) {
      const properties = policy.Properties as Json;
      if (!((properties.Roles ?? []) as unknown[]).some((role) => stable(role) === roleRef)) continue;
      for (const statement of (properties.PolicyDocument as { Statement: Json[] }).Statement) {
        if (statement.Effect !== 'Allow') throw new Error(`${key}: a statement that is not Allow (${stable(statement)})`);
        const condition = statement.Condition ? stable(statement.Condition) : undefined;
        const actions = ([] as unknown[]).concat(statement.Action) as string[];
        const resources = ([] as unknown[]).concat(statement.Resource);
        for (const action of actions) {
          for (const resource of resources) {
            const name = nameOf(canonical(assembly, resource, at));
            granted.set(`${action} ${name} ${condition ?? ''}`, { action, resource: name, ...(condition ? { condition } : {}) });
          }
        }
      }
    }
    compared += new Set([...expected.keys(), ...granted.keys()]).size;
    for (const [id, need] of expected) if (!granted.has(id)) findings.push({ fn: key, problem: 'not granted', ...need, sites: [...new Set(need.sites)].sort() });
    for (const [id, grant] of granted) if (!expected.has(id)) findings.push({ fn: key, problem: 'not needed', ...grant });
  }
  return { findings, withheld, compared };
}
