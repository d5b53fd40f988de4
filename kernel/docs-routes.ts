// The API reference at /api/v1/docs: Swagger UI (swagger-ui-dist, served from node_modules, no CDN) rendering /api/v1/openapi.json.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { defineRoute, problem, streamReply, type AnyRoute } from '../sdk/index.ts';

/** the page loads only these files, from this origin */
const security = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dockwright API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/v1/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/api/v1/docs/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/start.js"></script>
</body>
</html>
`;
/** Swagger UI on the served document; "Try it out" sends requests to this service with the bearer given under Authorize */
const start = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: false, validatorUrl: null });\n`;

const types = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const;
const files = ['swagger-ui.css', 'swagger-ui-bundle.js', 'start.js'] as const;

/** read at the first visit (the bundle is 1.5 MB: an idle service does not hold it) */
let cache: Map<string, Buffer> | undefined;
function file(name: (typeof files)[number]): Buffer {
  if (!cache) {
    const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    cache = new Map([['start.js', Buffer.from(start)], ...['swagger-ui.css', 'swagger-ui-bundle.js'].map((f) => [f, readFileSync(join(dir, f))] as [string, Buffer])]);
  }
  return cache.get(name)!;
}

export function docsRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET', path: '/docs', public: true, summary: 'This API\'s reference, to read in a browser (Swagger UI on /api/v1/openapi.json)',
      response: Type.String({ description: 'an HTML page' }), mediaType: 'text/html',
      handler: async () => streamReply(Readable.from([Buffer.from(page)]), 'text/html; charset=utf-8', security),
    }),
    defineRoute({
      method: 'GET', path: '/docs/:file', public: true, summary: 'The files of the API reference page (its script and style)',
      params: Type.Object({ file: Type.Union(files.map((f) => Type.Literal(f))) }), errors: [404],
      response: Type.String({ description: 'a script or a style sheet' }), mediaType: '*/*',
      handler: async ({ params }) => {
        if (!files.includes(params.file)) throw problem(404, `no file ${params.file} in the API reference`);
        const type = types[params.file.endsWith('.css') ? 'css' : 'js'];
        return streamReply(Readable.from([file(params.file)]), type, { ...security, 'Cache-Control': 'public, max-age=3600' });
      },
    }),
  ];
}
