// The portal's build: the API's types from its route table, then one minified bundle of the shell and every plugin's plugins/<name>/portal/index.tsx pages (the terminal and the plots in chunks loaded on first use).
import { build, type Plugin } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describeApi } from '../../kernel/describe.ts';
import { apiTypes } from './api-types.ts';

/** every plugin folder with a portal/index.tsx: its `pages` join the portal (a plugin that is switched off has no scopes, so its pages stay hidden) */
export function pageSources(root: string): string[] {
  const plugins = join(root, 'plugins');
  return readdirSync(plugins).sort().map((name) => join(plugins, name, 'portal', 'index.tsx')).filter((file) => existsSync(file));
}

const pagesModule = (root: string): Plugin => ({
  name: 'dockwright-pages',
  setup(b) {
    b.onResolve({ filter: /^dockwright:pages$/ }, () => ({ path: 'pages', namespace: 'dockwright' }));
    b.onLoad({ filter: /.*/, namespace: 'dockwright' }, () => {
      const files = pageSources(root);
      // a page module exports `pages`, and may export `overviewCards` and `resourcePaths` (sdk/portal/kit.tsx)
      const sources = files.map((f) => readFileSync(f, 'utf8'));
      const gather = (name: string) => sources.flatMap((text, i) => (new RegExp(`^export\\b.*\\b${name}\\b`, 'm').test(text) ? [`m${i}.${name}`] : []));
      return {
        resolveDir: root, loader: 'ts',
        contents: files.map((f, i) => `import * as m${i} from ${JSON.stringify(f)};`).join('\n')
          + `\nexport const pages = [${files.map((_, i) => `...m${i}.pages`).join(', ')}];`
          + `\nexport const overviewCards = [${gather('overviewCards').map((x) => `...${x}`).join(', ')}];`
          + `\nexport const resourcePaths = Object.assign({}, ${gather('resourcePaths').join(', ')});\n`,
      };
    });
  },
});

/** the names of every plugin the default config knows, switched on or not */
export function knownPlugins(root: string): string[] {
  return Object.keys(JSON.parse(readFileSync(join(root, 'config', 'default.json'), 'utf8')).plugins as Record<string, unknown>);
}

/** the client types cover every plugin, switched on or not: a page of a plugin that is off by default (swarm) still typechecks, and stays hidden at run time */
export async function portalApiTypes(root: string): Promise<string> {
  return apiTypes(await describeApi(root, { plugins: Object.fromEntries(knownPlugins(root).map((name) => [name, { enabled: true }])) }));
}

export async function buildPortal(root: string, out = join(root, 'dist', 'portal')): Promise<{ files: string[]; ms: number }> {
  const started = performance.now();
  const typesFile = join(root, 'sdk', 'portal', 'api.d.ts');
  const types = await portalApiTypes(root);
  // rewritten only when it changed: a stale committed copy shows up in git, a changed API in the typecheck
  if (!existsSync(typesFile) || readFileSync(typesFile, 'utf8') !== types) writeFileSync(typesFile, types);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: { app: join(root, 'plugins', 'portal', 'ui', 'main.tsx'), style: join(root, 'plugins', 'portal', 'ui', 'style.css') },
    outdir: out, entryNames: '[name]-[hash]', bundle: true, minify: true, format: 'esm', splitting: true, chunkNames: 'chunk-[hash]', target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic', jsxImportSource: 'preact', plugins: [pagesModule(root)], metafile: true, logLevel: 'warning', legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const script = outputs.find((f) => f.startsWith('app-') && f.endsWith('.js'))!;
  const style = outputs.find((f) => f.startsWith('style-') && f.endsWith('.css'))!;
  writeFileSync(join(out, 'index.html'), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="dockwright-style-nonce" content="__CSP_NONCE__">
<title>Dockwright</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/${style}">
<script type="module" src="/${script}"></script>
</head>
<body><div id="app"><p class="loading">Loading Dockwright…</p></div></body>
</html>
`);
  return { files: outputs.filter((f) => !f.endsWith('.js') || f === script), ms: Math.round(performance.now() - started) };
}
