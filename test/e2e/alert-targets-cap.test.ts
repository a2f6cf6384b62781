// Alert targets are capped per environment: the 20th is added, the 21st is refused
// with 422 and the spec's error body; the other environment has its own 20, and a delete
// makes room again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWirehook, type Harness } from '../support/harness.ts';
import { reachingReceivers, startReceiver, type NamedReceiver } from '../support/receivers.ts';

let wh: Harness;
let hooks: NamedReceiver;
beforeAll(async () => {
  wh = await startWirehook(await reachingReceivers());
  hooks = await startReceiver();
});
afterAll(async () => {
  await wh.close();
  await hooks.receiver.close();
});

it('allows 20 alert targets per environment and refuses the 21st with 422', async () => {
  const live = await wh.tenant();
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await live.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url(`/alerts/${i}`) });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const over = await live.api.post('/v1/alert-targets', { type: 'chat', url: hooks.url('/chat') });
  expect(over.status).toBe(422);
  expect(over.body).toEqual({
    error: 'invalid',
    message: 'the live environment already has 20 alert targets; the limit is 20 per environment (delete one to add another)',
  });
  expect((await live.api.get('/v1/alert-targets')).body.items).toHaveLength(20);
  // The test environment of the same organization has its own 20.
  const test = await wh.key(live.orgId, { env: 'test' });
  expect((await test.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url('/alerts/test') })).status).toBe(201);
  // A delete makes room for one.
  expect((await live.api.delete(`/v1/alert-targets/${ids[0]}`)).status).toBe(204);
  expect((await live.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url('/alerts/again') })).status).toBe(201);
  expect((await live.api.post('/v1/alert-targets', { type: 'webhook', url: hooks.url('/alerts/again2') })).status).toBe(422);
}, 60_000);
