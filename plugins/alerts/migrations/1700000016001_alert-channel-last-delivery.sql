-- Up Migration
-- the last delivery attempt of a channel (a retry, a test alert included), so the channel list answers it without a query per channel
ALTER TABLE alert_channels ADD COLUMN last_delivery_at timestamptz, ADD COLUMN last_delivery_error text;

-- Down Migration
ALTER TABLE alert_channels DROP COLUMN last_delivery_at, DROP COLUMN last_delivery_error;
