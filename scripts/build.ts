// The production build (`npm run build`, run by `npm install` and `npm pack`): kernel/, sdk/ and plugins/ bundled into plain JavaScript in dist/, and the SDK's .d.ts.
// Entries keep their places (dist/kernel/main.js, dist/plugins/stacks/index.js, dist/sdk/index.js), shared code goes to dist/chunks/, other files are copied.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPortal } from './portal/build.ts';
import { buildCli } from './build-cli.ts';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist');
const trees = ['kernel', 'sdk', 'plugins'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * CommonJS packages the build gives their own copy, dist/vendor/<name>.cjs, to change a few lines of what they do as
 * they load. Their own files (`own`) are bundled, patched; every other package they require stays a require from
 * node_modules. Each patch names the text it replaces, and the build fails when a new version no longer has it.
 */
interface Vendored { own: string[]; patches: Record<string, [from: string, to: string]>; keepInPlace?: RegExp; notInstalled?: string[] }
const vendoredCjs: Record<string, Vendored> = {
  // dockerode requires ssh2 (ssh:// engines) and grpc with protobufjs (BuildKit sessions) as it loads, about 2 MB of
  // code most installs never run: those two requires wait for their first use. The session and buildkit modules read
  // .proto files next to them, so they stay in place.
  dockerode: {
    own: ['dockerode', 'docker-modem'],
    patches: {
      [join('dockerode', 'lib', 'docker.js')]: ["withSession = require('./session'),", "withSession = function () { return require('./session').apply(this, arguments); },"],
      [join('docker-modem', 'lib', 'modem.js')]: ["ssh = require('./ssh'),", "ssh = function () { return require('./ssh').apply(this, arguments); },"],
    },
    keepInPlace: /[\/]lib[\/](session|buildkit)\.js$/,
  },
  // pg asks whether it runs on Cloudflare Workers as it loads; where Node has no `navigator` (Node 20) it asks by
  // constructing a fetch Response, which loads Node's whole fetch implementation: about 8 MB of memory for nothing.
  // It copies each query's config through property descriptors, slow enough to show in a profile of a one-row read:
  // a plain object (what kernel/db gives it for a prepared statement) is copied by spreading.
  pg: {
    own: ['pg'],
    patches: {
      [join('pg', 'lib', 'stream.js')]: ["if (typeof Response === 'function') {", 'if (false) { // Dockwright runs on Node, never on Cloudflare Workers'],
      [join('pg', 'lib', 'utils.js')]: ['return Object.defineProperties(', 'return Object.getPrototypeOf(config) === Object.prototype ? { ...config } : Object.defineProperties('],
    },
    notInstalled: ['pg-native'], // an optional peer, required only by pg.native
  },
};
const vendoredFile = (pkg: string) => join(out, 'vendor', `${pkg}.cjs`);

function vendorPlugin(pkg: string, { own, patches, keepInPlace }: Vendored): Plugin {
  const ownDirs = own.map((p) => `${sep}node_modules${sep}${p}${sep}`);
  return {
    name: `vendor-${pkg}`,
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === 'inner') return undefined;
        const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'inner' });
        if (found.errors.length) return { errors: found.errors };
        if ((ownDirs.some((dir) => found.path.includes(dir)) && !keepInPlace?.test(found.path)) || found.external) return found;
        // required by package name, so that Node finds it where the install put it (hoisted beside dockwright, say)
        if (!args.path.startsWith('.')) return { path: args.path, external: true };
        return { path: found.path.split(`${sep}node_modules${sep}`).at(-1)!.split(sep).join('/'), external: true };
      });
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const patch = Object.entries(patches).find(([file]) => args.path.endsWith(`${sep}node_modules${sep}${file}`));
        if (!patch) return undefined;
        const [, [from, to]] = patch;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(from)) throw new Error(`${args.path} no longer has "${from}": update vendoredCjs in scripts/build.ts`);
        return { contents: text.replace(from, to), loader: 'js' };
      });
    },
  };
}

/**
 * TypeBox ships as some 250 ES modules, and each module a process loads costs memory of its own. The build bundles
 * the entry points the sources import into dist/vendor/typebox/, sharing one chunk.
 */
const bundledEsm: Record<string, string> = { '@sinclair/typebox': 'typebox/index.js', '@sinclair/typebox/value': 'typebox/value.js' };

/**
 * The sources are bundled: each entry below with what it imports, the code several entries share in dist/chunks/
 * (one level down, like kernel/, so that paths the kernel names from import.meta.url hold). Packages stay imports of
 * node_modules; vendored ones are imported as `#vendor/…` (package.json "imports"), which resolves from any chunk.
 */
const keepPackages: Plugin = {
  name: 'keep-packages',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('.') || args.path.startsWith('/')) return undefined;
      if (vendoredCjs[args.path]) return { path: `#vendor/${args.path}.cjs`, external: true };
      if (bundledEsm[args.path]) return { path: `#vendor/${bundledEsm[args.path]}`, external: true };
      return { path: args.path, external: true };
    });
  },
};

const started = performance.now();
rmSync(out, { recursive: true, force: true });
// the portal's browser sources (sdk/portal, plugins/<name>/portal) go into the portal bundle, not into the server build
const browserOnly = (f: string) => /(^|\/)portal\//.test(relative(root, f).split(sep).join('/')) && relative(root, f).split(sep).join('/') !== 'plugins/portal/index.ts';
const all = trees.flatMap((t) => files(join(root, t))).filter((f) => !browserOnly(f));
const sources = all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
// what is started or imported by path: the service and CLI, the SDK and the kernel's test kit (package.json exports), each built-in plugin (loaded by folder)
const entries = sources.filter((f) => /^(kernel\/main|sdk\/index|kernel\/test-kit|plugins\/[^/]+\/index)\.ts$/.test(relative(root, f).split(sep).join('/')));
await build({
  entryPoints: entries,
  outdir: out,
  outbase: root,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  plugins: [keepPackages],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
const requireHere = createRequire(import.meta.url);
for (const [pkg, vendored] of Object.entries(vendoredCjs)) {
  await build({
    entryPoints: [requireHere.resolve(pkg)],
    outfile: vendoredFile(pkg),
    bundle: true,
    plugins: [vendorPlugin(pkg, vendored)],
    external: vendored.notInstalled,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
  });
}
await build({
  entryPoints: Object.fromEntries(Object.entries(bundledEsm).map(([pkg, file]) => [file.replace(/\.js$/, ''), fileURLToPath(import.meta.resolve(pkg))])),
  outdir: join(out, 'vendor'),
  bundle: true,
  splitting: true,
  chunkNames: 'typebox/[name]-[hash]',
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
process.stdout.write(`dockwright: built ${sources.length} sources into ${entries.length} entries and their shared chunks in dist/ in ${Math.round(performance.now() - started)} ms\n`);
const portal = await buildPortal(root);
process.stdout.write(`dockwright: built the portal (${portal.files.join(', ')}) into dist/portal in ${portal.ms} ms\n`);
const cli = await buildCli(root);
process.stdout.write(`dockwright: built the dw CLI into cli/dist in ${cli.ms} ms\n`);
