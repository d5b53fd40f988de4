// The production build (`npm run build`, run by `npm install`): kernel/, sdk/ and plugins/ to plain JavaScript in dist/, one file per source.
// Each file keeps its place (dist/plugins/stacks/index.js), so import.meta-relative paths (migrations, built-in plugins) hold; other files are copied.
import { build, type Plugin } from 'esbuild';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { buildPortal } from './portal/build.ts';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist');
const trees = ['kernel', 'sdk', 'plugins'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/** every import stays an import; relative `.ts` specifiers point at the built `.js` */
const keepImports: Plugin = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const local = args.path.startsWith('.') && args.path.endsWith('.ts');
      return { path: local ? args.path.slice(0, -3) + '.js' : args.path, external: true };
    });
  },
};

const started = performance.now();
rmSync(out, { recursive: true, force: true });
// the portal's browser sources (sdk/portal, plugins/<name>/portal) go into the portal bundle, not into the server build
const browserOnly = (f: string) => /(^|\/)portal\//.test(relative(root, f).split(sep).join('/')) && relative(root, f).split(sep).join('/') !== 'plugins/portal/index.ts';
const all = trees.flatMap((t) => files(join(root, t))).filter((f) => !browserOnly(f));
const sources = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
await build({
  entryPoints: sources,
  outdir: out,
  outbase: root,
  bundle: true,
  plugins: [keepImports],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
for (const file of all.filter((f) => !f.endsWith('.ts'))) cpSync(file, join(out, relative(root, file)));
process.stdout.write(`dockwright: built ${sources.length} files into dist/ in ${Math.round(performance.now() - started)} ms\n`);
const portal = await buildPortal(root);
process.stdout.write(`dockwright: built the portal (${portal.files.join(', ')}) into dist/portal in ${portal.ms} ms\n`);
