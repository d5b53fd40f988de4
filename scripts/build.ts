// The production build (`npm run build`, run by `npm install` and `npm pack`): kernel/, sdk/ and plugins/ to plain JavaScript in dist/, one file per source, and the SDK's .d.ts.
// Each file keeps its place (dist/plugins/stacks/index.js), so import.meta-relative paths (migrations, built-in plugins) hold; other files are copied.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

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
const all = trees.flatMap((t) => files(join(root, t)));
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

// `dockwright/sdk` (package.json exports) is typed by declarations beside the built SDK; they import each other as .js, like the built files
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(root, 'tsconfig.sdk.json')], { cwd: root, stdio: 'inherit' });
// (the test kit's types reach into the kernel's, so those are emitted too)
for (const file of files(out).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8').replace(/(from '\.{1,2}\/[^']+)\.ts'/g, "$1.js'");
  // the SDK's types name Node's (streams, Buffer): @types/node comes with dockwright, so a plugin needs no typeRoots into it
  writeFileSync(file, file === join(out, 'sdk/index.d.ts') ? `/// <reference types="node" />\n${text}` : text);
}
process.stdout.write(`dockwright: built ${sources.length} files into dist/ in ${Math.round(performance.now() - started)} ms\n`);
