import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { type FallbackHandler, requestUrl } from '#infra/local/http-adapter';

/** One message the local SMTP server accepted, parsed (mailparser) as a mail client would. */
export interface CapturedMail {
  id: number;
  receivedAt: string;
  /** The envelope's recipients (RCPT TO), as the server saw them. */
  envelopeTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The message as it arrived (headers and MIME parts). */
  raw: string;
}

export interface Mailbox {
  /** Where to send (nodemailer's URL form): smtp://127.0.0.1:<port>. */
  smtpUrl: string;
  port: number;
  /** Everything received so far, oldest first. */
  messages(): readonly CapturedMail[];
  /** Waits until `count` messages satisfy `match` (or `timeoutMs` passes: then it throws, listing what came). */
  waitFor(match: (mail: CapturedMail) => boolean, options?: { count?: number; timeoutMs?: number }): Promise<CapturedMail[]>;
  /** The mailbox's pages under `prefix` (/mail/): the list, each message, and messages.json. */
  pages(prefix: string): FallbackHandler;
  stop(): Promise<void>;
}

/** Messages kept in memory (the oldest are dropped beyond it). */
const KEPT = 500;

/**
 * A real SMTP server on loopback (smtp-server: no TLS, no authentication; it listens on
 * 127.0.0.1 only) that keeps what it receives, parsed by mailparser: the local runtime's
 * mailbox, shown at /mail/, and the tests' way of reading the email the service sent.
 */
export async function startMailbox(options: { port?: number } = {}): Promise<Mailbox> {
  const received: CapturedMail[] = [];
  let nextId = 1;
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            const to = Array.isArray(parsed.to) ? parsed.to.map((entry) => entry.text).join(', ') : (parsed.to?.text ?? '');
            received.push({
              id: nextId++,
              receivedAt: new Date().toISOString(),
              envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
              from: parsed.from?.text ?? '',
              to,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              raw: raw.toString('utf8'),
            });
            if (received.length > KEPT) received.shift();
            for (const wake of waiters) wake();
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  const waitFor: Mailbox['waitFor'] = (match, { count = 1, timeoutMs = 15_000 } = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = received.filter(match);
        if (found.length < count) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`waited ${timeoutMs} ms for ${count} matching message(s); the mailbox has: ${received.map((mail) => `${mail.to}: ${mail.subject}`).join(' | ') || 'nothing'}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    port,
    messages: () => received,
    waitFor,
    pages: (prefix) => mailboxPages(prefix, () => received),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/**
 * The mailbox's page around `body`. It reads on a phone too (375 px): a word longer than a line
 * (an address, a link in a message, a line of base64 in the source) breaks where it must instead
 * of widening the page, the text and source keep their line breaks but wrap, and the frame is as
 * wide as the page with its border. On a phone the list's rows stand one field a line: three
 * columns in its width were a few letters each ('Receiv ed', a time in five pieces).
 */
const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem;overflow-wrap:anywhere}table{border-collapse:collapse;width:100%}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left}' +
  'pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1rem}iframe{box-sizing:border-box;width:100%;height:32rem;border:1px solid #ddd}' +
  '@media (max-width:40rem){body{margin:1rem}pre{padding:.5rem}table,tbody,tr,td{display:block}thead{display:none}tr{border-bottom:1px solid #ddd;padding:.4rem 0}td{border:0;padding:.1rem 0}}</style>' +
  `</head><body>${body}</body></html>`;

/**
 * The mailbox in a browser: `<prefix>` lists what arrived (newest first), `<prefix><id>` shows
 * one message (its HTML in a sandboxed frame, its text, its raw source), `<prefix>messages.json`
 * is the list as JSON. Loopback only, like the runtime.
 */
function mailboxPages(prefix: string, messages: () => readonly CapturedMail[]): FallbackHandler {
  return (request, response) => {
    if (request.method !== 'GET') return false;
    const path = requestUrl(request).pathname;
    if (!path.startsWith(prefix) && path !== prefix.replace(/\/$/, '')) return false;
    const rest = path.slice(prefix.length);
    const answer = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      response.end(body);
    };
    if (rest === 'messages.json') return (answer(200, 'application/json; charset=utf-8', JSON.stringify(messages().map(({ raw: _raw, ...mail }) => mail))), true);
    if (rest === '') {
      const rows = [...messages()]
        .reverse()
        .map((mail) => `<tr><td>${escapeHtml(mail.receivedAt)}</td><td>${escapeHtml(mail.to)}</td><td><a href="${prefix}${mail.id}">${escapeHtml(mail.subject || '(no subject)')}</a></td></tr>`)
        .join('');
      answer(
        200,
        'text/html; charset=utf-8',
        page(
          'Local mailbox',
          `<h1>Local mailbox</h1><p>Every email the service sent since it started (newest first). Reload to see new ones.</p><table><thead><tr><th>Received</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows || '<tr><td colspan="3">Nothing yet.</td></tr>'}</tbody></table>`,
        ),
      );
      return true;
    }
    const mail = messages().find((entry) => String(entry.id) === rest);
    if (!mail) return (answer(404, 'text/plain; charset=utf-8', 'No such message.'), true);
    answer(
      200,
      'text/html; charset=utf-8',
      page(
        mail.subject,
        `<p><a href="${prefix}">All messages</a></p><h1>${escapeHtml(mail.subject)}</h1><p>From ${escapeHtml(mail.from)}<br>To ${escapeHtml(mail.to)}<br>${escapeHtml(mail.receivedAt)}</p>` +
          `<h2>HTML</h2><iframe sandbox title="The message's HTML" srcdoc="${escapeHtml(mail.html)}"></iframe><h2>Text</h2><pre>${escapeHtml(mail.text)}</pre><details><summary>Source</summary><pre>${escapeHtml(mail.raw)}</pre></details>`,
      ),
    );
    return true;
  };
}
