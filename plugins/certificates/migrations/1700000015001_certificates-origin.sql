-- Up Migration
-- how a certificate came to be: requested through the API, uploaded, or made by automatic HTTPS for a routed hostname
ALTER TABLE certificates ADD COLUMN origin text NOT NULL DEFAULT 'request' CHECK (origin IN ('request', 'upload', 'auto'));
UPDATE certificates SET origin = 'upload' WHERE source = 'upload';
