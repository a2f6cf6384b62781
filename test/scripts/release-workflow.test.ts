// The order of .github/workflows/release.yml, which cannot run here: the whole suite before any
// push, the version checks before the image push, the image before the chart that pins its
// digest, and provenance for both. Moving a step, or dropping a `needs:`, fails this.
// Also, for every workflow: each action is pinned to a commit (a tag such as @v4 can be moved).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  steps: Step[];
}

const root = new URL('../..', import.meta.url).pathname;
const workflow = parse(readFileSync(join(root, '.github/workflows/release.yml'), 'utf8')) as { on: unknown; jobs: Record<string, Job> };
const jobs = workflow.jobs;

const needsOf = (job: Job) => (job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs]);
/** Every job `name` waits for, directly or through another. */
function upstream(name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (n: string) => {
    for (const need of needsOf(jobs[n]!)) {
      if (seen.has(need)) continue;
      seen.add(need);
      visit(need);
    }
  };
  visit(name);
  return seen;
}

const isImagePush = (s: Step) => s.uses?.startsWith('docker/build-push-action@') === true && s.with?.['push'] === true;
const isChartPush = (s: Step) => /\bhelm push\b/.test(s.run ?? '');
const pushes = (s: Step) => isImagePush(s) || isChartPush(s) || /\b(docker|crane|oras) push\b/.test(s.run ?? '');
const runs = (pattern: RegExp) => (s: Step) => pattern.test(s.run ?? '');

/** The index of the one step of `job` matching `is`; throws when there is none or more than one. */
function indexOf(job: Job, is: (s: Step) => boolean, what: string): number {
  const found = job.steps.flatMap((s, i) => (is(s) ? [i] : []));
  if (found.length !== 1) throw new Error(`${what}: ${found.length} steps, not exactly one`);
  return found[0]!;
}

const testJobs = Object.entries(jobs).filter(([, job]) => job.steps.some(runs(/^\.\/dev test$/m)));
const pushingJobs = Object.entries(jobs).filter(([, job]) => job.steps.some(pushes));

describe('release.yml', () => {
  it('runs on a v* tag only', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*'] } });
  });

  it('runs the whole suite (./dev test, as ci.yml does) in a job that pushes nothing', () => {
    expect(testJobs.map(([name]) => name)).toHaveLength(1);
    expect(testJobs[0]![1].steps.filter(pushes)).toEqual([]);
  });

  it('every job that pushes waits for the suite', () => {
    expect(pushingJobs.length).toBeGreaterThan(0);
    for (const [name] of pushingJobs) expect([...upstream(name)], name).toContain(testJobs[0]![0]);
  });

  describe('in the pushing job', () => {
    const job = pushingJobs[0]![1];
    // Found in each test, so a missing step fails the tests that need it, not the file.
    const find = () => ({
      version: indexOf(job, runs(/release-check\.sh version "\$GITHUB_REF_NAME"/), 'the tag against appVersion'),
      unpublished: indexOf(job, runs(/release-check\.sh unpublished /), 'the registry lookups'),
      imagePush: indexOf(job, isImagePush, 'the image push'),
      imageProvenance: indexOf(
        job,
        (s) => s.uses?.startsWith('actions/attest-build-provenance@') === true && s.with?.['subject-name'] === `\${{ env.IMAGE }}`,
        'the image provenance',
      ),
      packageChart: indexOf(job, runs(/release-check\.sh package-chart /), 'the chart packaged with the digest'),
      chartPush: indexOf(job, isChartPush, 'the chart push'),
    });

    it('is the only job that pushes', () => {
      expect(pushingJobs).toHaveLength(1);
    });

    it('checks the tag, then that neither version is published, before anything is pushed', () => {
      const step = find();
      const firstPush = job.steps.findIndex(pushes);
      expect(step.version).toBeLessThan(step.unpublished);
      expect(step.unpublished).toBeLessThan(firstPush);
      expect(firstPush).toBe(step.imagePush);
    });

    it('pushes the image under the one tag it checked, with provenance and an SBOM, then pins the chart to its digest and pushes it', () => {
      const step = find();
      const build = job.steps[step.imagePush]!;
      expect(build.with).toMatchObject({ tags: `\${{ env.IMAGE }}:\${{ env.APP_VERSION }}`, provenance: 'mode=max', sbom: true });
      expect(job.steps[step.unpublished]!.run).toContain('"$IMAGE:$APP_VERSION"');
      expect(job.steps[step.imageProvenance]!.with?.['subject-digest']).toBe(`\${{ steps.${build.id}.outputs.digest }}`);
      expect(job.steps[step.packageChart]!.env?.['DIGEST']).toBe(`\${{ steps.${build.id}.outputs.digest }}`);
      expect(step.imagePush).toBeLessThan(step.imageProvenance);
      expect(step.imagePush).toBeLessThan(step.packageChart);
      expect(step.packageChart).toBeLessThan(step.chartPush);
      // The chart pushed is the one packaged with the digest, not charts/wirehook itself.
      expect(job.steps[step.chartPush]!.run).toMatch(/helm push "\$CHART_TGZ"/);
      // A command inside an echo's $(…) fails silently (echo succeeds under bash -e): none does.
      for (const s of job.steps) expect(s.run ?? '', s.name).not.toMatch(/echo [^\n]*\$\([^)]*release-check/);
      expect(job.steps[step.packageChart]!.run).toMatch(/^\s*tgz=\$\(scripts\/release-check\.sh package-chart /m);
    });

    it("records the chart's digest and attests it", () => {
      const step = find();
      const push = job.steps[step.chartPush]!;
      const attest = job.steps.findIndex(
        (s) => s.uses?.startsWith('actions/attest-build-provenance@') && s.with?.['subject-digest'] === `\${{ steps.${push.id}.outputs.digest }}`,
      );
      expect(attest).toBeGreaterThan(step.chartPush);
    });
  });
});

// Every `uses:` of every workflow names its action's commit, the tag it was taken from in a
// comment: `owner/name@<40 hex> # v4.4.0`. Local actions (./…) are the repository's own.
describe('every workflow', () => {
  const dir = join(root, '.github/workflows');
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));

  it.each(files)('%s pins each action to a commit SHA, its version in a comment', (file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const lines = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(.*?)\s*$/gm)].map((m) => m[1]!);
    // The YAML's own values, so a `uses:` the pattern above misses (or reads wrong) cannot pass unchecked.
    const parsed = parse(text) as { jobs: Record<string, { uses?: string; steps?: Step[] }> };
    const declared = Object.values(parsed.jobs).flatMap((job) => [job.uses, ...(job.steps ?? []).map((s) => s.uses)].filter((u) => u !== undefined));
    expect(lines.map((u) => u.replace(/\s+#.*$/, ''))).toEqual(declared);
    for (const uses of lines.filter((u) => !u.startsWith('./'))) {
      expect(uses, file).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    }
  });
});
