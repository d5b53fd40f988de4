// Outbound delivery of a channel: HTTP POSTs and SMTP, every connection to an address the outbound policy checked, no redirect followed.
import type { Dispatcher } from 'undici';
import { OutboundRefused, problem, type OutboundApi } from '../../sdk/index.ts';

/** a receiver's refusal or an unreachable receiver: the short reason recorded on the delivery (never a secret) */
export class SendFailed extends Error {}

export interface Sender {
  /** the host of an http(s) URL a user gives, refused now when the policy refuses it (at save) */
  checkUrl(raw: string, field: string): Promise<URL>;
  checkHost(host: string): Promise<void>;
  post(url: string, body: string | Buffer, headers: Record<string, string>): Promise<void>;
  mail(opts: MailOptions): Promise<void>;
  close(): Promise<void>;
}

export interface MailOptions {
  host: string; port: number; secure: boolean; username?: string; password?: string; ca?: string;
  from: string; to: string[]; subject: string; text: string;
}

const reason = (err: unknown): string => {
  if (err instanceof OutboundRefused) return err.detail;
  const e = err as NodeJS.ErrnoException & { detail?: string };
  return e.detail ?? (e.code ? `${e.code}: ${e.message}` : e.message);
};

export function createSender(outbound: OutboundApi, timeoutMs: number): Sender {
  let dispatcher: Dispatcher | undefined;
  const pinned = () => (dispatcher ??= outbound.dispatcher({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }));

  return {
    async checkUrl(raw, field) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw problem(400, `${field} is not a URL`, { errors: [{ path: `/body/config/${field}`, message: 'is not a URL' }] });
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw problem(400, `${field} must be an http or https URL`, { errors: [{ path: `/body/config/${field}`, message: 'must be http or https' }] });
      if (url.username || url.password) throw problem(400, `${field} must not carry a user name or password`, { errors: [{ path: `/body/config/${field}`, message: 'has credentials' }] });
      await outbound.check(url.hostname);
      return url;
    },
    checkHost: (host) => outbound.check(host),
    async post(url, body, headers) {
      let answer: Dispatcher.ResponseData;
      try {
        // undici's request never follows a redirect: a 3xx is an answer like any other
        // undici (and its WebAssembly parser) loads at the first webhook, not at boot
        const { request } = await import('undici');
        answer = await request(url, { method: 'POST', body, headers, dispatcher: pinned(), signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw new SendFailed(reason(err));
      }
      const text = (await answer.body.text().catch(() => '')).slice(0, 300).replace(/\s+/g, ' ').trim();
      if (answer.statusCode >= 200 && answer.statusCode < 300) return;
      if (answer.statusCode >= 300 && answer.statusCode < 400) {
        throw new SendFailed(`the receiver answered ${answer.statusCode}, a redirect${answer.headers.location ? ` to ${String(answer.headers.location).slice(0, 200)}` : ''}: redirects are not followed`);
      }
      throw new SendFailed(`the receiver answered ${answer.statusCode}${text ? `: ${text}` : ''}`);
    },
    async mail(o) {
      // resolved once here and connected to that address: the name is kept for STARTTLS's certificate check and the greeting
      let address: string;
      try {
        [{ address }] = await outbound.resolve(o.host);
      } catch (err) {
        throw new SendFailed(reason(err));
      }
      // loaded at the first mail, not at boot: nodemailer costs the idle service several MB
      const { default: nodemailer } = await import('nodemailer');
      const transport = nodemailer.createTransport({
        host: address, port: o.port, secure: o.secure, requireTLS: !o.secure,
        auth: o.username ? { user: o.username, pass: o.password ?? '' } : undefined,
        tls: { servername: o.host, ...(o.ca ? { ca: o.ca } : {}) },
        connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
      });
      try {
        await transport.sendMail({ from: o.from, to: o.to, subject: o.subject, text: o.text });
      } catch (err) {
        throw new SendFailed(reason(err));
      } finally {
        transport.close();
      }
    },
    async close() {
      await dispatcher?.close();
    },
  };
}
