import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { freePort } from '#infra/local/ports';
import { ALL_SETTINGS } from '#shared/payments/setting-families';
import { eventually, killGroup, sharedDynamoDb, startScript, stopLeftoverJava, type Started } from '../support/processes';
import { type Command, parseShown, Placeholders, shapeDifferences, startBlockDifferences, type Step, walkthroughSteps } from '../support/readme-walkthrough';

/**
 * The README's walkthrough runs as written (issue #41): its printed start block is what
 * `npm start` prints, line by line, and each command of the walkthrough runs in a shell, in
 * order, against the local runtime, with the environment the README has the reader set; each
 * answer the README shows is compared in shape with the service's
 * (tests/support/readme-walkthrough.ts says how the README marks its blocks and what counts as
 * a placeholder). What needs a browser is done through the routes the page calls.
 */
const README = readFileSync('README.md', 'utf8');

/** The blocks the walkthrough does not run, by their first line: installing, and the devnet section (tests/e2e/devnet.test.ts runs `npm run devnet`). */
const SKIPPED = [
  'npm ci && npm start     # the whole service locally: API, payment page, portal, storage, queues',
  'DATA_DIR=.data/devnet npm run merchant -- create --name "Devnet Shop" --callback-statuses all \\',
  "npm run devnet:pay -- --uri '<payment_uri>'",
];

/** An Ethereum address (EIP-55's example) and a Bitcoin one (BIP-173's P2WPKH example): the refund page is given the first, then the second. */
const ETHEREUM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BITCOIN_ADDRESS = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
let runtime: Started | undefined;

afterAll(() => {
  for (const child of children) killGroup(child);
  if (runtime) killGroup(runtime.child);
  stopLeftoverJava(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The reader's shell: none of the service's settings (the runtime sets its own), and the DATA_DIR the README says to give the merchant CLI when `npm start` has one. */
const SERVICE_VARIABLES = new Set([...Object.keys(ALL_SETTINGS), ...Object.keys(LOCAL_AWS_ENV), 'POWERTOOLS_METRICS_DISABLED']);
const shellEnvironment = (): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !SERVICE_VARIABLES.has(entry[0]))),
  DATA_DIR: dataDir,
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in bash (its own process group, ended by PID if it outlives a minute). */
function shell(command: string, env: Record<string, string>): Promise<Ran> {
  const child = spawn('bash', ['-c', command], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => killGroup(child), 60_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A server command left running, with what it printed so far. */
function serve(command: string, env: Record<string, string>): { output: () => string } {
  const child = spawn('bash', ['-c', command], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { output: () => output };
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A command's answer: the last line it printed (npm prints its own lines first), as JSON when it is. */
function answerOf(ran: Ran): unknown {
  const last = ran.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last);
  } catch {
    return last;
  }
}

/** A curl command that only reads: run again while the state it reads is still on its way (a callback being delivered). */
const readsOnly = (command: string) => /^curl\b/.test(command) && !/\s-X\s+(?:POST|PUT|PATCH|DELETE)\b|\s-d\s/.test(command);

const backticked = (paragraph: string) => [...paragraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe('the README walkthrough', () => {
  const steps = walkthroughSteps(README);

  it('marks every fenced block; the blocks it does not run are these', () => {
    const blocks = steps.filter((step): step is Extract<Step, { type: 'block' }> => step.type === 'block');
    expect(blocks.filter((step) => step.kind === 'skip').map((step) => step.text.split('\n')[0])).toEqual(SKIPPED);
    expect(blocks.filter((step) => step.kind === 'start')).toHaveLength(1);
    expect(blocks.filter((step) => step.kind === 'serve')).toHaveLength(1);
    expect(steps.filter((step) => step.type === 'check').map((step) => [step.kind, step.name].filter(Boolean).join(' '))).toEqual(['callback', 'page refund-address', 'mail']);
    const commands = steps.flatMap((step) => (step.type === 'run' ? step.commands : []));
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.filter((command) => command.answer).length).toBeGreaterThan(8);
  });

  it('finds a drift in either direction (planted)', () => {
    const placeholders = new Placeholders(new Map([['127.0.0.1:3000', '127.0.0.1:41000']]));
    // A refund amount written by hand with another rounding than the service's.
    expect(shapeDifferences(parseShown('{"refund":{...,"amount":"0.00015369",...}}'), { refund: { refund_id: 'r', amount: '0.0001537' } }, placeholders)).toHaveLength(1);
    // A key the service does not answer, and keys in another order.
    expect(shapeDifferences(parseShown('{"status":200,"order":{...}}'), { status: 200, orders: [] }, placeholders)).toHaveLength(1);
    expect(shapeDifferences(parseShown('{"b":1,"a":2}'), { a: 2, b: 1 }, placeholders)).toHaveLength(1);
    // An id is a placeholder, but the same id must be the same value wherever the README shows it.
    const id = '94be2b2a-2905-8857-b701-b04e57e84593';
    const other = '460a5638-3a85-8e49-bf17-c2a6b0989d96';
    expect(
      shapeDifferences(
        parseShown(`{"order_id":"${id}","payment_url":"http://127.0.0.1:3000/pay/?id=${id}"}`),
        { order_id: other, payment_url: `http://127.0.0.1:41000/pay/?id=${other}` },
        placeholders,
      ),
    ).toEqual([]);
    expect(shapeDifferences(parseShown(`{"order_id":"${id}"}`), { order_id: '01a2356a-78ab-70cd-a8f5-20860ad9863a' }, placeholders)).toHaveLength(1);
    // The start block in another order, and with a line left out.
    const shown = ['API:            http://127.0.0.1:3000', 'Payment page:   http://127.0.0.1:3000/pay/', 'Ctrl-C stops everything.'];
    const printed = ['API:            http://127.0.0.1:41000', 'Payment page:   http://127.0.0.1:41000/pay/', 'Ctrl-C stops everything.'];
    expect(startBlockDifferences(shown, printed, placeholders, 1)).toEqual([]);
    expect(startBlockDifferences([shown[1]!, shown[0]!, shown[2]!], printed, placeholders, 1)).toHaveLength(2);
    expect(startBlockDifferences([shown[0]!, shown[2]!], printed, placeholders, 1)).toHaveLength(2);
    // A block the walkthrough does not know of.
    expect(() => walkthroughSteps('Text.\n\n```sh\ncurl -s http://127.0.0.1:3000/v1/orders\n```\n')).toThrow(/without a walkthrough marker/);
    // A command using an id no earlier answer showed.
    expect(() => placeholders.command(`curl -s http://127.0.0.1:3000/v1/orders/${'0'.repeat(8)}-2905-8857-b701-b04e57e84593`, 1)).toThrow(/no earlier answer/);
  });

  it('runs as written against npm start, and the service answers what it shows', { timeout: 240_000 }, async () => {
    runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, TOKEN_HMAC_KEY: '', ...sharedDynamoDb() });
    await runtime.waitFor(/^Ctrl-C stops everything\.$/m);
    const output = runtime.output().split('\n');
    const printed = output.slice(0, output.indexOf('Ctrl-C stops everything.') + 1);
    const api = /^API:\s+(http:\/\/127\.0\.0\.1:(\d+))$/.exec(printed[0] ?? '');
    expect(api, `npm start's first line: ${printed[0]}`).not.toBeNull();
    const port = api![2]!;

    const start = steps.find((step) => step.type === 'block' && step.kind === 'start') as Extract<Step, { type: 'block' }>;
    const shownPort = /http:\/\/127\.0\.0\.1:(\d+)/.exec(start.text)![1]!;
    const serveStep = steps.find((step) => step.type === 'block' && step.kind === 'serve') as Extract<Step, { type: 'block' }>;
    const shownReceiverPort = /\.listen\((\d+)\)/.exec(serveStep.text)?.[1];
    expect(shownReceiverPort, "the callback server's port in the README").toBeDefined();
    const receiverPort = await freePort();
    const placeholders = new Placeholders(
      new Map([
        [`127.0.0.1:${shownPort}`, `127.0.0.1:${port}`],
        [`localhost:${shownPort}`, `localhost:${port}`],
        [`127.0.0.1:${shownReceiverPort}`, `127.0.0.1:${receiverPort}`],
      ]),
    );
    const mailbox = printed.map((line) => /^Mailbox:\s+(\S+)/.exec(line)?.[1]).find(Boolean);

    const env = shellEnvironment();
    const answers: unknown[] = [];
    let receiver: { output: () => string } | undefined;

    /** Runs one command of the README; compares its answer when the README shows one, or checks it did not fail. */
    const run = async (command: Command) => {
      const written = placeholders.command(command.command, command.line);
      const exported = /^export ([A-Z_][A-Z0-9_]*)=/.exec(written);
      if (exported) {
        const ran = await shell(`${written}\nprintf '%s' "$${exported[1]}"`, env);
        expect(ran.code, `README.md:${command.line}: ${written}\n${ran.stderr}`).toBe(0);
        expect(ran.stdout, `README.md:${command.line}: ${exported[1]} is empty`).not.toBe('');
        env[exported[1]!] = ran.stdout;
        return;
      }
      const attempt = async () => {
        const ran = await shell(written, env);
        const answer = answerOf(ran);
        const differences = command.answer ? shapeDifferences(parseShown(command.answer.text), answer, placeholders) : [];
        return { ran, answer, differences };
      };
      const result = readsOnly(written) && command.answer ? await eventually(attempt, ({ differences }) => differences.length === 0) : await attempt();
      const label = `README.md:${command.line}: ${written}\nprinted: ${result.ran.stdout}${result.ran.stderr}`;
      expect(result.ran.code, label).toBe(0);
      if (command.answer) {
        expect(result.differences, `${label}\nREADME.md:${command.answer.line} shows its answer`).toEqual([]);
      } else {
        // No answer shown: it must at least not be an error.
        const failed = typeof result.answer === 'object' && result.answer !== null && ('error_code' in result.answer || Number((result.answer as { status?: unknown }).status) >= 400);
        expect(failed, label).toBe(false);
      }
      answers.push(result.answer);
    };

    /** The last answer with this part, e.g. a refund: what the next step of the README goes on from. */
    const lastWith = <T>(read: (answer: any) => T | undefined): T => {
      const found = answers.map((answer) => read(answer)).findLast((value) => value !== undefined);
      if (found === undefined) throw new Error('no earlier answer of the walkthrough has what this step needs');
      return found;
    };

    const pageActions: Record<string, () => Promise<void>> = {
      // The refund page (web/src/refund.ts): the buyer opens the one-time link and enters an address.
      'refund-address': async () => {
        const refundUrl = lastWith((answer) => answer?.refund?.refund_url as string | undefined);
        const orderId = lastWith((answer) => answer?.refund?.order_id as string | undefined);
        const secret = new URL(refundUrl).hash.replace(/^#refund=/, '');
        const page = (body: unknown) => fetch(`${api![1]}/v1/pay/refund/address`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        const refused = await page({ secret, address: ETHEREUM_ADDRESS });
        expect(refused.status).toBe(400);
        expect(((await refused.json()) as { error: string }).error).toMatch(/Bitcoin/);
        const taken = (await (await page({ secret, address: BITCOIN_ADDRESS })).json()) as { refund: { address: string } };
        expect(taken.refund.address).toBe(BITCOIN_ADDRESS);
        // The transfer to make: the refund's payment_uri in List Refunds.
        const listed = (await (await fetch(`${api![1]}/v1/orders/${orderId}/refunds`, { headers: { token: env.TOKEN! } })).json()) as { refunds: { payment_uri: string }[] };
        expect(listed.refunds[0]?.payment_uri).toMatch(new RegExp(`^bitcoin:${BITCOIN_ADDRESS}\\?amount=`));
      },
    };

    for (const step of steps) {
      if (step.type === 'run') {
        for (const command of step.commands) await run(command);
      } else if (step.type === 'block') {
        if (step.kind === 'start') {
          expect(startBlockDifferences(step.text.split('\n'), printed, placeholders, step.line)).toEqual([]);
        } else if (step.kind === 'serve') {
          const command = placeholders.command(step.text.trim(), step.line).replace(`.listen(${shownReceiverPort})`, `.listen(${receiverPort})`);
          receiver = serve(command, env);
          expect(await eventually(() => accepts(receiverPort), Boolean), `README.md:${step.line}: the server does not listen\n${receiver.output()}`).toBe(true);
        }
      } else if (step.kind === 'callback') {
        // The paragraph names the callback's headers and what its body has: the server of step 2 printed them.
        const headers = backticked(step.paragraph).filter((code) => /^[a-z]+(?:-[a-z]+)+$/.test(code));
        const fields = backticked(step.paragraph).filter((code) => /^"[^"]+":/.test(code));
        expect(headers.length, `README.md:${step.line}: the headers the callback has`).toBeGreaterThan(0);
        expect(fields.length, `README.md:${step.line}: what the callback's body has`).toBeGreaterThan(0);
        const printedCallback = await eventually(
          async () => receiver?.output() ?? '',
          (text) => /^\} \{.*\}$/m.test(text),
          30_000,
        );
        const body = JSON.parse(/^\} (\{.*\})$/m.exec(printedCallback)?.[1] ?? 'null') as Record<string, unknown> | null;
        expect(body, `README.md:${step.line}: the server printed no callback\n${printedCallback}`).not.toBeNull();
        for (const header of headers) expect(printedCallback, `README.md:${step.line}: header ${header}`).toContain(`'${header}': '`);
        for (const field of fields) expect(body, `README.md:${step.line}: ${field}`).toMatchObject(JSON.parse(`{${field}}`));
      } else if (step.kind === 'page') {
        const action = pageActions[step.name ?? ''];
        expect(action, `README.md:${step.line}: no page action "${step.name}" in this test`).toBeDefined();
        await action!();
      } else {
        // The buyer's receipt of the last order with an email, listed on the printed mailbox page.
        const email = lastWith((answer) => (answer?.order?.email as string | undefined) || undefined);
        expect(mailbox, 'the printed Mailbox line').toBeDefined();
        const page = await eventually(
          async () => (await fetch(mailbox!)).text(),
          (html) => html.includes(email),
          30_000,
        );
        expect(page, `README.md:${step.line}: the mailbox lists no email to ${email}`).toContain(email);
      }
    }
  });
});
