/**
 * README.md's walkthrough as data, and the comparison of what it shows with what the service
 * answers (tests/e2e/readme-walkthrough.test.ts runs it against `npm start`).
 *
 * Every fenced block of the README is preceded by a marker saying what the test does with it:
 *
 * - `<!-- walkthrough: start -->` the block `npm start` prints, compared line by line;
 * - `<!-- walkthrough: run -->` shell commands, run one by one in order; a `# {...}` comment line
 *   right after a command shows that command's answer;
 * - `<!-- walkthrough: answer -->` a block showing the answer of the last command of the run block
 *   just before it;
 * - `<!-- walkthrough: serve -->` a command that keeps running (a server the reader starts in a
 *   terminal of its own): started in the background, its output kept;
 * - `<!-- walkthrough: skip -->` not run (the test names each one, so a new block is noticed).
 *
 * A marker before a paragraph instead names a check of what the paragraph says happened:
 * `<!-- walkthrough: callback -->` (the server of a serve block received it),
 * `<!-- walkthrough: page NAME -->` (what the reader does on a page, done through the routes the
 * page calls), `<!-- walkthrough: mail -->` (the printed mailbox lists the email).
 *
 * What the README shows is compared in shape: keys, their order, types and nesting, and every
 * literal value but those that differ from run to run. Those are placeholders: ids (UUIDs),
 * timestamps, random tokens (20 characters or more of base64url mixing upper and lower case and
 * digits), ports on loopback other than the runtime's, and `...`, which elides a value (a string's
 * part, an object's or an array's other members). The letters and digits touching a `...` are a
 * sample of the elided value (`9s7wLW...`), not compared; a placeholder's README text is bound to
 * the value it stood for at its first sight, so the same text later (in an answer or a command:
 * `export TOKEN=9s7wLW...`) must be, or is replaced by, that same value.
 */

/** What the test does with a fenced block. */
export type BlockKind = 'start' | 'run' | 'answer' | 'serve' | 'skip';
/** What the test checks after a marked paragraph. */
export type CheckKind = 'callback' | 'page' | 'mail';

const BLOCK_KINDS: readonly string[] = ['start', 'run', 'answer', 'serve', 'skip'] satisfies BlockKind[];
const CHECK_KINDS: readonly string[] = ['callback', 'page', 'mail'] satisfies CheckKind[];

/** A command of a run block and the answer the README shows for it, if any (README line numbers). */
export interface Command {
  command: string;
  line: number;
  answer?: { text: string; line: number };
}

export type Step =
  | { type: 'block'; kind: Exclude<BlockKind, 'answer' | 'run'>; text: string; line: number }
  | { type: 'run'; commands: Command[]; line: number }
  | { type: 'check'; kind: CheckKind; name?: string; paragraph: string; line: number };

const MARKER = /^<!-- walkthrough: ([a-z]+)(?: ([a-z-]+))? -->$/;
const FENCE = /^```/;

/**
 * The README's walkthrough in order. Throws on a fenced block without a marker, an unknown
 * marker, a marker followed by neither a block nor a paragraph, or an answer block that follows
 * no command without an answer.
 */
export function walkthroughSteps(markdown: string): Step[] {
  const lines = markdown.split('\n');
  const steps: Step[] = [];
  let marker: { kind: string; name?: string; line: number } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const number = index + 1;
    const marked = MARKER.exec(line);
    if (marked) {
      if (marker) throw new Error(`README.md:${marker.line}: a walkthrough marker followed by another marker`);
      if (!BLOCK_KINDS.includes(marked[1]!) && !CHECK_KINDS.includes(marked[1]!)) throw new Error(`README.md:${number}: unknown walkthrough marker "${marked[1]}"`);
      marker = { kind: marked[1]!, name: marked[2], line: number };
      continue;
    }
    if (FENCE.test(line)) {
      const end = lines.findIndex((candidate, at) => at > index && FENCE.test(candidate));
      if (end < 0) throw new Error(`README.md:${number}: a fenced block that does not end`);
      if (!marker || !BLOCK_KINDS.includes(marker.kind))
        throw new Error(`README.md:${number}: a fenced block without a walkthrough marker (<!-- walkthrough: run|answer|start|serve|skip --> on the line before it)`);
      const text = lines.slice(index + 1, end).join('\n');
      addBlock(steps, marker.kind as BlockKind, text, number + 1);
      marker = undefined;
      index = end;
      continue;
    }
    if (marker && line.trim() !== '') {
      if (!CHECK_KINDS.includes(marker.kind)) throw new Error(`README.md:${marker.line}: a "${marker.kind}" marker must be followed by a fenced block`);
      const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === '');
      const paragraph = lines.slice(index, end < 0 ? undefined : end).join('\n');
      steps.push({ type: 'check', kind: marker.kind as CheckKind, ...(marker.name ? { name: marker.name } : {}), paragraph, line: number });
      marker = undefined;
    }
  }
  if (marker) throw new Error(`README.md:${marker.line}: a walkthrough marker at the end of the file`);
  return steps;
}

function addBlock(steps: Step[], kind: BlockKind, text: string, line: number): void {
  if (kind === 'run') {
    steps.push({ type: 'run', commands: commandsOf(text, line), line });
    return;
  }
  if (kind === 'answer') {
    const previous = steps.at(-1);
    const last = previous?.type === 'run' ? previous.commands.at(-1) : undefined;
    if (!last || last.answer) throw new Error(`README.md:${line}: an answer block must follow a run block whose last command shows no answer`);
    last.answer = { text, line };
    return;
  }
  steps.push({ type: 'block', kind, text, line });
}

/** Whether a shell text leaves a quote open or a line continued (its command goes on on the next line). */
function continues(text: string): boolean {
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
    } else if (quote === '"') {
      if (char === '\\') at++;
      else if (char === '"') quote = undefined;
    } else if (char === '\\') {
      if (at === text.length - 1) return true;
      at++;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '#' && (at === 0 || /\s/.test(text[at - 1]!))) {
      // A comment runs to the end of its line: the quotes of its words are not the shell's.
      const newline = text.indexOf('\n', at);
      if (newline < 0) return false;
      at = newline;
    }
  }
  return quote !== undefined;
}

/** The commands of a run block (a command spans lines while a quote is open or a line ends in `\`), each with its `# {...}` answer. */
export function commandsOf(text: string, firstLine: number): Command[] {
  const commands: Command[] = [];
  let pending: { lines: string[]; line: number } | undefined;
  text.split('\n').forEach((line, index) => {
    const number = firstLine + index;
    if (pending) {
      pending.lines.push(line);
    } else if (/^#\s*[[{]/.test(line.trim())) {
      const last = commands.at(-1);
      if (!last || last.answer) throw new Error(`README.md:${number}: an answer comment that follows no command`);
      last.answer = { text: line.trim().replace(/^#\s*/, ''), line: number };
      return;
    } else if (line.trim() === '' || line.trim().startsWith('#')) {
      return;
    } else {
      pending = { lines: [line], line: number };
    }
    if (!continues(pending.lines.join('\n'))) {
      commands.push({ command: pending.lines.join('\n'), line: pending.line });
      pending = undefined;
    }
  });
  if (pending) throw new Error(`README.md:${pending.line}: a command whose quote or line continuation does not end`);
  return commands;
}

/** A value as the README shows it: JSON with `...` for what it leaves out. */
export type Shown =
  | { kind: 'object'; members: [string, Shown][]; open: boolean }
  | { kind: 'array'; items: Shown[]; open: boolean }
  | { kind: 'string'; text: string }
  | { kind: 'literal'; value: number | boolean | null }
  | { kind: 'any' };

const TOKEN = /\s*(\.\.\.|[{}[\],:]|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/y;

/** Parses a shown answer (JSON in which `...` may stand for a value, a member or an item). */
export function parseShown(text: string): Shown {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`not a shown answer at character ${at}: ${text.slice(at, at + 40)}`);
    tokens.push(match[1]!);
  }
  let position = 0;
  const next = () => tokens[position++];
  const expectToken = (token: string) => {
    const got = next();
    if (got !== token) throw new Error(`expected "${token}" in the shown answer, found "${got}"`);
  };
  /** Reads the members or items up to `close`, each with `item`; answers whether a `...` stood among them. */
  const list = (close: '}' | ']', item: () => void): boolean => {
    let open = false;
    while (tokens[position] !== close) {
      if (tokens[position] === undefined) throw new Error(`the shown answer ends before its "${close}"`);
      if (tokens[position] === '...') {
        open = true;
        position++;
      } else {
        item();
      }
      if (tokens[position] === ',') position++;
      else if (tokens[position] !== close) throw new Error(`expected "," or "${close}" in the shown answer, found "${tokens[position]}"`);
    }
    position++;
    return open;
  };
  const value = (): Shown => {
    const token = next();
    if (token === undefined) throw new Error('the shown answer ends early');
    if (token === '...') return { kind: 'any' };
    if (token === '{') {
      const members: [string, Shown][] = [];
      const open = list('}', () => {
        const key = next()!;
        if (!key.startsWith('"')) throw new Error(`expected a key in the shown answer, found "${key}"`);
        expectToken(':');
        members.push([JSON.parse(key) as string, value()]);
      });
      return { kind: 'object', members, open };
    }
    if (token === '[') {
      const items: Shown[] = [];
      const open = list(']', () => items.push(value()));
      return { kind: 'array', items, open };
    }
    if (token.startsWith('"')) return { kind: 'string', text: JSON.parse(token) as string };
    return { kind: 'literal', value: JSON.parse(token) as number | boolean | null };
  };
  const shown = value();
  if (position !== tokens.length) throw new Error(`the shown answer goes on after its value: ${tokens.slice(position, position + 5).join(' ')}`);
  return shown;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const TIMESTAMP = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z';
const ELISION = '[A-Za-z0-9]*\\.\\.\\.[A-Za-z0-9]*';
/** A random token: 20 characters or more of base64url mixing upper case, lower case and digits (a word of the prose, a name or an id does not). */
const RANDOM = '(?<![A-Za-z0-9_+/=-])(?=[A-Za-z0-9_+/=-]*[a-z])(?=[A-Za-z0-9_+/=-]*[A-Z])(?=[A-Za-z0-9_+/=-]*\\d)[A-Za-z0-9_+/=-]{20,}(?![A-Za-z0-9_+/=-])';
const PORT = '(?<=(?:127\\.0\\.0\\.1|localhost):)\\d{2,5}\\b';

/** A part of a README text: written as it is, or a placeholder (its role, the README's text, and what it matches). */
type Piece = { kind: 'literal'; text: string } | { kind: 'capture'; role: 'port' | 'timestamp' | 'uuid' | 'elision' | 'random'; text: string; key?: string; pattern: string };

/**
 * The placeholders of one walkthrough: the README's hosts and ports and what they are in this
 * run, and each placeholder's README text bound to the value it stood for.
 */
export class Placeholders {
  readonly bindings = new Map<string, string>();

  /** `hosts`: the README's `host:port` texts and this run's (`127.0.0.1:3000` to the runtime's). */
  constructor(private readonly hosts: ReadonlyMap<string, string>) {}

  private pieces(readme: string): Piece[] {
    const fixed = [...this.hosts.keys(), ...this.bindings.keys()].sort((a, b) => b.length - a.length).map(escape);
    const alternatives = [
      ...(fixed.length ? [`(?<fixed>${fixed.join('|')})`] : []),
      `(?<port>${PORT})`,
      `(?<uuid>${UUID})`,
      `(?<timestamp>${TIMESTAMP})`,
      `(?<elision>${ELISION})`,
      `(?<random>${RANDOM})`,
    ];
    const pieces: Piece[] = [];
    let at = 0;
    for (const match of readme.matchAll(new RegExp(alternatives.join('|'), 'g'))) {
      const groups = match.groups!;
      const text = match[0];
      if (match.index > at) pieces.push({ kind: 'literal', text: readme.slice(at, match.index) });
      at = match.index + text.length;
      if (groups.fixed !== undefined) pieces.push({ kind: 'literal', text: this.hosts.get(text) ?? this.bindings.get(text)! });
      else if (groups.port !== undefined) pieces.push({ kind: 'capture', role: 'port', text, pattern: '\\d+' });
      else if (groups.timestamp !== undefined) pieces.push({ kind: 'capture', role: 'timestamp', text, pattern: TIMESTAMP });
      else if (groups.uuid !== undefined) pieces.push({ kind: 'capture', role: 'uuid', text, key: text, pattern: UUID });
      else if (groups.elision !== undefined) pieces.push({ kind: 'capture', role: 'elision', text, ...(text === '...' ? {} : { key: text }), pattern: '[\\s\\S]+?' });
      else pieces.push({ kind: 'capture', role: 'random', text, key: text, pattern: '[A-Za-z0-9_+/=-]+' });
    }
    if (at < readme.length) pieces.push({ kind: 'literal', text: readme.slice(at) });
    return pieces;
  }

  /** Whether `actual` is what the README's text shows, its placeholders aside; binds the new ones when it is. */
  matches(readme: string, actual: string): boolean {
    const pieces = this.pieces(readme);
    const keys = pieces.flatMap((piece) => (piece.kind === 'capture' ? [piece.key] : []));
    const pattern = pieces.map((piece) => (piece.kind === 'literal' ? escape(piece.text) : `(${piece.pattern})`)).join('');
    const match = new RegExp(`^${pattern}$`).exec(actual);
    if (!match) return false;
    const seen = new Map<string, string>();
    for (const [index, key] of keys.entries()) {
      if (key === undefined) continue;
      const value = match[index + 1]!;
      if (seen.has(key) && seen.get(key) !== value) return false;
      seen.set(key, value);
    }
    for (const [key, value] of seen) this.bindings.set(key, value);
    return true;
  }

  /** A README command with this run's hosts and bound values; throws on a placeholder no earlier answer bound. */
  command(readme: string, line: number): string {
    return this.pieces(readme)
      .map((piece) => {
        // A port or a date in a command is the reader's to keep as written; an id, a token or an
        // elided value must be one an earlier answer showed (it is replaced by what it was).
        if (piece.kind === 'literal' || piece.role === 'port' || piece.role === 'timestamp') return piece.text;
        throw new Error(`README.md:${line}: the command uses ${piece.text}, which no earlier answer of the walkthrough shows`);
      })
      .join('');
  }
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Where the service's answer differs from the README's shown one, by JSON path (empty when it is the same in shape). */
export function shapeDifferences(shown: Shown, actual: unknown, placeholders: Placeholders, path = '$'): string[] {
  switch (shown.kind) {
    case 'any':
      return [];
    case 'literal':
      return Object.is(shown.value, actual) ? [] : [`${path}: the README shows ${JSON.stringify(shown.value)}, the service answered ${JSON.stringify(actual)}`];
    case 'string':
      if (typeof actual !== 'string') return [`${path}: the README shows a string, the service answered ${typeOf(actual)} ${JSON.stringify(actual)}`];
      return placeholders.matches(shown.text, actual) ? [] : [`${path}: the README shows ${JSON.stringify(shown.text)}, the service answered ${JSON.stringify(actual)}`];
    case 'array': {
      if (!Array.isArray(actual)) return [`${path}: the README shows an array, the service answered ${typeOf(actual)}`];
      const length = shown.open ? actual.length >= shown.items.length : actual.length === shown.items.length;
      if (!length) return [`${path}: the README shows ${shown.items.length}${shown.open ? ' or more' : ''} items, the service answered ${actual.length}`];
      return shown.items.flatMap((item, index) => shapeDifferences(item, actual[index], placeholders, `${path}[${index}]`));
    }
    case 'object': {
      if (typeOf(actual) !== 'object') return [`${path}: the README shows an object, the service answered ${typeOf(actual)}`];
      const record = actual as Record<string, unknown>;
      const keys = Object.keys(record);
      const shownKeys = shown.members.map(([key]) => key);
      const order = keys.filter((key) => shownKeys.includes(key));
      if (!shown.open && keys.join() !== shownKeys.join()) return [`${path}: the README shows the keys ${shownKeys.join(', ')}; the service answered ${keys.join(', ')}`];
      if (order.join() !== shownKeys.join())
        return [`${path}: the README shows the keys ${shownKeys.join(', ')} in this order; the service answered ${order.join(', ')} of them (of ${keys.join(', ')})`];
      return shown.members.flatMap(([key, value]) => shapeDifferences(value, record[key], placeholders, `${path}.${key}`));
    }
  }
}

/** Where the printed start block differs from the README's, line by line (placeholders aside). */
export function startBlockDifferences(readme: string[], printed: string[], placeholders: Placeholders, firstLine: number): string[] {
  const differences: string[] = [];
  for (let index = 0; index < Math.max(readme.length, printed.length); index++) {
    const shown = readme[index];
    const got = printed[index];
    if (shown === undefined) differences.push(`README.md: the start block ends at line ${firstLine + readme.length - 1}; npm start goes on with ${JSON.stringify(got)}`);
    else if (got === undefined) differences.push(`README.md:${firstLine + index}: the README shows ${JSON.stringify(shown)}; npm start printed no more lines`);
    else if (!placeholders.matches(shown.trimEnd(), got.trimEnd()))
      differences.push(`README.md:${firstLine + index}: the README shows ${JSON.stringify(shown)}; npm start printed ${JSON.stringify(got)}`);
  }
  return differences;
}
