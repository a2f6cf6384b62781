// The A/B's B side (bench/scenarios/ab.ts): the embedded launcher runs Wirehook and its admin CLI
// from the checkout `root` it is given, with the environment and Node flags it is given. A
// stand-in checkout (Wirehook's folders linked to this one's, an admin CLI of its own that says
// who it is) shows which files the processes were started from.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedLauncher, LAUNCHER_ENV } from '../../bench/launchers/embedded-launcher.ts';

const repo = join(import.meta.dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'wirehook-ab-launch-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const STAND_IN_ADMIN = `process.stdout.write(JSON.stringify({ standIn: true, args: process.argv.slice(2), dataDir: process.env.DATA_DIR }));\n`;

describe('the bench launcher for an A/B’s B', () => {
  it('starts Wirehook and runs the admin CLI from the checkout given, with the environment and Node flags given', async () => {
    const checkout = join(work, 'checkout');
    mkdirSync(join(checkout, 'packages', 'admin', 'src'), { recursive: true });
    for (const entry of ['services', 'node_modules']) symlinkSync(join(repo, entry), join(checkout, entry));
    writeFileSync(join(checkout, 'packages', 'admin', 'src', 'main.ts'), STAND_IN_ADMIN);
    const dataDir = join(work, 'data');
    // The harness's own flags (./dev sets some), which A would get: B's replace them.
    const harnessFlags = process.env['WIREHOOK_NODE_FLAGS'];
    process.env['WIREHOOK_NODE_FLAGS'] = '--max-semi-space-size=9';
    const running = await embeddedLauncher
      .launch({
        dataDir,
        logFile: join(work, 'wirehook.log'),
        env: { WIREHOOK_AB_MARK: 'b-side', WIREHOOK_NODE_FLAGS: '--max-semi-space-size=7' },
        execArgv: [],
        root: checkout,
      })
      .finally(() => {
        if (harnessFlags === undefined) delete process.env['WIREHOOK_NODE_FLAGS'];
        else process.env['WIREHOOK_NODE_FLAGS'] = harnessFlags;
      });
    try {
      const pid = running.pids[0]!;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(cmdline).toContain(join(checkout, 'services/embedded/src/main.ts'));
      // B's own flags, not the harness's.
      expect(cmdline).toContain('--max-semi-space-size=7');
      expect(cmdline).not.toContain('--max-semi-space-size=9');
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('WIREHOOK_AB_MARK=b-side');
      // The checkout's admin CLI, on B's data.
      expect(await running.admin(['org', 'create'])).toEqual({ standIn: true, args: ['org', 'create'], dataDir });
    } finally {
      await running.stop();
    }
  }, 60_000);

  it('refuses a checkout whose services would load another checkout’s packages, before starting anything', () => {
    // A worktree with this repository's node_modules linked in: its services would import this one's store.
    const linked = join(work, 'linked');
    for (const dir of ['services/embedded/src', 'packages/admin/src', 'services/embedded/node_modules/@wirehook', 'node_modules/@wirehook']) {
      mkdirSync(join(linked, dir), { recursive: true });
    }
    writeFileSync(join(linked, 'services/embedded/src/main.ts'), '');
    writeFileSync(join(linked, 'packages/admin/src/main.ts'), '');
    symlinkSync(join(repo, 'packages/store'), join(linked, 'services/embedded/node_modules/@wirehook/store'));
    symlinkSync(join(repo, 'packages/core'), join(linked, 'node_modules/@wirehook/core'));
    const run = spawnSync(process.execPath, [join(repo, 'bench/main.ts'), '--smoke', '--only', 'ab', '--ab-root', linked], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`--ab-root: services/embedded/node_modules/@wirehook/store leads to ${join(repo, 'packages/store')}, not into ${linked}`);
    expect(run.stderr).not.toContain('receiver');
  });

  it.each(LAUNCHER_ENV)('refuses %s in --ab-env, which the launcher sets for each side, before starting anything', (name) => {
    const run = spawnSync(process.execPath, [join(repo, 'bench/main.ts'), '--smoke', '--only', 'ab', '--ab-env', `LOG_LEVEL=warn,${name}=1`], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`--ab-env: ${name} is the launcher's to set`);
    expect(run.stderr).not.toContain('receiver');
  });

  it.each([
    [['--only', 'ab', '--ab-env', 'LOG_LEVEL=warn', '--ab-scenario', 'backlog'], '--ab-scenario: backlog is none of e2e, fanout'],
    [['--only', 'fanout', '--ab-scenario', 'fanout'], '--ab-env, --ab-root and --ab-scenario go with --only ab'],
  ])('refuses %j before starting anything', (args, message) => {
    const run = spawnSync(process.execPath, [join(repo, 'bench/main.ts'), '--smoke', ...args], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('receiver');
  });
});
