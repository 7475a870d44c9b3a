// The environment variables the tool reads: secrets and where the services are. Names only, so help texts can
// print them without loading the config schema.
export const TOKEN_ENV = 'AGENCY_API_TOKEN';
export const BASE_URL_ENV = 'AGENCY_API_BASE_URL';
export const SMTP_URL_ENV = 'GEO_REPORTS_SMTP_URL';
export const BROWSER_WS_ENDPOINT_ENV = 'GEO_REPORTS_BROWSER_WS_ENDPOINT';
/** `off`: start the local Chromium with --no-sandbox, for a machine that runs nothing else (a CI runner). */
export const CHROMIUM_SANDBOX_ENV = 'GEO_REPORTS_CHROMIUM_SANDBOX';
/** The token `history` gives git for an HTTPS remote (the job's token in GitHub Actions). */
export const HISTORY_TOKEN_ENV = 'HISTORY_TOKEN';
/** The secret every client's link is made from (`publish`, `links`, and `send` with delivery.email.link). */
export const LINK_SECRET_ENV = 'GEO_REPORTS_LINK_SECRET';
/** The webhook signing secret(s), comma-separated while one is rotated. */
export const WEBHOOK_SECRET_ENV = 'GEO_REPORTS_WEBHOOK_SECRET';
/** The chat channel of alerts: an incoming-webhook URL, which carries a secret. */
export const ALERT_WEBHOOK_URL_ENV = 'GEO_REPORTS_ALERT_WEBHOOK_URL';
