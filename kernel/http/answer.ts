// Writing an API answer: its head in one writeHead, its body at once or at the end of the event loop's turn with the other answers made in it.
import type { ServerResponse } from 'node:http';
import type { Problem } from '../../sdk/index.ts';

/** headers as node:http takes them in one writeHead: a flat list of names and values */
export type Head = string[];

/** `headers` added to `head`; one of the same name already there is replaced (a 429's Retry-After, a reply's own ETag) */
export function headOf(headers: Record<string, string>, head: Head = []): Head {
  for (const name in headers) {
    let i = 0;
    while (i < head.length && head[i] !== name) i += 2;
    head[i] = name;
    head[i + 1] = headers[name];
  }
  return head;
}

function endAnswer(res: ServerResponse, body: string | Buffer | undefined): void {
  try {
    res.end(body);
  } catch (err) {
    res.destroy(err as Error);
  }
}

/** writes whole API answers: `send` one, `sendProblem` a problem (`head` holds what every answer of its route carries) */
export interface AnswerWriter {
  send(res: ServerResponse, status: number, body: unknown, head: Head, type?: string): void;
  sendProblem(res: ServerResponse, p: Problem, instance?: string, head?: Head): void;
}

/**
 * An answer's status line and headers go to node:http in one writeHead with a flat list, which skips the per-header
 * bookkeeping of setHeader; nothing else sets headers on an API answer before this. The head is made (and checked) at
 * once; the body is ended at once, or, `batched` (config http.batchAnswers, the default), joins the answer batch.
 *
 * The answer batch: the answers made in this turn of the event loop, as a flat list of responses and bodies, ended
 * together at the turn's end (setImmediate). Written one at a time, as each is made, every write to an idle client
 * wakes it; a write that follows others closely finds it awake. Over loopback (the edge in front of the API, a script
 * on the same host) that wake-up is paid inside our own write, and on a small virtual machine it costs more than the
 * rest of a small answer: under load, answers written together take about a fifth less CPU each. An answer waits at
 * most for the rest of its turn. When debugging the order of writes, switch it off (http.batchAnswers: false).
 */
export function answerWriter(batched: boolean): AnswerWriter {
  const answerBatch: (ServerResponse | string | Buffer | undefined)[] = [];
  const endBatchedAnswers = () => {
    const answers = answerBatch.splice(0);
    for (let i = 0; i < answers.length; i += 2) endAnswer(answers[i] as ServerResponse, answers[i + 1] as string | Buffer | undefined);
  };

  function send(res: ServerResponse, status: number, body: unknown, head: Head, type = 'application/json'): void {
    if (res.headersSent) { res.end(); return; }
    let text: string | Buffer | undefined;
    if (body !== undefined && status !== 204) {
      const json = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      // a long answer is encoded once: its length is then the buffer's, not a second pass over the text
      text = typeof json === 'string' && json.length > 4096 ? Buffer.from(json) : json;
      head.push('Content-Type', type, 'Content-Length', String(typeof text === 'string' ? Buffer.byteLength(text) : text.length));
    }
    res.writeHead(status, head);
    if (!batched) endAnswer(res, text);
    else if (answerBatch.push(res, text) === 2) setImmediate(endBatchedAnswers);
  }

  return {
    send,
    sendProblem: (res, p, instance, head = []) => send(res, p.status, p.toJSON(instance), headOf(p.headers ?? {}, head), 'application/problem+json'),
  };
}
