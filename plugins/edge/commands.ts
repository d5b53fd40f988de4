// The edge's verbs of the command line: stop, start and restart the Caddy that outlives the service, on purpose.
import type { PluginCommand } from '../../sdk/index.ts';
import type { AdminEndpoint } from './admin.ts';
import { startCaddy, stopCaddy } from './process.ts';

export function edgeCommands(home: { dir: string; endpoint: AdminEndpoint; binary: string } | null): PluginCommand[] {
  const managed = () => {
    if (!home) throw new Error('the edge is an external Caddy (plugins.edge.options.adminAddress): start and stop it where it runs');
    return home;
  };
  const stop = async () => {
    const { dir } = managed();
    const pid = await stopCaddy(dir);
    return pid === null ? 'the edge was not running; it stays stopped until `edge start`\n' : `the edge (caddy, pid ${pid}) stopped; it stays stopped until \`edge start\`\n`;
  };
  const start = async () => {
    const { dir, endpoint, binary } = managed();
    const { pid, already } = await startCaddy(binary, dir, endpoint);
    return already ? `the edge runs already (caddy, pid ${pid})\n` : `the edge started (caddy, pid ${pid}) with its last configuration; a running service adopts it\n`;
  };
  return [
    { name: 'edge stop', usage: 'edge stop                               stop the edge\'s Caddy on purpose (it outlives the service otherwise); it stays stopped until edge start', run: stop },
    { name: 'edge start', usage: 'edge start                              start the edge\'s Caddy again (with its last configuration)', run: start },
    { name: 'edge restart', usage: 'edge restart                            stop and start the edge\'s Caddy (a new binary; about a second without the edge)', run: async () => (await stop()) + (await start()) },
  ];
}
