// The Helm chart's checks that run without Helm: values.yaml against values.schema.json (and a
// typo refused), the alert rules with promtool. `helm lint`/`helm template` run in CI.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { expect, it } from 'vitest';

const chart = join(import.meta.dirname, '..', '..', 'charts', 'wirehook');
const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as object;
const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Record<string, any>;
const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validate = ajv.compile(schema);

it('values.yaml is valid; a typo, a wrong type or a malformed URL is refused', () => {
  expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  const cases: [string, Record<string, any>][] = [
    ['a typo at the top', { ...values, portalPublicURL: 'https://x' }],
    ['a typo in a service', { ...values, services: { ...values['services'], dispatcher: { ...values['services'].dispatcher, replica: 3 } } }],
    ['replicas as text', { ...values, services: { ...values['services'], gateway: { ...values['services'].gateway, replicas: 'two' } } }],
    ['a MongoDB URL that is not one', { ...values, mongodbUrl: 'postgres://db' }],
    ['a relay address that is not an IP', { ...values, relay: { ...values['relay'], sourceIps: ['relay.example.com'] } }],
  ];
  for (const [what, bad] of cases) expect(validate(bad), what).toBe(false);
  expect(validate({ ...values, relay: { ...values['relay'], sourceIps: ['203.0.113.7', '2001:db8::7'] } }), JSON.stringify(validate.errors)).toBe(true);
});

it('the alert rules pass promtool check rules', () => {
  const res = spawnSync('promtool', ['check', 'rules', join(chart, 'files', 'alerts.yaml')], { encoding: 'utf8' });
  if (res.error) throw new Error(`promtool is needed (./dev test installs prometheus): ${res.error.message}`);
  expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
  expect(res.stdout).toContain('SUCCESS: 7 rules found');
});
