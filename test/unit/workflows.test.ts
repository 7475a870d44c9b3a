// Every GitHub Actions workflow of the repository, read by GitHub's own parser: no error, no expression
// interpolated into a shell script, actions on their Node 24 majors, Node 22 or 24 LTS for the tool.
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { convertWorkflowTemplate, isString, NoOperationTraceWriter, parseWorkflow, type WorkflowTemplate } from '@actions/workflow-parser';
import { describe, expect, it } from 'vitest';

const WORKFLOWS = resolve(import.meta.dirname, '../../.github/workflows');

/** The first majors of GitHub's own actions that run on Node 24 (the Node 20 runtime is deprecated). */
const MIN_MAJOR: Record<string, number> = {
  'actions/checkout': 5,
  'actions/setup-node': 5,
  'actions/cache': 5,
  'actions/cache/restore': 5,
  'actions/cache/save': 5,
  'actions/upload-artifact': 6,
  'actions/download-artifact': 7,
};

interface Parsed {
  file: string;
  text: string;
  errors: string[];
  template: WorkflowTemplate;
}

async function parseAll(): Promise<Parsed[]> {
  const files = (await readdir(WORKFLOWS)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const parsed: Parsed[] = [];
  for (const file of files) {
    const text = await readFile(join(WORKFLOWS, file), 'utf8');
    const result = parseWorkflow({ name: file, content: text }, new NoOperationTraceWriter());
    const errors = result.context.errors.getErrors().map((e) => e.message);
    const template = await convertWorkflowTemplate(result.context, result.value as NonNullable<typeof result.value>);
    parsed.push({ file, text, errors: [...errors, ...(template.errors ?? []).map((e) => e.Message)], template });
  }
  return parsed;
}

const workflows = await parseAll();

function steps(workflow: Parsed) {
  return workflow.template.jobs.flatMap((job) => ('steps' in job ? job.steps.map((step) => ({ job: job.id.value, step })) : []));
}

describe('GitHub Actions workflows', () => {
  it('has the monthly workflow and its matrix variant', () => {
    expect(workflows.map((w) => w.file)).toEqual(expect.arrayContaining(['monthly-reports.yml', 'monthly-reports-sharded.yml']));
  });

  it.each(workflows.map((w) => [w.file, w] as const))('%s parses without errors', (_file, workflow) => {
    expect(workflow.errors).toEqual([]);
    expect(workflow.template.jobs.length).toBeGreaterThan(0);
  });

  it.each(workflows.map((w) => [w.file, w] as const))('%s interpolates no expression into a shell script', (_file, workflow) => {
    const runs = steps(workflow).filter(({ step }) => 'run' in step);
    expect(runs.length).toBeGreaterThan(0);
    for (const { job, step } of runs) {
      const run = (step as { run: Parameters<typeof isString>[0] }).run;
      // A `run:` holding `${{ }}` is an expression token, not a plain string.
      expect(isString(run), `${job}: ${String(step.name ?? step.id)}`).toBe(true);
      expect((run as unknown as { value: string }).value).not.toContain('${{');
    }
  });

  it.each(workflows.map((w) => [w.file, w] as const))('%s uses current action majors and Node 22 or 24', (_file, workflow) => {
    const uses = steps(workflow).flatMap(({ step }) => ('uses' in step ? [step.uses.value] : []));
    expect(uses.length).toBeGreaterThan(0);
    for (const ref of uses) {
      const [name, version] = ref.split('@') as [string, string | undefined];
      const minimum = MIN_MAJOR[name];
      if (minimum === undefined) continue;
      // A commit pin says its major in the comment after it: `@<sha> # v5`.
      const escaped = ref.replace(/[/.]/g, '\\$&');
      const major = /^[0-9a-f]{40}$/.test(version ?? '') ? new RegExp(`${escaped} # v(\\d+)`).exec(workflow.text)?.[1] : /^v(\d+)/.exec(version ?? '')?.[1];
      expect(Number(major), ref).toBeGreaterThanOrEqual(minimum);
    }
    const nodeVersions = [...workflow.text.matchAll(/node-version:\s*['"]?(\S+?)['"]?\s*$/gm)].map((m) => m[1]);
    expect(nodeVersions.length).toBeGreaterThan(0);
    for (const version of nodeVersions) expect(['22', '24']).toContain(version);
  });

  it('runs the test suite on Linux, macOS and Windows', () => {
    const ci = workflows.find((w) => w.file === 'ci.yml') as Parsed;
    expect(ci).toBeDefined();
    expect(ci.text).toMatch(/os: \[ubuntu-[\d.]+, macos-[\d.]+, windows-[\d.]+\]/);
    expect(ci.text).toContain('runs-on: ${{ matrix.os }}');
    expect(ci.text).toContain('fail-fast: false');
    expect(steps(ci).some(({ step }) => 'run' in step && (step.run as unknown as { value: string }).value.trim() === 'npm test')).toBe(true);
  });

  it.each(workflows.map((w) => [w.file, w] as const))(
    '%s runs the product only through `npx geo-reports`: no tsx, no script of the repository',
    (_file, workflow) => {
      const scripts = steps(workflow).flatMap(({ step }) => ('run' in step ? [(step.run as unknown as { value: string }).value] : []));
      const history = scripts.filter((script) => /\bgeo-reports history (status|restore|save) /.test(script));
      // The monthly workflows keep the history; the test-suite workflow has none.
      if (workflow.file.startsWith('monthly-')) expect(history.length).toBeGreaterThanOrEqual(3);
      for (const script of scripts) {
        // The installer of the machine (Debian packages, npm ci) is the one script a workflow may run, as CI does.
        expect(script.replace(/^bash scripts\/install\.sh$/m, '')).not.toMatch(/\btsx\b|scripts\//);
        for (const call of script.match(/\bgeo-reports\b[^\n]*/g) ?? []) expect(script).toContain(`npx ${call}`);
      }
    },
  );

  it.each(['monthly-reports.yml', 'monthly-reports-sharded.yml'])(
    '%s publishes the client pages when GEO_REPORTS_PUBLISH is true, before any mail (which reads the same site) and before the history is saved',
    (file) => {
      const workflow = workflows.find((w) => w.file === file) as Parsed;
      const job = workflow.template.jobs.find(
        (j) => 'steps' in j && j.steps.some((step) => 'run' in step && /geo-reports publish /.test((step.run as unknown as { value: string }).value)),
      );
      expect(job, 'a job runs geo-reports publish').toBeDefined();
      const list = (job as { steps: Array<{ name?: unknown; if?: unknown; run?: unknown; env?: unknown }> }).steps.map((step) => ({
        run: step.run === undefined ? '' : (step.run as { value: string }).value,
        condition: JSON.stringify(step.if ?? null),
        env: JSON.stringify(step.env ?? null),
      }));
      const at = (pattern: RegExp): number => list.findIndex((step) => pattern.test(step.run));
      const restore = at(
        /npx geo-reports history site-restore --storage "\$GITHUB_SERVER_URL\/\$GITHUB_REPOSITORY\.git" --branch "\$SITE_BRANCH" --site site$/,
      );
      const publish = at(/npx geo-reports publish --out output --site site --json > publish\.log/);
      const save = at(/npx geo-reports history site-save --storage "\$GITHUB_SERVER_URL\/\$GITHUB_REPOSITORY\.git" --branch "\$SITE_BRANCH" --site site$/);
      const send = at(/npx geo-reports send /);
      const history = at(/npx geo-reports history save /);
      expect([restore, publish, save].every((index) => index >= 0)).toBe(true);
      expect(restore < publish && publish < save && save < send && save < history).toBe(true);
      expect(list[restore]?.condition).toContain("vars.GEO_REPORTS_PUBLISH == 'true'");
      expect(list[publish]?.condition).toContain("steps.site.outcome == 'success'");
      expect(list[save]?.condition).toContain("steps.publish.outcome == 'success'");
      expect(list[publish]?.env).toContain('secrets.GEO_REPORTS_LINK_SECRET');
      // The mail's link (delivery.email.link) is read from the same site, with the same secret.
      expect(list[send]?.run).toMatch(/ --site site /);
      expect(list[send]?.env).toContain('secrets.GEO_REPORTS_LINK_SECRET');
      // The addresses stay in publish.log: the job's log prints counts only, and no artifact takes the file.
      expect(workflow.text).not.toMatch(/path:[^\n]*publish\.log|^\s+publish\.log$/m);
      expect(workflow.text).toMatch(/SITE_BRANCH: reports-site/);
    },
  );

  it("monthly-reports.yml exports the period's values as CSV and Excel after the run, as an artifact of their own", () => {
    const workflow = workflows.find((w) => w.file === 'monthly-reports.yml') as Parsed;
    const list = steps(workflow)
      .filter(({ job }) => job === 'reports')
      .map(({ step }) => ({ run: 'run' in step ? (step.run as unknown as { value: string }).value : '' }));
    const at = (pattern: RegExp): number => list.findIndex((step) => pattern.test(step.run));
    const run = at(/npx geo-reports "\$\{args\[@\]\}" > run\.log/);
    const send = at(/npx geo-reports send /);
    const exported = at(/npx geo-reports export /);
    expect(exported).toBeGreaterThan(Math.max(run, send));
    const script = list[exported]?.run ?? '';
    for (const format of ['csv', 'xlsx']) {
      expect(script).toContain(`npx geo-reports export --out output --period "$PERIOD" --format ${format} --file "export/geo-reports-$PERIOD.${format}"`);
    }
    const upload =
      /- name: Upload the export\n\s+if: \$\{\{ !cancelled\(\) && steps\.export\.outcome == 'success' \}\}\n\s+uses: actions\/upload-artifact@[0-9a-f]{40} # v\d+\n\s+with:\n\s+name: export-\$\{\{ needs\.period\.outputs\.value \}\}\n\s+path: export\//.exec(
        workflow.text,
      );
    expect(upload).not.toBeNull();
    expect(upload?.index).toBeGreaterThan(workflow.text.indexOf('npx geo-reports export '));
  });

  it('merges the shards of the matrix variant: one artifact per shard, downloaded by pattern into one folder', () => {
    const sharded = workflows.find((w) => w.file === 'monthly-reports-sharded.yml') as Parsed;
    const jobs = sharded.template.jobs.map((j) => j.id.value);
    // The period decided first by a job of its own, so that one concurrency group per period holds every job that writes it.
    expect(jobs).toEqual(['period', 'plan', 'shard', 'merge', 'reviews']);
    expect(sharded.text).toMatch(
      /uses: actions\/download-artifact@[0-9a-f]{40} # v\d+\n\s+with:\n\s+pattern: reports-shard-\*\n\s+path: shards\n\s+merge-multiple: true/,
    );
    expect(sharded.text).toContain("secrets[format('AGENCY_API_TOKEN_{0}', matrix.shard)]");
    expect(sharded.text).toContain('--shard "$SHARD"');
    expect(sharded.text).toContain('npx geo-reports merge --period "$PERIOD" --out output "${sources[@]}"');
  });

  it.each([
    ['monthly-reports.yml', 'reports'],
    ['monthly-reports-sharded.yml', 'merge'],
  ])("%s runs every day and takes the day's runs from `geo-reports schedule --plan`, the reviews after the month's job", (file, monthJob) => {
    const workflow = workflows.find((w) => w.file === file) as Parsed;
    // Every day at 06:00 UTC: report.day decides the month's day, not the workflow.
    expect(workflow.text).toMatch(/schedule:\n(?:\s+#[^\n]*\n)*\s+- cron: '0 6 \* \* \*'\n/);
    const script = (job: string, name: string): string => {
      const found = steps(workflow).find(({ job: j, step }) => j === job && String(step.name) === name);
      return found === undefined ? '' : (found.step as unknown as { run: { value: string } }).run.value;
    };
    const period = script('period', 'Period');
    expect(period).toContain('plan=$(npx geo-reports schedule --plan --date "$(date -u +%F)" --json)');
    expect(period).toContain(`period=$(jq -r '.runs[0].period' <<< "$plan")`);
    expect(period).toContain('echo "reviews=$reviews" >> "$GITHUB_OUTPUT"');
    const reviews = workflow.template.jobs.find((j) => j.id.value === 'reviews') as unknown as { needs: Array<{ value: string }>; if: { expr: string } };
    expect(reviews.needs.map((n) => n.value)).toEqual(['period', monthJob]);
    expect(reviews.if.expr).toContain(`needs.${monthJob}.result == 'success'`);
    expect(reviews.if.expr).toContain("needs.period.outputs.reviews != '[]'");
    // A review waits for its month to be complete, then is made by `run --period <review>`, then saved.
    const due = script('reviews', 'Reviews due');
    expect(due).toMatch(/history status [^\n]*--period "\$MONTH" --json/);
    expect(due).toContain('complete | held) ;;');
    const make = script('reviews', 'Make the reviews');
    expect(make).toContain('for review in $REVIEWS; do');
    expect(make).toContain('npx geo-reports run --period "$review" --out output --json > "review-$review.log"');
    expect(script('reviews', 'Save the reviews to the history branch')).toMatch(/^npx geo-reports history save /);
  });

  it.each(['monthly-reports.yml', 'monthly-reports-sharded.yml'])('%s pins every action by commit in a job that can write', (file) => {
    const workflow = workflows.find((w) => w.file === file) as Parsed;
    // Every job of these workflows either writes the history or hands its output to one that does.
    expect(workflow.text).toMatch(/contents: write/);
    for (const job of workflow.template.jobs) {
      if (!('steps' in job)) continue;
      for (const step of job.steps) if ('uses' in step) expect(step.uses.value, job.id.value).toMatch(/@[0-9a-f]{40}$/);
    }
  });

  it.each(['monthly-reports.yml', 'monthly-reports-sharded.yml'])('%s never runs a step on always(): a cancelled run stops', (file) => {
    const workflow = workflows.find((w) => w.file === file) as Parsed;
    expect(workflow.text).not.toContain('always()');
  });
});
