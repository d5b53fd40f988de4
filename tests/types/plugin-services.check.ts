// Type-checked by tests/kernel/plugin-types.test.ts: a plugin's context holds, in its type, exactly the services it declares (all when it declares none), with its typed deps and options.
import { definePlugin, pluginRef, Type, type ContextWith, type Db, type EventsApi, type RevisionsApi } from '../../sdk/index.ts';

interface NotesApi { count(): number }
const notesPlugin = pluginRef<'notes', NotesApi>('notes');

export const narrowed = definePlugin({
  name: 'narrowed',
  version: '1.0.0',
  requires: [notesPlugin],
  options: Type.Object({ limit: Type.Integer() }),
  services: ['db', 'events'],
  setup(ctx) {
    const db: Db = ctx.db;
    const events: EventsApi = ctx.events;
    // @ts-expect-error revisions was not declared
    void ctx.revisions;
    // @ts-expect-error databaseUrl was not declared
    void ctx.databaseUrl;
    const limit: number = ctx.options.limit;
    const notes: number = ctx.deps.notes.count();
    return { db, events, limit, notes };
  },
});

export const none = definePlugin({
  name: 'none',
  version: '1.0.0',
  services: [],
  setup(ctx) {
    // @ts-expect-error a plugin that declares no services has none
    void ctx.db;
    return ctx.name;
  },
});

// SDK 1.3: a plugin that names no services gets every one
export const every = definePlugin({
  name: 'every',
  version: '1.0.0',
  setup(ctx) {
    const revisions: RevisionsApi = ctx.revisions;
    return { revisions, url: ctx.databaseUrl, locks: ctx.locks, db: ctx.db };
  },
});

// a helper takes the services it uses: a context that declared them (or more) fits, one without them does not
const helper = (ctx: ContextWith<'db'>): Db => ctx.db;
export const helped = definePlugin({ name: 'helped', version: '1.0.0', services: ['db', 'secrets'], setup: (ctx) => helper(ctx) });
export const unhelped = definePlugin({
  name: 'unhelped',
  version: '1.0.0',
  services: ['events'],
  // @ts-expect-error the helper needs db, which this plugin did not declare
  setup: (ctx) => helper(ctx),
});

// what setup returns is the plugin's API: its reference carries it to those that require it
type NarrowedApi = Awaited<ReturnType<typeof narrowed.setup>>;
const narrowedPlugin = pluginRef<'narrowed', NarrowedApi>('narrowed');
export const user = definePlugin({
  name: 'user',
  version: '1.0.0',
  requires: [narrowedPlugin],
  services: [],
  setup(ctx) {
    const limit: number = ctx.deps.narrowed.limit;
    return limit;
  },
});

// requires lists references only: not names, not definitions
export const byName = definePlugin({
  name: 'by-name',
  version: '1.0.0',
  // @ts-expect-error a name is no reference
  requires: ['narrowed'],
  setup: () => undefined,
});
export const byDefinition = definePlugin({
  name: 'by-definition',
  version: '1.0.0',
  // @ts-expect-error a definition is no reference
  requires: [narrowed],
  setup: () => undefined,
});
