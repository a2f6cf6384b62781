// The chart's alert rules unit-tested with `promtool test rules` (test/k8s/rules-tests/*.yaml),
// on series labelled as prometheus-operator labels a ServiceMonitor's targets; and a check that
// no rule goes untested: each alert has a case where it fires and one where it does not; and a
// mutation check that the cases pin every threshold and `for:` (a rule moved either way fails them).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, parseDocument } from 'yaml';
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

/** One rule of alerts.yaml changed a little: a threshold or its `for:` moved up or down. */
interface Mutation {
  alert: string;
  what: string;
  /** The whole rules file with the change made. */
  rules: string;
}

/** Evaluation step of the rules tests (`evaluation_interval: 1m`): a `for:` moves by this much. */
const FOR_STEP_MS = 60_000;

/**
 * Comparisons with a number in an `expr`: `> 0.5`, `< 1`, `== 1`, … (not `bool`, not a range or
 * a function's argument: those follow no comparison operator).
 */
const COMPARISON = /(>=|<=|==|!=|>|<)(\s*)(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)(?![\w.])/g;

/**
 * The two moved values of a threshold `value`, compared against `operand` (the expression text on
 * its left, back to the previous `and`/`or`/`unless`):
 * - integer-valued operands, `up` (0 or 1) and `increase(…)` of a counter that counts events
 *   (with whole windows of samples, a whole number): ±1 — any step smaller than 1 leaves the
 *   rule the same on every input that can occur, so no case could tell it;
 * - other values at 0: ±0.5;
 * - other values: ×1.1 and ×0.9.
 */
function moved(value: number, operand: string): [number, number] {
  if (/\bup\{|\bincrease\(/.test(operand)) return [value - 1, value + 1];
  if (value === 0) return [-0.5, 0.5];
  return [Number((value * 0.9).toPrecision(12)), Number((value * 1.1).toPrecision(12))];
}

function parseDuration(text: string): number {
  const m = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!m) throw new Error(`unexpected for: ${text}`);
  return Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}

/** Every mutation of alerts.yaml: each comparison's number moved both ways, each `for:` ±1 interval. */
function mutations(text: string): Mutation[] {
  const out: Mutation[] = [];
  const groups = (parse(text) as { groups: { rules: { alert?: string; expr: string; for?: string }[] }[] }).groups;
  groups.forEach((group, gi) =>
    group.rules.forEach((rule, ri) => {
      if (!rule.alert) return;
      const alert = rule.alert;
      const withChange = (key: string, value: string): string => {
        const doc = parseDocument(text);
        doc.setIn(['groups', gi, 'rules', ri, key], value);
        return doc.toString();
      };
      for (const m of rule.expr.matchAll(COMPARISON)) {
        const [, op, space, number] = m;
        const before = rule.expr.slice(0, m.index);
        const operand = before.split(/\b(?:and|or|unless)\b/).at(-1)!;
        for (const next of moved(Number(number), operand)) {
          const expr = `${rule.expr.slice(0, m.index)}${op}${space}${next}${rule.expr.slice(m.index + m[0].length)}`;
          out.push({ alert, what: `${op} ${number} → ${op} ${next} (at ${m.index})`, rules: withChange('expr', expr) });
        }
      }
      if (rule.for !== undefined) {
        const ms = parseDuration(rule.for);
        for (const next of [ms - FOR_STEP_MS, ms + FOR_STEP_MS]) {
          out.push({ alert, what: `for: ${rule.for} → ${formatDuration(next)}`, rules: withChange('for', formatDuration(next)) });
        }
      }
    }),
  );
  return out;
}

/** `promtool test rules` on one file: whether it passed, and what it said. */
function testRules(file: string): Promise<{ passed: boolean; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn('promtool', ['test', 'rules', file]);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', fail);
    child.on('close', (status) => done({ passed: status === 0, output }));
  });
}

it('every threshold and `for:` of every rule is pinned: moved a step either way, `promtool test rules` fails', async () => {
  const text = readFileSync(alertsFile, 'utf8');
  const all = mutations(text);
  // 9 rules, 14 comparisons (28 moves: > 0.5, > 1; > 5; > 1000, > 0, >= 100000; > 600; > 600;
  // < 1, == 1, == 1; > 0; > 0; > 10) and 9 `for:` (18 moves).
  expect(all.length).toBe(46);
  const dir = mkdtempSync(join(tmpdir(), 'wirehook-rules-mutations-'));
  try {
    // Per mutation, a copy of the rules file changed, and of each test file pointed at it. A
    // mutation of one alert changes only the cases of that alert: the copies keep just the
    // groups with such a case (the unmutated run below covers the others), which keeps this fast.
    const copies: { mutation: Mutation | null; file: string }[] = [];
    const write = (name: string, mutation: Mutation | null): void => {
      const rulesFile = join(dir, `${name}.rules.yaml`);
      writeFileSync(rulesFile, mutation?.rules ?? text);
      for (const source of testFiles) {
        const doc = parseDocument(readFileSync(source, 'utf8'));
        doc.set('rule_files', [rulesFile]);
        if (mutation) {
          const tests = (doc.toJS() as RuleTests).tests;
          const keep = tests.flatMap((t, i) => (t.alert_rule_test?.some((c) => c.alertname === mutation.alert) ? [i] : []));
          if (keep.length === 0) continue;
          for (let i = tests.length - 1; i >= 0; i--) if (!keep.includes(i)) doc.deleteIn(['tests', i]);
        }
        const file = join(dir, `${name}.${source.split('/').at(-1)}`);
        writeFileSync(file, doc.toString());
        copies.push({ mutation, file });
      }
    };
    write('unmutated', null);
    all.forEach((m, i) => write(`m${i}`, m));
    // Three promtool processes at a time (a 2-core machine).
    const results = new Map<string, { passed: boolean; output: string }>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < copies.length) {
        const { file } = copies[next++]!;
        results.set(file, await testRules(file));
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    const survivors = new Set(all.map((m) => `${m.alert}: ${m.what}`));
    for (const { mutation, file } of copies) {
      const result = results.get(file);
      expect(result, `promtool said nothing of ${file}`).toBeDefined();
      if (mutation === null) {
        // The copies as written, unmutated, pass: a failure below is the mutation's.
        expect(result!.passed, result!.output).toBe(true);
      } else if (!result!.passed) {
        // Failed as a test, not by a rules file promtool could not load.
        expect(result!.output, `${mutation.alert}: ${mutation.what}`).not.toMatch(/error loading|parse error|yaml:/i);
        survivors.delete(`${mutation.alert}: ${mutation.what}`);
      }
    }
    expect([...survivors].sort(), 'mutations no rules test case notices').toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
