/**
 * `npm test`: Biome's check (biome.json: its format, and unused imports and locals refused; a second), the type
 * check (`tsc --noEmit`) and every test file (`vitest run`, with the
 * arguments given: `npm test -- tests/unit` runs those files) at the same time, instead of one
 * after the other. Most of the suite's time is spent waiting (on DynamoDB Local, the browser,
 * delivery retries), so the type check, one process on one core, fits into what the tests
 * leave idle. (Not at a lower priority: on a busy machine it then waited until the tests were
 * done, and ran alone after them.) Its errors print as soon as it ends; the command fails when
 * either fails, as `tsc --noEmit && vitest run` did.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const exited = (child: ChildProcess) => new Promise<number>((done) => child.once('close', (code, signal) => done(code ?? (signal ? 1 : 0))));

// With a larger young generation for V8 (tsc allocates quickly: 25 -> 23 CPU s, 18 -> 16 s here).
const typecheck = spawn(process.execPath, ['--max-semi-space-size=64', join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit'], { stdio: ['ignore', 'pipe', 'pipe'] });
let typeErrors = '';
typecheck.stdout.on('data', (chunk: Buffer) => (typeErrors += chunk.toString()));
typecheck.stderr.on('data', (chunk: Buffer) => (typeErrors += chunk.toString()));
const typechecked = exited(typecheck).then((code) => {
  if (code !== 0) console.error(`\ntsc --noEmit failed (${code}):\n${typeErrors}`);
  return code;
});

// Biome first and alone: a second, and its findings printed before the tests' output.
const lint = spawn(bin('biome'), ['check', '--max-diagnostics=50', ROOT], { stdio: 'inherit' });
const lintCode = await exited(lint);
if (lintCode !== 0) console.error(`\nbiome check failed (${lintCode}): see above; \`npm run format\` formats, \`npx biome check --write --unsafe .\` also removes unused imports`);

const tests = spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
const [typeCode, testCode] = await Promise.all([typechecked, exited(tests)]);
if (typeCode === 0) console.log('tsc --noEmit: no type errors');
process.exit(lintCode || typeCode || testCode);
