// A dry run of scripts/release-check.sh, the steps of .github/workflows/release.yml that need no
// registry: the tag against the chart's appVersion, "already published" detection, and the chart
// packaged with its image pinned to a digest (real Helm, as in the workflow). The registry
// lookups are a stub command handed to the script through CHART_LOOKUP / IMAGE_LOOKUP (the
// workflow leaves them unset: `helm show chart` and `docker buildx imagetools inspect`).
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const root = new URL('../..', import.meta.url).pathname;
const chartDir = join(root, 'charts', 'wirehook');
const chartField = (name: string) => new RegExp(`^${name}: *"?([^"\\n]+?)"?$`, 'm').exec(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'))![1]!;
const appVersion = chartField('appVersion');
const chartVersion = chartField('version');

const work = mkdtempSync(join(tmpdir(), 'wirehook-release-check-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function releaseCheck(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('bash', [join(root, 'scripts/release-check.sh'), ...args], { cwd: root, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// The stand-in registry: logs each lookup's arguments, then answers like Helm and buildx do.
// A reference containing $STUB_PUBLISHED exists; $STUB_DENIED makes every lookup unanswerable.
const stub = join(work, 'registry-stub.sh');
const log = join(work, 'lookups.log');
writeFileSync(
  stub,
  `#!/usr/bin/env bash
echo "$*" >> "${log}"
if [ -n "\${STUB_DENIED:-}" ]; then echo "Error: unexpected status: 403 Forbidden: denied" >&2; exit 1; fi
if [ -n "\${STUB_PUBLISHED:-}" ] && [[ "$*" == *"$STUB_PUBLISHED"* ]]; then echo "name: wirehook"; exit 0; fi
echo "Error: failed to perform \\"FetchReference\\" on source: $1: not found" >&2; exit 1
`,
);
chmodSync(stub, 0o755);

const CHART_REF = 'oci://registry.test/acme/charts/wirehook';
const IMAGE_REF = `registry.test/acme/wirehook:${appVersion}`;
async function unpublished(env: Record<string, string>) {
  rmSync(log, { force: true });
  const ran = await releaseCheck(['unpublished', CHART_REF, chartVersion, IMAGE_REF], { CHART_LOOKUP: `${stub} chart`, IMAGE_LOOKUP: `${stub} image`, ...env });
  let lookups: string[] = [];
  try {
    lookups = readFileSync(log, 'utf8').trim().split('\n');
  } catch {
    // no lookup ran
  }
  return { ...ran, lookups };
}

describe('version: the tag is v<appVersion>', () => {
  it("passes for the chart's own tag and prints the versions for $GITHUB_ENV", async () => {
    const ran = await releaseCheck(['version', `v${appVersion}`]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(`APP_VERSION=${appVersion}\nCHART_VERSION=${chartVersion}\n`);
  });

  it('refuses any other tag with one ::error:: line naming both', async () => {
    const ran = await releaseCheck(['version', `v${appVersion}.1`]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(
      `::error::tag v${appVersion}.1 does not match charts/wirehook/Chart.yaml appVersion ${appVersion}: tag v${appVersion}, or change appVersion\n`,
    );
  });
});

describe('unpublished: neither the chart version nor the image tag is in the registry', () => {
  it('passes when both lookups answer "not found"', async () => {
    const ran = await unpublished({});
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.lookups).toEqual([`chart ${CHART_REF} --version ${chartVersion}`, `image ${IMAGE_REF}`]);
  });

  it('refuses a published chart version, before it looks at (let alone pushes) the image', async () => {
    const ran = await unpublished({ STUB_PUBLISHED: `--version ${chartVersion}` });
    expect(ran.code).toBe(1);
    expect(ran.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^::error::chart ${CHART_REF} ${chartVersion} is already published: raise the version`)),
    ]);
    expect(ran.lookups).toEqual([`chart ${CHART_REF} --version ${chartVersion}`]);
  });

  it('refuses a published image tag', async () => {
    const ran = await unpublished({ STUB_PUBLISHED: IMAGE_REF });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(new RegExp(`^::error::image ${IMAGE_REF} is already published`));
  });

  it('refuses when the registry cannot say (denied is not "not found")', async () => {
    const ran = await unpublished({ STUB_DENIED: '1' });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/^::error::could not tell whether chart .* is published \(.*\): Error: unexpected status: 403 Forbidden: denied\n$/);
  });
});

describe('package-chart: the packaged chart installs the image by its digest', () => {
  const repository = 'registry.test/acme/wirehook';
  const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

  it('renders every Wirehook container (hooks and the test pod too) as <repository>:<appVersion>@<digest>; the checkout is untouched', async () => {
    const valuesBefore = readFileSync(join(chartDir, 'values.yaml'), 'utf8');
    const ran = await releaseCheck(['package-chart', 'charts/wirehook', repository, digest, join(work, 'out')]);
    expect(ran.code, ran.stderr).toBe(0);
    const tgz = ran.stdout.trim();
    expect(tgz).toBe(join(work, 'out', `wirehook-${chartVersion}.tgz`));
    expect(readFileSync(join(chartDir, 'values.yaml'), 'utf8')).toBe(valuesBefore);

    // Rendered here again, independently of the script's own check.
    const rendered = await new Promise<string>((resolve, reject) =>
      execFile(
        'helm',
        ['template', 'r', tgz, '--set', 'secrets.existingSecret=s', '--set', 'networkPolicy.dns.lookupClusterIP=false'],
        { maxBuffer: 64 << 20 },
        (err, out, stderr) => (err ? reject(new Error(stderr)) : resolve(out)),
      ),
    );
    const images = parseAllDocuments(rendered)
      .map((d) => d.toJS() as { spec?: { containers?: { image: string }[]; template?: { spec: { containers: { image: string }[] } } } } | null)
      .flatMap((o) => o?.spec?.containers ?? o?.spec?.template?.spec.containers ?? [])
      .map((c) => c.image)
      .filter((image) => image.startsWith(repository));
    expect(images.length).toBeGreaterThan(1);
    expect(new Set(images)).toEqual(new Set([`${repository}:${appVersion}@${digest}`]));

    // The pin is the appVersion's: a user's own digest replaces it (never follows it), and a
    // user's own tag is pulled by that tag, not by our build's digest.
    const renderWith = (set: string) =>
      new Promise<string>((resolve, reject) =>
        execFile(
          'helm',
          ['template', 'r', tgz, '--set', 'secrets.existingSecret=s', '--set', 'networkPolicy.dns.lookupClusterIP=false', '--set', set],
          { maxBuffer: 64 << 20 },
          (err, out, stderr) => (err ? reject(new Error(stderr)) : resolve(out)),
        ),
      );
    const own = `sha256:${'f'.repeat(64)}`;
    const theirs = await renderWith(`image.digest=${own}`);
    expect(theirs).toContain(`${repository}:${appVersion}@${own}`);
    expect(theirs).not.toContain(digest);
    const tagged = await renderWith('image.tag=9.9.9');
    expect(tagged).toMatch(new RegExp(`image: "?${repository}:9\\.9\\.9"?\\n`));
    expect(tagged).not.toContain(digest);
    expect(await renderWith(`image.tag=${appVersion}`)).toContain(`${repository}:${appVersion}@${digest}`);
  });

  it('refuses a digest that is not sha256:<64 hex>', async () => {
    const ran = await releaseCheck(['package-chart', 'charts/wirehook', repository, 'sha256:abc', join(work, 'bad')]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe("::error::image digest 'sha256:abc' is not sha256:<64 hex digits>\n");
  });
});
