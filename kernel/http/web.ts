// The web files a plugin serves at `/` (the portal): held in memory, gzip when the browser takes it, index.html for app routes (never for /api or a file it lacks), a page's style nonce fresh for each answer.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { basename, extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.txt': 'text/plain; charset=utf-8',
};
/**
 * the page may load only its own files and talk only to this origin; it may not be framed. A page that holds the
 * placeholder `__CSP_NONCE__` gets it replaced by a fresh nonce, which the policy lets style elements carry: its
 * scripts may style themselves (a terminal measures its font and draws its theme in style elements), markup that found
 * its way into the page may not (no 'unsafe-inline').
 */
const policy = (nonce?: string) => `default-src 'self'; img-src 'self' data:; style-src 'self'${nonce ? ` 'nonce-${nonce}'` : ''}; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`;
const security = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};
export const noncePlaceholder = '__CSP_NONCE__';

/** `template`: a page holding the nonce placeholder, decoded once, filled in for each answer */
interface WebFile { body: Buffer; gzip?: Buffer; type: string; immutable: boolean; template?: string }

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

export function webFiles(dir: string): (req: IncomingMessage, res: ServerResponse) => boolean {
  const load = () => {
    const files = new Map<string, WebFile>();
    if (!existsSync(dir)) return files;
    for (const file of walk(dir)) {
      const body = readFileSync(file);
      const type = types[extname(file)] ?? 'application/octet-stream';
      const compressible = /text|json|svg/.test(type) && body.length > 512;
      // names carrying a content hash (app-1a2b3c4d.js) never change: the browser may keep them
      const template = type.startsWith('text/html') && body.includes(noncePlaceholder) ? body.toString('utf8') : undefined;
      files.set('/' + relative(dir, file).split(sep).join('/'), { body, type, gzip: compressible && template === undefined ? gzipSync(body, { level: 9 }) : undefined, immutable: /-[A-Z0-9]{8}\.\w+$/i.test(file), template });
    }
    return files;
  };
  // read and compressed once at start: the first visitor pays nothing
  const all = load();
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '/').split('?')[0];
    // the API's paths are never pages: an unknown one is the API's 404, not the app's HTML
    if (path === '/api' || path.startsWith('/api/')) return false;
    // where a newcomer looks for the API reference
    if (path === '/docs' || path === '/docs/') {
      res.writeHead(308, { Location: '/api/v1/docs', 'Content-Length': 0 });
      res.end();
      return true;
    }
    // paths without an extension are the app's own pages: the app routes them; a file it does not have is a 404
    const file = all.get(path) ?? (extname(path) || basename(path).startsWith('.') ? undefined : all.get('/index.html'));
    if (!file) return false;
    const nonce = file.template !== undefined ? randomBytes(16).toString('base64') : undefined;
    const gzip = file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = nonce ? Buffer.from(file.template!.replaceAll(noncePlaceholder, nonce)) : gzip ? file.gzip! : file.body;
    res.statusCode = 200;
    res.setHeader('Content-Security-Policy', policy(nonce));
    for (const [k, v] of Object.entries(security)) res.setHeader(k, v);
    res.setHeader('Content-Type', file.type);
    res.setHeader('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : nonce ? 'no-store' : 'no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
