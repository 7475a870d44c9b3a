// The configuration file (config/geo-reports.json): branding, report content, per-client overrides, schedule.
// Secrets never live here: tokens come from AGENCY_API_TOKEN, the SMTP login from GEO_REPORTS_SMTP_URL (see load.ts).
import { z } from 'zod';
import { DEFAULT_RETRY } from '../api/retry.js';
import { AnnotationEntry } from './annotations.js';
import { SECTIONS } from '../sections/index.js';
import { PROJECT_STATUSES, REPORT_SECTIONS, type ReportSection } from '../spec/vocabulary.js';
import { FIELD_NAMES, type FieldName } from '../content/fields.js';
import { FALLBACK_LANGUAGE, LanguageCodeSchema } from '../i18n/locales.js';
import { PERIOD_PATTERN, toMonth } from '../period.js';
import { GOAL_DIRECTIONS, goalDirection, goalMetricProblem } from '../report/goals.js';

/** A dot path into an answer (`content.scores.geo`, `items.0.value`). */
const fieldPath = z.string().regex(/^[^.\s]+(\.[^.\s]+)*$/, { message: 'expected a dot path like "content.scores.geo"' });

/** `api.fields`: value name → path(s) where this account's API puts it, tried before the built-in names. */
const fieldMap = z
  .record(z.string(), z.union([fieldPath, z.array(fieldPath).min(1)]))
  .superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      if (!(FIELD_NAMES as string[]).includes(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `unknown value name; expected one of ${FIELD_NAMES.join(', ')}` });
      }
    }
  })
  .transform(
    (map) =>
      Object.fromEntries(Object.entries(map).map(([key, paths]) => [key, typeof paths === 'string' ? [paths] : paths])) as Partial<Record<FieldName, string[]>>,
  );

const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, { message: 'expected a colour like "#1f4e79"' });

const language = LanguageCodeSchema;

/** `report.clients`: every project the statuses select, or only those with an entry in `clients`. */
export const CLIENT_SCOPES = ['all', 'listed'] as const;

/** The monthly report's day when the config names none: the 2nd, when the month's data has come in. */
export const DEFAULT_REPORT_DAY = 2;
/** The reviews a schedule can run after a period ends. */
export const REVIEW_KINDS = ['quarter', 'year'] as const;
export type ReviewKind = (typeof REVIEW_KINDS)[number];
const REPORT_DAY_FIX = 'expected a day of the month from 1 to 28 (every month has it), e.g. 2 (the default) or 4 when the data lags more';
const REVIEWS_FIX = 'expected a list of "quarter" and "year", e.g. ["quarter"] or ["quarter", "year"]; [] (the default) runs none';

/** One on/off switch per report section, each on by default; a scan section (src/sections) as it declares. */
const sectionSwitches = z
  .strictObject({
    ...(Object.fromEntries(REPORT_SECTIONS.map((section) => [section, z.boolean().default(true)])) as Record<ReportSection, z.ZodDefault<z.ZodBoolean>>),
    ...(Object.fromEntries(SECTIONS.map((section) => [section.name, z.boolean()])) as Record<string, z.ZodBoolean>),
  })
  .partial();

/** "reports@agency.example" or "Agency Name <reports@agency.example>". */
export const MAILBOX_PATTERN = /^(?:[^<>\r\n]*<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+)$/;
const mailbox = z.string().trim().regex(MAILBOX_PATTERN, { message: 'expected an address like "reports@agency.example" or "Agency <reports@agency.example>"' });
const address = z.email({ message: 'expected an email address like "name@client.example"' });

export const ClientEmail = z.strictObject({
  to: z.array(address).default([]),
  cc: z.array(address).default([]),
  bcc: z.array(address).default([]),
  /** Replaces the subject from the locale file; {client}, {period}, {ofPeriod} and {agency} are filled in. */
  subject: z.string().min(1).max(200).optional(),
  /** The client's contact, as the mail greets them ("Anne"); without it the mail says "Hello,". */
  name: z.string().min(1).max(100).optional(),
});
export type ClientEmail = z.infer<typeof ClientEmail>;

/** Names `listen.fields` may map to a dot path of a webhook delivery's payload. */
export const EVENT_FIELD_NAMES = ['id', 'kind', 'projectId', 'timestamp', 'geo.before', 'geo.after', 'seo.before', 'seo.after'] as const;
export type EventFieldName = (typeof EVENT_FIELD_NAMES)[number];
export type EventFieldMap = Partial<Record<EventFieldName, string>>;

/** A target agreed with a client: `{ "metric": "geo", "target": 70, "by": "2027-03" }`. */
const goal = z
  .strictObject({
    metric: z.string().superRefine((text, ctx) => {
      const problem = goalMetricProblem(text);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
    }),
    target: z.number({ message: 'expected a number, e.g. 70' }),
    by: z.string({ message: 'expected a month like "2027-03"' }).regex(PERIOD_PATTERN, { message: 'expected a month like "2027-03"' }).transform(toMonth),
    label: z.string().trim().min(1).max(200).optional(),
    /** `up`: higher is better; `down`: lower is better. Unset: `down` for `keyword:` and `cwv:` goals, else `up`. */
    direction: z.enum(GOAL_DIRECTIONS).optional(),
  })
  // The direction each goal reads in, written out: what the config says is what the report evaluates.
  .transform((g) => ({ ...g, direction: goalDirection(g) }));
const goals = z.array(goal).max(30, { message: 'at most 30 goals' });
export type GoalConfig = z.infer<typeof goal>;

/** A competitor the agency names for a client: "rival.example", or names merged as one, "Rival Ltd = rival.example". */
const competitorEntry = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .superRefine((text, ctx) => {
    if (text.split('=').some((part) => part.trim() === '')) {
      ctx.addIssue({ code: 'custom', message: 'expected a name or domain, or names merged with " = " like "Rival Ltd = rival.example"' });
    }
  });

export const ClientOverride = z.strictObject({
  /** Name shown on the report instead of the project's name. */
  displayName: z.string().min(1).max(200).optional(),
  language: language.optional(),
  /** A short note from the account manager, shown above the summary. */
  note: z.string().max(2000).optional(),
  /** The account manager who signs this client's mail ("Julie Moreau"), above the agency's name. */
  accountManager: z.string().min(1).max(100).optional(),
  sections: sectionSwitches.optional(),
  /** Who receives this client's report by email. */
  email: ClientEmail.optional(),
  /** Targets agreed with this client; replaces `report.goals` for it. */
  goals: goals.optional(),
  /** The agency's work on the client's timeline, and the account manager's note of a month (also from annotations/<id>.csv). */
  annotations: z.array(AnnotationEntry).max(500, { message: 'at most 500 annotations' }).optional(),
  /** The client's competitors in AI answers, added to those the service names; "Rival Ltd = rival.example" merges names. */
  competitors: z.array(competitorEntry).max(50, { message: 'at most 50 competitors' }).optional(),
  /** The client's other domains (a shop, a second brand): sources of its own in AI answers, like its site's domain. */
  ownDomains: z.array(z.string().trim().min(3).max(253)).max(20, { message: 'at most 20 domains' }).optional(),
});
export type ClientOverride = z.infer<typeof ClientOverride>;

/** Why `value` is not a browser's DevTools WebSocket URL, or null when it is one. */
export function browserEndpointProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') return `must start with ws:// or wss:// (got ${url.protocol}//)`;
  return null;
}

const browserEndpoint = z.string().superRefine((value, ctx) => {
  const problem = browserEndpointProblem(value);
  if (problem !== null) {
    ctx.addIssue({ code: 'custom', message: `${problem}; expected the browser's DevTools WebSocket URL, ws://host:port/devtools/browser/<id>` });
    return;
  }
  const url = new URL(value);
  // Browser pools take their token in the URL: a secret, so it stays out of the file.
  if (url.username !== '' || url.password !== '' || url.search !== '') {
    ctx.addIssue({
      code: 'custom',
      message: 'carries credentials or a query (where browser pools put their token); set it in GEO_REPORTS_BROWSER_WS_ENDPOINT instead',
    });
  }
});

/** "https://reports.agency.example": where the site of client pages is served; a path prefix is kept. */
const siteBaseUrl = z
  .url({ protocol: /^https?$/, message: 'expected the address the site is served at, like "https://reports.your-agency.example"' })
  .superRefine((value, ctx) => {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
      ctx.addIssue({ code: 'custom', message: 'must be a plain address: no login, query or #fragment (every client link is made from it)' });
    }
  });

/** `site`: the folder `publish` writes, the address it is served at, and how many months each client page keeps. */
const siteSchema = z
  .strictObject({
    /** Default: <output.dir>/site. Relative to the config file, like every path of the config. */
    dir: z.string().min(1).optional(),
    baseUrl: siteBaseUrl.optional(),
    /** Months each client page lists; older months are removed from the site at the next publish. */
    keepMonths: z.number().int().min(1).max(120).default(13),
  })
  .prefault({});

export const ConfigSchema = z
  .strictObject({
    agency: z
      .strictObject({
        name: z.string().min(1).max(120).default('Your Agency'),
        /** Path to a PNG, JPEG or SVG file, relative to the config file. */
        logo: z.string().min(1).optional(),
        colors: z
          .strictObject({
            primary: hexColor.default('#1f3a5f'),
            accent: hexColor.default('#2a9d8f'),
            text: hexColor.default('#1d2433'),
            muted: hexColor.default('#5b6576'),
            background: hexColor.default('#ffffff'),
          })
          .prefault({}),
        font: z.enum(['Inter', 'system']).default('Inter'),
        /**
         * The line at the foot of every PDF page and mail: one text, or one per language ({ "en": …, "fr": … }) so that
         * each client reads it in its report's language; empty, or no text for that language: the agency, the client
         * and the month.
         */
        footer: z.union([z.string().max(300), z.record(LanguageCodeSchema, z.string().max(300))]).default(''),
        contact: z
          .strictObject({
            email: z.email().optional(),
            phone: z.string().max(40).optional(),
            website: z.string().max(200).optional(),
          })
          .default({}),
      })
      .prefault({}),
    api: z
      .strictObject({
        /** Overridden by --base-url and AGENCY_API_BASE_URL. */
        baseUrl: z.url().optional(),
        timeoutMs: z.number().int().min(1000).max(600_000).default(60_000),
        maxRetries: z.number().int().min(0).max(10).default(DEFAULT_RETRY.maxRetries),
        /** Where this account's API puts values the spec leaves "not shown"; see docs/api-assumptions.md. */
        fields: fieldMap.default({}),
      })
      .prefault({}),
    report: z
      .strictObject({
        /**
         * The agency's language (the index, held reasons). Given, it is also the language of every client the config
         * pins none for; absent, such a client gets its project's language from the service, else English.
         */
        language: language.optional(),
        /**
         * Whether a client the config pins no language for (clients."<id>".language) gets the language the service
         * gives its project, when it is one we write ("fr", "fr-FR"). Absent: yes unless report.language is given;
         * true: the project's language even over report.language (which stays the default); false: never.
         */
        followProjectLanguage: z.boolean().optional(),
        sections: sectionSwitches.default({}),
        /** Project statuses the monthly run reports on. */
        statuses: z.array(z.enum(PROJECT_STATUSES)).min(1).default(['active']),
        /**
         * Which of those projects are the agency's clients: "all" (every project the statuses select) or "listed"
         * (only those with an entry in `clients`). run, report, send, publish, export and schedule follow it; --all
         * overrides it for one command.
         */
        clients: z.enum(CLIENT_SCOPES).default('all'),
        /** Pre-send check: sections whose absence holds a report (a scan section too; unlisted, one left out does not). */
        requiredSections: z.array(z.enum([...REPORT_SECTIONS, ...SECTIONS.map((s) => s.name)])).default(['scores', 'recommendations']),
        /** Pre-send check: a GEO score drop larger than this (points) holds the report. */
        maxScoreDrop: z.number().min(0).max(100).default(20),
        /** Concurrent projects; default: sized to the machine. */
        concurrency: z.number().int().min(1).max(64).optional(),
        /** Restart Chromium after this many reports. */
        browserRestartEvery: z.number().int().min(1).default(100),
        /** Hard timeout to load and print one report, in ms. */
        printTimeoutMs: z.number().int().min(1000).default(60_000),
        /** Longest wait for a report the API is still processing, in ms. */
        reportWaitMs: z.number().int().min(0).default(120_000),
        /** The agency's template folder, relative to the config file: its files replace the built-in ones of the same name. */
        templates: z.string().min(1).optional(),
        /**
         * The agency's translations of the service's own text, relative to the config file: a folder of <language>.json
         * files, each mapping a recommendation's title or description as the service writes it to the agency's words.
         */
        translations: z.string().min(1).optional(),
        /** Goals of every client that has none of its own. */
        goals: goals.default([]),
        /**
         * The day of the month the monthly report runs on (`schedule` and the workflows), for the month before: the 2nd
         * by default, as the service's data of a month's last days comes in late; 1 to 28, a day every month has.
         */
        day: z
          .number({ message: REPORT_DAY_FIX })
          .int({ message: REPORT_DAY_FIX })
          .min(1, { message: REPORT_DAY_FIX })
          .max(28, { message: REPORT_DAY_FIX })
          .default(DEFAULT_REPORT_DAY),
        /** The reviews the schedule runs after the month's report once a quarter or a year has ended: none by default. */
        reviews: z
          .array(z.enum(REVIEW_KINDS, { message: REVIEWS_FIX }), { message: REVIEWS_FIX })
          .refine((kinds) => new Set(kinds).size === kinds.length, { message: `each kind once: ${REVIEWS_FIX}` })
          .default([]),
        pdf: z
          .strictObject({
            /**
             * A contents page after the cover (each section and the page it starts on) when the PDF prints to at least
             * this many pages, its contents page counted; false: never. A report with one is printed twice.
             */
            contentsFromPages: z.union([z.number().int().min(1).max(1000), z.literal(false)]).default(6),
            /**
             * The name of the environment variable holding the password each PDF is encrypted with (AES-256, by
             * qpdf); never the password itself. Absent: the PDFs open without one.
             */
            encryptWithEnv: z
              .string()
              .regex(/^[A-Z_][A-Z0-9_]*$/, { message: 'the name of an environment variable (e.g. GEO_REPORTS_PDF_PASSWORD), not the password' })
              .optional(),
          })
          .prefault({}),
      })
      // The language rule resolved once: the agency's language (English when absent), and whether the project's decides.
      .transform(({ language: given, followProjectLanguage, ...rest }) => ({
        ...rest,
        language: given ?? FALLBACK_LANGUAGE,
        followProjectLanguage: followProjectLanguage ?? given === undefined,
      }))
      .prefault({}),
    render: z
      .strictObject({
        /** Print on this remote browser (DevTools WebSocket URL) instead of starting a local Chromium. */
        browserWSEndpoint: browserEndpoint.optional(),
      })
      .prefault({}),
    /** Per-client overrides, keyed by project id. */
    clients: z.record(z.string().regex(/^\d+$/, { message: 'client keys are project ids' }), ClientOverride).default({}),
    schedule: z
      .strictObject({
        /** node-cron expression of the monthly run; default 06:00 on report.day (monthlyCron). */
        cron: z.string().optional(),
        timezone: z.string().default('UTC'),
        /** After a run stopped by the quota, try again on the following days at this time. */
        resumeCron: z.string().default('0 6 * * *'),
      })
      .prefault({}),
    output: z.strictObject({ dir: z.string().min(1).default('output') }).prefault({}),
    /** The static site of client pages that `geo-reports publish` writes (see siteSchema). */
    site: siteSchema,
    /** `geo-reports listen`: the webhook receiver. Its secret comes from GEO_REPORTS_WEBHOOK_SECRET only. */
    listen: z
      .strictObject({
        /** A delivery whose timestamp is further than this from now, either way, is refused. */
        toleranceSeconds: z.number().int().min(1).max(86_400).default(300),
        /** Value name → dot path in the payload, for names the reader does not guess. */
        fields: z.partialRecord(z.enum(EVENT_FIELD_NAMES, { message: `expected one of ${EVENT_FIELD_NAMES.join(', ')}` }), fieldPath).default({}),
      })
      .prefault({}),
    /** What the receiver alerts the agency about, and where. The chat URL comes from GEO_REPORTS_ALERT_WEBHOOK_URL only. */
    alerts: z
      .strictObject({
        /** Points of GEO or SEO a score must lose to alert. */
        minDrop: z.number().min(0).max(100).default(5),
        /** Per project and kind, no second alert within this many minutes (at most a week). */
        cooldownMinutes: z.number().int().min(0).max(10_080).default(60),
        email: z.strictObject({ to: z.array(address).default([]) }).prefault({}),
      })
      .prefault({}),
    delivery: z
      .strictObject({
        email: z
          .strictObject({
            /** Required to send. A bare address gets the agency name as its display name. */
            from: mailbox.optional(),
            /** Where client replies go; default: agency.contact.email. */
            replyTo: mailbox.optional(),
            /** The agency's copy of every message (envelope only, never shown to the client). */
            bcc: z.array(address).default([]),
            /** `schedule` sends the period's reports after its run. */
            auto: z.boolean().default(false),
            /** Longest one message may take on the wire, in ms. */
            messageTimeoutMs: z.number().int().min(1000).max(600_000).default(120_000),
            /** The client's page of the published site (site.baseUrl) in the message. */
            link: z.boolean().default(false),
            /** The PDF attached; false sends the link alone (needs site.baseUrl). */
            attach: z.boolean().default(true),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .superRefine((config, ctx) => {
    // "listed" with no client listed would select nothing, every month, without a word.
    if (config.report.clients === 'listed' && Object.keys(config.clients).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['report', 'clients'],
        message: '"listed" reports only the projects with an entry in clients, and clients lists none: add them ("<project id>": {}), or use "all"',
      });
  })
  .superRefine((config, ctx) => {
    // A link in the mail is made from the site's address: without it there is no link to give.
    if (config.site.baseUrl !== undefined) return;
    const email = config.delivery.email;
    if (email.link)
      ctx.addIssue({ code: 'custom', path: ['delivery', 'email', 'link'], message: 'needs site.baseUrl, the address the client pages are served at' });
    if (!email.attach)
      ctx.addIssue({
        code: 'custom',
        path: ['delivery', 'email', 'attach'],
        message: 'false sends the link alone, which needs site.baseUrl, the address the client pages are served at',
      });
  });

export type Config = z.infer<typeof ConfigSchema>;
export type SectionSwitches = z.infer<typeof sectionSwitches>;
