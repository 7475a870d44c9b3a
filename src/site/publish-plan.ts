// What a publish works on, read before anything is written: the period folders with a manifest, no symbolic link
// where it reads or writes, and every client to look at (a page to keep, a report to publish, a page to prune).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import type { ClientLinks, LinksRecord } from '../output/links.js';
import { insideRoot, readManifest, type Manifest, type ProjectEntry } from '../output/store.js';
import { isAnyPeriod, isMonth, type Period } from '../period.js';
import { linksInside } from './files.js';
import type { PublishEvent, PublishOptions } from './publish-options.js';

export interface PeriodReports {
  period: Period;
  dir: string;
  manifest: Manifest;
}

/** A done report of a period folder, to publish. */
export interface Fresh {
  period: Period;
  periodDir: string;
  entry: ProjectEntry;
}

export interface ClientPlan {
  id: number;
  links: ClientLinks;
  fresh: Map<Period, Fresh>;
  prune: boolean;
}

/** The period folders of `outDir` that have a manifest (months, quarters and years), by name. */
export async function readPeriods(outDir: string): Promise<PeriodReports[]> {
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(`The output folder ${outDir} does not exist.`, {
        hint: 'Give the folder the monthly run writes with --out (or output.dir in the config).',
      });
    }
    throw error;
  }
  const periods: PeriodReports[] = [];
  for (const period of names.filter(isAnyPeriod).sort()) {
    const dir = insideRoot(outDir, period);
    const manifest = await readManifest(dir).catch(() => null);
    if (manifest !== null) periods.push({ period, dir, manifest });
  }
  return periods;
}

/** Stops the publish, before anything is written, at a symbolic link in a period folder it reads or in the site. */
export async function refuseLinks(outDir: string, siteDir: string, period: Period | undefined): Promise<void> {
  const names = period !== undefined ? [period] : (await readdir(outDir).catch(() => [] as string[])).filter(isAnyPeriod);
  const links: string[] = [];
  for (const dir of [...names.sort().map((name) => join(outDir, name)), siteDir]) {
    if (links.length < 5) links.push(...(await linksInside(dir, 5 - links.length)));
  }
  if (links.length === 0) return;
  throw new ConfigError(
    `publish follows no symbolic link, and ${links.length === 1 ? 'this one is' : 'these are'} where it reads or writes: ${links.join(', ')}${links.length === 5 ? ', …' : ''}. Nothing was written.`,
    {
      hint: 'A period folder and the site are made of plain files: put the file itself in place of the link (or remove it, and run the month again), then publish again.',
    },
  );
}

/** Every client to look at: those with a page, and those with a done report to publish. */
export function planClients(
  periods: readonly PeriodReports[],
  record: LinksRecord,
  options: Pick<PublishOptions, 'outDir' | 'period' | 'prune' | 'listed'>,
  emit: (event: PublishEvent) => void,
): ClientPlan[] {
  const plans = new Map<number, ClientPlan>();
  const planOf = (id: number): ClientPlan => {
    let plan = plans.get(id);
    if (plan === undefined) {
      plan = { id, links: record.clients[String(id)] ?? { generation: 0, site: null }, fresh: new Map(), prune: false };
      plans.set(id, plan);
    }
    return plan;
  };
  for (const [id, links] of Object.entries(record.clients)) if (links.site !== null) planOf(Number(id));
  const read = options.period === undefined ? periods : periods.filter((p) => p.period === options.period);
  for (const { period, dir, manifest } of read) {
    const held: string[] = [];
    for (const entry of manifest.projects) {
      if (entry.status !== 'done' || entry.files.html === null || entry.files.pdf === null) continue;
      if (options.listed != null && !options.listed.has(entry.id)) continue;
      if (entry.held.length > 0 && !entry.released) {
        held.push(`${entry.id} ${entry.displayName ?? entry.name}`);
        continue;
      }
      planOf(entry.id).fresh.set(period, { period, periodDir: dir, entry });
    }
    if (held.length > 0) {
      emit({
        type: 'warning',
        message: `${period}: ${held.length} report${held.length === 1 ? ' is' : 's are'} held by the pre-send check and not published until released (\`geo-reports run --period ${period} --accept-held\`): ${held.slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''}.`,
      });
    }
  }
  if (options.prune) {
    // A review lists the clients of its months: the newest month says who is still in the account.
    const newest = periods.filter((p) => isMonth(p.period)).at(-1);
    if (newest === undefined) throw new ConfigError(`--prune compares the site with the newest period of ${options.outDir}, and it has none.`);
    // A shard's output, or a period still being made, lists only some of the account's clients: the others would lose
    // their page, and their address for good.
    if (newest.manifest.shard !== undefined || (newest.manifest.status !== 'complete' && newest.manifest.status !== 'held')) {
      throw new ConfigError(
        `--prune removes the pages of clients absent from the newest period, ${newest.period}, but ${newest.manifest.shard !== undefined ? `it is the output of shard ${newest.manifest.shard} alone` : `that period is not complete (${newest.manifest.status})`}: clients still in the account would lose their page and their address.`,
        {
          hint: `Publish without --prune now; prune once ${newest.period} is complete${newest.manifest.shard !== undefined ? ' and merged (`geo-reports merge`)' : ''}.`,
        },
      );
    }
    const present = new Set(newest.manifest.projects.map((entry) => entry.id));
    for (const plan of plans.values()) plan.prune = !present.has(plan.id);
  }
  return [...plans.values()].sort((a, b) => a.id - b.id);
}
