import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

export interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in the output (or rejects on exit/timeout). */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>;
  /** Sends a signal and waits for the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

/**
 * Node with tsx as a loader, as `npm start` runs it. Not the tsx CLI: that wrapper relays
 * signals to a child and SIGKILLs it when the child does not acknowledge within 30 ms, which
 * a loaded machine misses (the runtime would die without stopping what it started).
 */
const NODE_ARGS = ['--import', 'tsx'];

/**
 * `npm start`'s settings to use the run's DynamoDB Local, with a table of its own (each runtime
 * reads its table's stream), instead of starting a JVM of its own: about 3 CPU s a start. The
 * files that test `npm start` as a newcomer runs it (local-runtime, local-runtime-recovery,
 * devnet) keep their own.
 */
export const sharedDynamoDb = () => ({ DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: `runtime-${randomUUID()}` });

/**
 * How `script` is run: a local runtime on the run's DynamoDB Local (`sharedDynamoDb`) from the
 * run's bundle of it (tests/setup/global-setup.ts), the same code in one module without tsx's
 * loader; everything else, and `npm start` as a newcomer runs it (its own Java), under tsx.
 */
function entryOf(script: string, env: Record<string, string>): string[] {
  if (script === LOCAL_RUNTIME && env.DYNAMODB_ENDPOINT === inject('dynamodbEndpoint')) return [inject('localRuntimeBundle')];
  return [...NODE_ARGS, script];
}
const LOCAL_RUNTIME = 'infra/local/start.ts';

/** The service's own settings, which the test setup put in this process's environment. */
const SERVICE_VARIABLES = ['TABLE_NAME', 'DYNAMODB_ENDPOINT', 'PAYMENT_PAGE_URL'];

/**
 * Runs a TypeScript entry point with tsx in its own process group (so cleanup reaches its
 * children), with a user's environment: none of the test setup's service settings.
 */
export function startScript(script: string, args: string[], env: Record<string, string>): Started {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_VARIABLES.includes(name)));
  const child = spawn(process.execPath, [...entryOf(script, env), ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`));
        }, timeoutMs);
        void exited.then((code) => {
          if (!output.match(pattern)) {
            clearTimeout(timer);
            reject(new Error(`exited (${code}) before ${pattern}; output:\n${output}`));
          }
        });
        listeners.add(check);
        check();
      }),
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        process.kill(child.pid, signal);
      }
      const timer = setTimeout(() => killGroup(child), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Last-resort cleanup by PID: the whole process group of a child started detached. */
export function killGroup(child: ChildProcess): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs a script to completion and returns its exit code and output. */
export async function runScript(script: string, args: string[], env: Record<string, string>) {
  const started = startScript(script, args, env);
  const code = await new Promise<number | null>((resolve) => started.child.once('exit', (c) => resolve(c)));
  return { code, output: started.output() };
}

/**
 * Last-resort cleanup of a runtime's DynamoDB Local (it runs in its own process group, so a
 * killed runtime leaves it behind): by the PID the runtime recorded in its data folder.
 */
export function stopLeftoverJava(dataDir: string): void {
  try {
    const pid = Number(readFileSync(join(dataDir, 'dynamodb.pid'), 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
  } catch {
    // No pid file: nothing was started.
  }
}

/** Reads until `done` says yes or `timeoutMs` passed (a started runtime's state), answering the last value read. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
