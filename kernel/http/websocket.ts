// WebSocket connections on the server side (RFC 6455): the handshake's accept key, the frame codec, and one peer over an upgraded socket.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { WebSocketPeer } from '../../sdk/index.ts';

const guid = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** the Sec-WebSocket-Accept answer to a client's Sec-WebSocket-Key */
export function acceptKey(key: string): string {
  return createHash('sha1').update(key + guid).digest('base64');
}

/** a well-formed Sec-WebSocket-Key: 16 bytes in base64 */
export function validKey(key: unknown): key is string {
  return typeof key === 'string' && /^[A-Za-z0-9+/]{22}==$/.test(key.trim());
}

export const Opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** one frame as sent (a server's frames are never masked; a client's always are, with `mask`) */
export function encodeFrame(opcode: number, payload: Buffer = Buffer.alloc(0), mask?: Buffer): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + (mask ? 4 : 0));
  head[0] = 0x80 | opcode;
  head[1] = (mask ? 0x80 : 0) | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) head.writeUInt16BE(length, 2);
  else if (extra === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (!mask) return Buffer.concat([head, payload]);
  mask.copy(head, 2 + extra);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, body]);
}

export interface Frame { fin: boolean; opcode: number; payload: Buffer }

/** a broken peer: the close code to answer with and why */
export class FrameError extends Error {
  constructor(readonly code: number, message: string) { super(message); }
}

/**
 * Frames out of a byte stream. `masked`: what the frames must be (a server requires masked frames from its clients);
 * a frame larger than `maxPayload` is refused with 1009.
 */
export class FrameParser {
  #pending: Buffer = Buffer.alloc(0);

  constructor(private readonly masked: boolean, private readonly maxPayload: number) {}

  push(chunk: Buffer): Frame[] {
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    const frames: Frame[] = [];
    for (;;) {
      const buf = this.#pending;
      if (buf.length < 2) break;
      const fin = (buf[0] & 0x80) !== 0;
      if (buf[0] & 0x70) throw new FrameError(1002, 'reserved bits set without an extension');
      const opcode = buf[0] & 0x0f;
      const masked = (buf[1] & 0x80) !== 0;
      if (masked !== this.masked) throw new FrameError(1002, masked ? 'a server frame must not be masked' : 'a client frame must be masked');
      let length = buf[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buf.length < 4) break;
        length = buf.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buf.length < 10) break;
        const big = buf.readBigUInt64BE(2);
        if (big > BigInt(this.maxPayload)) throw new FrameError(1009, `a frame of ${big} bytes is more than ${this.maxPayload}`);
        length = Number(big);
        offset = 10;
      }
      if (opcode >= 8 && (length > 125 || !fin)) throw new FrameError(1002, 'a control frame must be whole and at most 125 bytes');
      if (![0, 1, 2, 8, 9, 10].includes(opcode)) throw new FrameError(1002, `unknown opcode ${opcode}`);
      if (length > this.maxPayload) throw new FrameError(1009, `a frame of ${length} bytes is more than ${this.maxPayload}`);
      const maskAt = offset;
      if (masked) offset += 4;
      if (buf.length < offset + length) break;
      const payload = Buffer.from(buf.subarray(offset, offset + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buf[maskAt + (i & 3)];
      frames.push({ fin, opcode, payload });
      this.#pending = buf.subarray(offset + length);
    }
    return frames;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** close codes a peer may send (1005, 1006 and 1015 are never on the wire) */
function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/**
 * One server-side connection: emits 'message' (text; a binary frame as its UTF-8 text), 'close' (code, reason) once,
 * and 'drain' when a send that returned false has left. Pings are answered; a close is answered and ends the socket.
 */
export class WebSocketConnection extends EventEmitter implements WebSocketPeer {
  #socket: Duplex;
  #parser: FrameParser;
  #message: Buffer[] = [];
  #messageSize = 0;
  #messageOpcode = 0;
  #closeSent = false;
  #closed = false;

  constructor(socket: Duplex, head: Buffer, private readonly maxMessage = 1 << 20) {
    super();
    this.#socket = socket;
    this.#parser = new FrameParser(true, maxMessage);
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('drain', () => this.emit('drain'));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#finish(1006, ''));
    if (head.length) queueMicrotask(() => this.#receive(head));
  }

  get open(): boolean {
    return !this.#closeSent && !this.#closed;
  }

  send(text: string | Buffer): boolean {
    if (!this.open) return false;
    return this.#socket.write(encodeFrame(Opcode.text, Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8')));
  }

  close(code = 1000, reason = ''): void {
    if (this.#closeSent || this.#closed) return;
    this.#closeSent = true;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    this.#socket.write(encodeFrame(Opcode.close, Buffer.concat([payload, Buffer.from(reason, 'utf8').subarray(0, 123)])));
    // the peer answers with its own close; one that does not is cut off
    const timer = setTimeout(() => this.#socket.destroy(), 2000);
    timer.unref();
    this.#socket.once('close', () => clearTimeout(timer));
    this.#finish(code, reason);
  }

  #finish(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.emit('close', code, reason);
  }

  #receive(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.#parser.push(chunk);
    } catch (err) {
      this.#fail(err as FrameError);
      return;
    }
    for (const frame of frames) {
      if (this.#closed && frame.opcode !== Opcode.close) continue;
      try {
        this.#frame(frame);
      } catch (err) {
        this.#fail(err as FrameError);
        return;
      }
    }
  }

  #fail(err: FrameError): void {
    const code = err instanceof FrameError ? err.code : 1011;
    this.close(code, err.message);
    this.#socket.end();
  }

  #frame({ fin, opcode, payload }: Frame): void {
    if (opcode === Opcode.ping) { if (this.open) this.#socket.write(encodeFrame(Opcode.pong, payload)); return; }
    if (opcode === Opcode.pong) return;
    if (opcode === Opcode.close) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      if (payload.length === 1 || (payload.length >= 2 && !sendableCode(code))) throw new FrameError(1002, 'a malformed close frame');
      const reason = payload.length > 2 ? payload.subarray(2).toString('utf8') : '';
      if (!this.#closeSent) {
        this.#closeSent = true;
        this.#socket.write(encodeFrame(Opcode.close, payload.subarray(0, 2)));
      }
      this.#socket.end();
      this.#finish(code, reason);
      return;
    }
    if (opcode === Opcode.continuation) {
      if (!this.#messageOpcode) throw new FrameError(1002, 'a continuation frame without a message to continue');
    } else {
      if (this.#messageOpcode) throw new FrameError(1002, 'a new message before the last one ended');
      this.#messageOpcode = opcode;
    }
    this.#messageSize += payload.length;
    if (this.#messageSize > this.maxMessage) throw new FrameError(1009, `a message of more than ${this.maxMessage} bytes`);
    this.#message.push(payload);
    if (!fin) return;
    const whole = Buffer.concat(this.#message);
    const text = this.#messageOpcode === Opcode.text;
    this.#message = [];
    this.#messageSize = 0;
    this.#messageOpcode = 0;
    let data: string;
    try {
      data = text ? utf8.decode(whole) : whole.toString('utf8');
    } catch {
      throw new FrameError(1007, 'a text message that is not UTF-8');
    }
    this.emit('message', data);
  }
}
