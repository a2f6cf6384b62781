// The cluster launcher's profiles, named by service: with --profile every service writes into one
// folder, and Node names a profile by pid alone.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nameProfiles } from '../../bench/launchers/cluster-launcher.ts';

const dir = mkdtempSync(join(tmpdir(), 'cluster-profiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nameProfiles', () => {
  it('puts each service’s name before its processes’ profiles, every thread’s, and leaves the rest', () => {
    const files = [
      'CPU.20261205.000408.12072.0.001.cpuprofile', // dispatcher-1's main thread
      'CPU.20261205.000421.12072.1.002.cpuprofile', // its store thread
      'CPU.20261205.000408.12090.0.001.cpuprofile', // the gateway
      'CPU.20261205.000409.99999.0.001.cpuprofile', // a process the launcher did not start
      'notes.txt',
    ];
    for (const file of files) writeFileSync(join(dir, file), '{}');
    const services = new Map([
      [12072, 'dispatcher-1'],
      [12090, 'gateway'],
    ]);
    nameProfiles(['--cpu-prof', `--cpu-prof-dir=${dir}`], services);
    expect(readdirSync(dir).sort()).toEqual(
      [
        'dispatcher-1.CPU.20261205.000408.12072.0.001.cpuprofile',
        'dispatcher-1.CPU.20261205.000421.12072.1.002.cpuprofile',
        'gateway.CPU.20261205.000408.12090.0.001.cpuprofile',
        'CPU.20261205.000409.99999.0.001.cpuprofile',
        'notes.txt',
      ].sort(),
    );
    // Run again (a second stop), nothing is named twice.
    nameProfiles([`--cpu-prof-dir=${dir}`], services);
    expect(readdirSync(dir).filter((file) => file.startsWith('dispatcher-1.dispatcher-1'))).toEqual([]);
  });

  it('does nothing without --cpu-prof-dir, or when no profile was written', () => {
    expect(() => nameProfiles([], new Map([[1, 'gateway']]))).not.toThrow();
    expect(() => nameProfiles([`--cpu-prof-dir=${join(dir, 'never-made')}`], new Map([[1, 'gateway']]))).not.toThrow();
  });
});
