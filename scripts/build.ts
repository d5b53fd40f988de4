// The production build (`npm run build`, run by `npm install` and `npm pack`): kernel/, sdk/ and plugins/ to plain JavaScript in dist/, one file per source, and the SDK's .d.ts.
// Each file keeps its place (dist/plugins/stacks/index.js), so import.meta-relative paths (migrations, built-in plugins) hold; other files are copied.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { buildPortal } from './portal/build.ts';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist');
const trees = ['kernel', 'sdk', 'plugins'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * dockerode requires ssh2 (ssh:// engines) and grpc with protobufjs (BuildKit sessions) as it loads, about 2 MB of code
 * most installs never run. The build gives it its own copy, dist/vendor/dockerode.cjs, whose two requires of them wait
 * for their first use; every other file of dockerode and docker-modem is the same code, their other packages are
 * required from node_modules as before.
 */
const vendored = join(out, 'vendor', 'dockerode.cjs');
const lazyRequires: Record<string, [string, string]> = {
  [join('dockerode', 'lib', 'docker.js')]: ["withSession = require('./session'),", "withSession = function () { return require('./session').apply(this, arguments); },"],
  [join('docker-modem', 'lib', 'modem.js')]: ["ssh = require('./ssh'),", "ssh = function () { return require('./ssh').apply(this, arguments); },"],
};
const ownFiles = ['dockerode', 'docker-modem'].map((p) => `${sep}node_modules${sep}${p}${sep}`);
const lazyDockerode: Plugin = {
  name: 'lazy-dockerode',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === 'inner') return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'inner' });
      if (found.errors.length) return { errors: found.errors };
      // __dirname-relative files (the .proto files of session and buildkit) need those two modules in their own place
      const own = ownFiles.some((dir) => found.path.includes(dir)) && !/[\/]lib[\/](session|buildkit)\.js$/.test(found.path);
      if (own || found.external) return found;
      return { path: `./${relative(dirname(vendored), found.path).split(sep).join('/')}`, external: true };
    });
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const patch = Object.entries(lazyRequires).find(([file]) => args.path.endsWith(`${sep}node_modules${sep}${file}`));
      if (!patch) return undefined;
      const [, [from, to]] = patch;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(from)) throw new Error(`${args.path} no longer has "${from}": update lazyRequires in scripts/build.ts`);
      return { contents: text.replace(from, to), loader: 'js' };
    });
  },
};

/** every import stays an import; relative `.ts` specifiers point at the built `.js`; dockerode is the vendored copy */
const keepImports: Plugin = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      if (args.path === 'dockerode') {
        const from = join(out, relative(root, args.resolveDir));
        return { path: relative(from, vendored).split(sep).join('/').replace(/^(?!\.)/, './'), external: true };
      }
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
await build({
  entryPoints: [createRequire(import.meta.url).resolve('dockerode')],
  outfile: vendored,
  bundle: true,
  plugins: [lazyDockerode],
  platform: 'node',
  format: 'cjs',
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
const portal = await buildPortal(root);
process.stdout.write(`dockwright: built the portal (${portal.files.join(', ')}) into dist/portal in ${portal.ms} ms\n`);
