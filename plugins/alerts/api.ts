// The alerts plugin's public API: what a plugin that requires it gets as ctx.deps.alerts.
import { extensionPoint, pluginRef, type PluginRef } from '../../sdk/index.ts';
import type { ChannelKind } from './channels.ts';
import type { AlertKind, RaiseInput } from './engine.ts';
import type { Alert } from './store.ts';

export type { AlertKind, RaiseInput } from './engine.ts';
export type { AlertMessage, ChannelKind, SendContext } from './channels.ts';
export type { Sender } from './send.ts';
export type { Alert, AlertStatus, Severity } from './store.ts';

/** what other plugins may do with alerts */
export interface AlertsApi {
  /** a kind of alert of their own, raised and resolved through raise/resolve */
  addKind(kind: AlertKind): void;
  /** a kind of channel of their own */
  addChannelKind(kind: ChannelKind): void;
  raise(kind: string, input: RaiseInput): Promise<Alert>;
  resolve(kind: string, input: Pick<RaiseInput, 'resource' | 'subject' | 'channels'>): Promise<Alert | null>;
}

/** a kind of channel of another plugin's: `ctx.extensions.add(alertChannelKinds, kind)` (with `requires: [alertsPlugin]`) */
export const alertChannelKinds = extensionPoint<ChannelKind>('alerts', 'channel-kinds', { resource: 'alert channel kind' });

/** `requires: [alertsPlugin]` types ctx.deps.alerts */
export const alertsPlugin: PluginRef<'alerts', AlertsApi> = pluginRef('alerts');
