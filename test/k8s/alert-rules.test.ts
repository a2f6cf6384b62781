// The chart's alert rules unit-tested with `promtool test rules` (test/k8s/rules-tests/*.yaml),
// on series labelled as prometheus-operator labels a ServiceMonitor's targets; and a check that
// no rule goes untested: each alert has a case where it fires and one where it does not.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { expect, it } from 'vitest';

const alertsFile = join(import.meta.dirname, '..', '..', 'charts', 'wirehook', 'files', 'alerts.yaml');
const testsDir = join(import.meta.dirname, 'rules-tests');
const testFiles = readdirSync(testsDir)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join(testsDir, f));

interface RuleTests {
  rule_files: string[];
  tests: { name?: string; alert_rule_test?: { alertname: string; exp_alerts?: unknown[] | null }[] }[];
}

it('promtool test rules passes for every test file under test/k8s/rules-tests', () => {
  expect(testFiles.length).toBeGreaterThan(0);
  for (const file of testFiles) {
    const res = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
    if (res.error) throw new Error(`promtool is needed (./dev test installs prometheus; apt-get install prometheus): ${res.error.message}`);
    expect(res.status, `${file}\n${res.stdout}${res.stderr}`).toBe(0);
    expect(res.stdout).toContain('SUCCESS');
  }
});

it('every alert in alerts.yaml has a test case where it fires and one where it does not', () => {
  const rules = parse(readFileSync(alertsFile, 'utf8')) as { groups: { rules: { alert?: string }[] }[] };
  const alerts = rules.groups.flatMap((g) => g.rules.flatMap((r) => (r.alert ? [r.alert] : [])));
  expect(alerts.length).toBeGreaterThan(0);
  const fires = new Set<string>();
  const quiet = new Set<string>();
  for (const file of testFiles) {
    const suite = parse(readFileSync(file, 'utf8')) as RuleTests;
    // The cases test the chart's own rules file, not a copy.
    expect(
      suite.rule_files.map((f) => resolve(dirname(file), f)),
      file,
    ).toEqual([alertsFile]);
    for (const c of suite.tests.flatMap((t) => t.alert_rule_test ?? [])) {
      if ((c.exp_alerts ?? []).length > 0) fires.add(c.alertname);
      else quiet.add(c.alertname);
    }
  }
  expect(
    alerts.filter((a) => !fires.has(a)),
    'alerts no test case expects to fire',
  ).toEqual([]);
  expect(
    alerts.filter((a) => !quiet.has(a)),
    'alerts no test case expects to stay quiet',
  ).toEqual([]);
});
