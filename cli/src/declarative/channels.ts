// The alert-channel kind: kind, config (secret fields by reference), events and minimum severity, by name. The API has no update of a channel: a change is refused with what to do.
import type { Client } from '../client.ts';
import { CliError, exitCodes } from '../errors.ts';
import { resolveSecrets, same } from './compare.ts';
import { conflict } from './conflicts.ts';
import type { Change, KindHandler, Listed } from './model.ts';

const severityDefault = 'info';

async function channelsByName(client: Client): Promise<Map<string, Listed>> {
  const { body } = await client.any<any[]>('get', '/api/v1/alerts/channels');
  const byName = new Map<string, Listed>();
  for (const ch of body) {
    if (byName.has(ch.name)) throw new CliError(`two alert channels are named ${ch.name}`, exitCodes.refused, 'rename or remove one: dw addresses channels by name');
    byName.set(ch.name, ch);
  }
  return byName;
}

export const channelKind: KindHandler = {
  kind: 'alert-channel',
  fields: ['type', 'config', 'events', 'minSeverity'],
  list: channelsByName,

  async plan(client, declared, resolve, current) {
    const { name, spec } = { name: declared.name, spec: declared.spec! };
    if (typeof spec.type !== 'string') throw new CliError(`${declared.file}: alert-channel ${name} needs type (webhook, email, slack, …)`, exitCodes.refused);
    const config = (spec.config ?? {}) as Record<string, unknown>;
    const events = (spec.events ?? []) as string[];
    const minSeverity = (spec.minSeverity ?? severityDefault) as string;
    if (!current) {
      const secrets = resolveSecrets(config, resolve, `alert-channel ${name} config`);
      if (secrets.kept.length) throw new CliError(`alert-channel ${name}: config ${secrets.kept.join(', ')} ha${secrets.kept.length > 1 ? 've' : 's'} no value, and the channel is new`, exitCodes.refused);
      return {
        kind: 'alert-channel', name, action: 'create', fields: ['type', 'config', 'events', 'minSeverity'],
        apply: async () => {
          if ((await channelsByName(client)).has(name)) throw conflict('alert-channel', name, 'it was created');
          await client.any('post', '/api/v1/alerts/channels', { body: { name, kind: spec.type, config: secrets.given, events, minSeverity } });
        },
      };
    }
    // secret fields are never answered: compared only when they are missing on the server
    const secretFields = current.secretFields as string[];
    const fields: string[] = [];
    if (spec.type !== current.kind) fields.push('type');
    const plain = Object.fromEntries(Object.entries(config).filter(([k]) => !secretFields.includes(k)));
    const serverPlain = current.config as Record<string, unknown>;
    if (!Object.entries(plain).every(([k, v]) => same(resolve(v, `alert-channel ${name} config.${k}`), serverPlain[k]))) fields.push('config');
    if (!same([...events].sort(), [...(current.events as string[])].sort())) fields.push('events');
    if (minSeverity !== current.minSeverity) fields.push('minSeverity');
    if (!fields.length) return null;
    return {
      kind: 'alert-channel', name, action: 'update', fields,
      apply: async () => {
        throw new CliError(`alert-channel ${name} differs (${fields.join(', ')}), and the API cannot change a channel in place`, exitCodes.refused,
          'remove it (apply with --prune after taking it out of the files, or DELETE /api/v1/alerts/channels/{id}) and apply again to create it anew');
      },
    };
  },

  remove(client, listed): Change {
    return {
      kind: 'alert-channel', name: listed.name, action: 'delete', fields: [],
      apply: async () => {
        const now = (await channelsByName(client)).get(listed.name);
        if (!now || now.id !== listed.id) throw conflict('alert-channel', listed.name, now ? 'it was replaced' : 'it was removed');
        await client.any('delete', `/api/v1/alerts/channels/${encodeURIComponent(String(listed.id))}`);
      },
    };
  },

  async export(client: Client, name: string) {
    const ch = (await channelsByName(client)).get(name)!;
    const config = { ...(ch.config as Record<string, unknown>), ...Object.fromEntries((ch.secretFields as string[]).map((k) => [k, null])) };
    return { kind: 'alert-channel' as const, name, spec: { type: ch.kind, config, events: ch.events, minSeverity: ch.minSeverity } };
  },
};
