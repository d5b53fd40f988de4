// The rows of the alerts plugin: alerts (deduplicated by key, resolved when their condition clears), channels and deliveries.
import type { Actor, Db } from '../../sdk/index.ts';

export type Severity = 'critical' | 'warning' | 'info';
export const severities: readonly Severity[] = ['info', 'warning', 'critical'];
export type AlertStatus = 'open' | 'acknowledged' | 'resolved';
export const alertStatuses: readonly AlertStatus[] = ['open', 'acknowledged', 'resolved'];
export const severityRank = (s: Severity) => severities.indexOf(s);

export interface Alert {
  id: number; key: string; kind: string; severity: Severity; resource: string | null; message: string; details: Record<string, unknown>;
  count: number; firstSeen: string; lastSeen: string; resolvedAt: string | null; acknowledgedAt: string | null; acknowledgedBy: Actor | null;
  status: AlertStatus;
}

interface AlertRow {
  id: string; key: string; kind: string; severity: Severity; resource: string | null; message: string; details: Record<string, unknown>;
  count: number; first_seen: Date; last_seen: Date; resolved_at: Date | null; acknowledged_at: Date | null; acknowledged_by: Actor | null;
}
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const alertOf = (r: AlertRow): Alert => ({
  id: Number(r.id), key: r.key, kind: r.kind, severity: r.severity, resource: r.resource, message: r.message, details: r.details,
  count: r.count, firstSeen: iso(r.first_seen)!, lastSeen: iso(r.last_seen)!, resolvedAt: iso(r.resolved_at),
  acknowledgedAt: iso(r.acknowledged_at), acknowledgedBy: r.acknowledged_by,
  status: r.resolved_at ? 'resolved' : r.acknowledged_at ? 'acknowledged' : 'open',
});

export interface ChannelRow {
  id: string; name: string; kind: string; config: Record<string, unknown>; secretsSealed: string | null; events: string[]; minSeverity: Severity;
  consecutiveFailures: number; failingSince: string | null; lastError: string | null; createdAt: string; createdBy: Actor;
  lastDelivery: { at: string; delivered: boolean; error?: string } | null;
}
interface RawChannel {
  id: string; name: string; kind: string; config: Record<string, unknown>; secrets_sealed: string | null; events: string[]; min_severity: Severity;
  consecutive_failures: number; failing_since: Date | null; last_error: string | null; created_at: Date; created_by: Actor;
  last_delivery_at: Date | null; last_delivery_error: string | null;
}
const channelOf = (r: RawChannel): ChannelRow => ({
  id: r.id, name: r.name, kind: r.kind, config: r.config, secretsSealed: r.secrets_sealed, events: r.events, minSeverity: r.min_severity,
  consecutiveFailures: r.consecutive_failures, failingSince: iso(r.failing_since), lastError: r.last_error, createdAt: iso(r.created_at)!, createdBy: r.created_by,
  lastDelivery: r.last_delivery_at
    ? { at: iso(r.last_delivery_at)!, delivered: r.last_delivery_error === null, ...(r.last_delivery_error === null ? {} : { error: r.last_delivery_error }) }
    : null,
});

export interface AlertFilter {
  status: AlertStatus | 'unresolved' | 'all'; kind?: string; severity?: Severity; resource?: string; acknowledged?: boolean;
  /** recent resolved: resolved after this */
  resolvedSince: Date; before?: number; limit: number;
}

export function createStore(db: Db) {
  return {
    /** a new alert, or a repeat of the open one with this key (count and last seen raised); concurrent raises meet in the unique index */
    async raise(a: { key: string; kind: string; severity: Severity; resource: string | null; message: string; details: Record<string, unknown> }): Promise<{ alert: Alert; created: boolean }> {
      const { rows } = await db.query<AlertRow & { created: boolean }>(
        `INSERT INTO alerts (key, kind, severity, resource, message, details) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (key) WHERE resolved_at IS NULL DO UPDATE
           SET count = alerts.count + 1, last_seen = now(), message = EXCLUDED.message, severity = EXCLUDED.severity, details = EXCLUDED.details
         RETURNING *, (xmax = 0) AS created`,
        [a.key, a.kind, a.severity, a.resource, a.message, JSON.stringify(a.details)]);
      return { alert: alertOf(rows[0]), created: rows[0].created };
    },
    async resolve(key: string): Promise<Alert | null> {
      const { rows } = await db.query<AlertRow>(`UPDATE alerts SET resolved_at = now() WHERE key = $1 AND resolved_at IS NULL RETURNING *`, [key]);
      return rows[0] ? alertOf(rows[0]) : null;
    },
    async get(id: number): Promise<Alert | null> {
      const { rows } = await db.query<AlertRow>('SELECT * FROM alerts WHERE id = $1', [id]);
      return rows[0] ? alertOf(rows[0]) : null;
    },
    async acknowledge(id: number, actor: Actor): Promise<Alert | null> {
      const { rows } = await db.query<AlertRow>(
        `UPDATE alerts SET acknowledged_at = COALESCE(acknowledged_at, now()), acknowledged_by = COALESCE(acknowledged_by, $2) WHERE id = $1 RETURNING *`,
        [id, JSON.stringify(actor)]);
      return rows[0] ? alertOf(rows[0]) : null;
    },
    async list(f: AlertFilter): Promise<Alert[]> {
      const { rows } = await db.query<AlertRow>(
        `SELECT * FROM alerts
          WHERE (CASE $1::text WHEN 'unresolved' THEN resolved_at IS NULL
                                WHEN 'open' THEN resolved_at IS NULL AND acknowledged_at IS NULL
                                WHEN 'acknowledged' THEN resolved_at IS NULL AND acknowledged_at IS NOT NULL WHEN 'resolved' THEN resolved_at > $2 ELSE resolved_at IS NULL OR resolved_at > $2 END)
            AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR severity = $4) AND ($5::text IS NULL OR resource = $5)
            AND ($6::boolean IS NULL OR (acknowledged_at IS NOT NULL) = $6) AND ($7::bigint IS NULL OR id < $7)
          ORDER BY id DESC LIMIT $8`,
        [f.status, f.resolvedSince, f.kind ?? null, f.severity ?? null, f.resource ?? null, f.acknowledged ?? null, f.before ?? null, f.limit]);
      return rows.map(alertOf);
    },
    async open(): Promise<Alert[]> {
      const { rows } = await db.query<AlertRow>('SELECT * FROM alerts WHERE resolved_at IS NULL ORDER BY id');
      return rows.map(alertOf);
    },

    async channels(): Promise<ChannelRow[]> {
      const { rows } = await db.query<RawChannel>('SELECT * FROM alert_channels ORDER BY created_at, id');
      return rows.map(channelOf);
    },
    async channel(id: string): Promise<ChannelRow | null> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
      const { rows } = await db.query<RawChannel>('SELECT * FROM alert_channels WHERE id = $1', [id]);
      return rows[0] ? channelOf(rows[0]) : null;
    },
    async addChannel(c: { id: string; name: string; kind: string; config: Record<string, unknown>; secretsSealed: string | null; events: string[]; minSeverity: Severity; createdBy: Actor }): Promise<ChannelRow> {
      const { rows } = await db.query<RawChannel>(
        `INSERT INTO alert_channels (id, name, kind, config, secrets_sealed, events, min_severity, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [c.id, c.name, c.kind, JSON.stringify(c.config), c.secretsSealed, c.events, c.minSeverity, JSON.stringify(c.createdBy)]);
      return channelOf(rows[0]);
    },
    async removeChannel(id: string): Promise<boolean> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return false;
      return (await db.query('DELETE FROM alert_channels WHERE id = $1', [id])).rowCount > 0;
    },
    /** a delivery's outcome on its channel: failures count up (and mark since when), a success clears them */
    async channelOutcome(id: string, error: string | null): Promise<void> {
      await db.query(error === null
        ? 'UPDATE alert_channels SET consecutive_failures = 0, failing_since = NULL, last_error = NULL WHERE id = $1'
        : 'UPDATE alert_channels SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, now()), last_error = $2 WHERE id = $1',
      error === null ? [id] : [id, error]);
    },

    /** deliveries of one message to several channels, in one statement */
    async addDeliveries(list: { id: string; channelId: string; alertId: number | null; event: string; message: unknown; status: 'pending' | 'held' }[]): Promise<void> {
      if (!list.length) return;
      const col = <K extends keyof (typeof list)[number]>(k: K) => list.map((d) => d[k]);
      await db.query(
        `INSERT INTO alert_deliveries (id, channel_id, alert_id, event, message, status)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::text[], $5::jsonb[], $6::text[])`,
        [col('id'), col('channelId'), col('alertId'), col('event'), list.map((d) => JSON.stringify(d.message)), col('status')]);
    },
    async setDeliveryJobs(pairs: { id: string; jobId: string }[]): Promise<void> {
      if (!pairs.length) return;
      await db.query(`UPDATE alert_deliveries d SET job_id = p.job FROM unnest($1::uuid[], $2::uuid[]) AS p(id, job) WHERE d.id = p.id`,
        [pairs.map((p) => p.id), pairs.map((p) => p.jobId)]);
    },
    /** a delivery with its channel (null when either is gone) */
    async delivery(id: string): Promise<{ id: string; event: string; message: unknown; status: string; attempts: number; channel: ChannelRow } | null> {
      const { rows } = await db.query<RawChannel & { d_id: string; d_event: string; d_message: unknown; d_status: string; d_attempts: number }>(
        `SELECT c.*, d.id AS d_id, d.event AS d_event, d.message AS d_message, d.status AS d_status, d.attempts AS d_attempts
           FROM alert_deliveries d JOIN alert_channels c ON c.id = d.channel_id WHERE d.id = $1`, [id]);
      const r = rows[0];
      return r ? { id: r.d_id, event: r.d_event, message: r.d_message, status: r.d_status, attempts: r.d_attempts, channel: channelOf(r) } : null;
    },
    /** one try of a delivery, recorded on it and as its channel's last delivery */
    async deliveryAttempt(id: string, error: string | null, final: boolean): Promise<void> {
      await db.query(
        `WITH d AS (
           UPDATE alert_deliveries SET attempts = attempts + 1, last_error = $2,
             status = CASE WHEN $2::text IS NULL THEN 'delivered' WHEN $3 THEN 'failed' ELSE status END,
             delivered_at = CASE WHEN $2::text IS NULL THEN now() ELSE delivered_at END
           WHERE id = $1 RETURNING channel_id)
         UPDATE alert_channels c SET last_delivery_at = now(), last_delivery_error = $2 FROM d WHERE c.id = d.channel_id`, [id, error, final]);
    },
    /** a try outside a delivery (a test alert): its channel's last delivery */
    async channelAttempt(channelId: string, error: string | null): Promise<void> {
      await db.query('UPDATE alert_channels SET last_delivery_at = now(), last_delivery_error = $2 WHERE id = $1', [channelId, error]);
    },
    /** the held deliveries of a channel, taken for its digest (marked digested in the same statement) */
    async takeHeld(channelId: string): Promise<{ event: string; message: { title: string } }[]> {
      const { rows } = await db.query<{ event: string; message: { title: string } }>(
        `UPDATE alert_deliveries SET status = 'digested' WHERE channel_id = $1 AND status = 'held' RETURNING event, message, created_at`, [channelId]);
      return rows;
    },
    async channelsWithHeld(): Promise<string[]> {
      const { rows } = await db.query<{ channel_id: string }>(`SELECT DISTINCT channel_id FROM alert_deliveries WHERE status = 'held'`);
      return rows.map((r) => r.channel_id);
    },
    /** the pending deliveries and their jobs: after a restart, those whose job is over are given a new one */
    async pending(): Promise<{ id: string; jobId: string | null }[]> {
      const { rows } = await db.query<{ id: string; job_id: string | null }>(`SELECT id, job_id FROM alert_deliveries WHERE status = 'pending'`);
      return rows.map((r) => ({ id: r.id, jobId: r.job_id }));
    },
  };
}
export type AlertStore = ReturnType<typeof createStore>;
