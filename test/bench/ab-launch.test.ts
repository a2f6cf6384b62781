// The A/B's B side (bench/scenarios/ab.ts): the embedded launcher runs Wirehook and its admin CLI
// from the checkout `root` it is given, with the environment it is given. A stand-in checkout
// (its top-level folders linked to this one's) shows which file the process was started from.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedLauncher } from '../../bench/launchers/embedded-launcher.ts';

const repo = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'wirehook-ab-launch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the bench launcher for an A/B’s B', () => {
  it('starts Wirehook and runs the admin CLI from the checkout given, with the environment given', async () => {
    const checkout = join(work, 'checkout');
    mkdirSync(checkout);
    for (const entry of ['services', 'packages', 'node_modules', 'package.json', 'tsconfig.json']) symlinkSync(join(repo, entry), join(checkout, entry));
    const running = await embeddedLauncher.launch({
      dataDir: join(work, 'data'),
      logFile: join(work, 'wirehook.log'),
      env: { WIREHOOK_AB_MARK: 'b-side' },
      execArgv: [],
      root: `${checkout}/`,
    });
    try {
      const pid = running.pids[0]!;
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(`${checkout}/services/embedded/src/main.ts`);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('WIREHOOK_AB_MARK=b-side');
      // The admin CLI on that Wirehook's data: the org it makes there is found there again.
      const org = await running.admin(['org', 'create', '--name', 'ab', '--plan', 'free']);
      expect(org['id']).toMatch(/^org_/);
      expect(await running.admin(['org', 'set-plan', '--org', String(org['id']), '--plan', 'business'])).toEqual({
        id: org['id'],
        name: 'ab',
        plan: 'business',
      });
    } finally {
      await running.stop();
    }
  }, 60_000);
});
