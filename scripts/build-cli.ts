// Builds the `dw` package (cli/) into plain JavaScript for Node 20: cli/dist/dw.js and lazily loaded chunks, every dependency bundled.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** `out`: the folder of the built files (default cli/dist; the tests build into a folder of their own, side by side) */
export async function buildCli(root = resolve(import.meta.dirname, '..'), out = join(root, 'cli', 'dist')): Promise<{ ms: number }> {
  const started = performance.now();
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: { dw: join(root, 'cli', 'src', 'bin.ts') },
    outdir: out,
    bundle: true,
    // plan/apply/export and the MCP server are imported when used: dw's start loads only what a verb needs
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    // the CommonJS parts of bundled packages call require() for Node's own modules
    banner: { js: "import { createRequire as __dwRequire } from 'node:module'; const require = __dwRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  chmodSync(join(out, 'dw.js'), 0o755);
  return { ms: Math.round(performance.now() - started) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { ms } = await buildCli();
  // on stderr: `npm pack` (prepack) prints the tarball's name on stdout
  process.stderr.write(`dockwright: built the dw CLI into cli/dist in ${ms} ms\n`);
}
