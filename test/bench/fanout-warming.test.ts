// Fan-out's warming (bench/scenarios/fanout.ts) sends as many deliveries as e2e's, in messages of 20:
// the smoke run's one message could not tell that from a fixed size.
import { expect, it } from 'vitest';
import { fanoutWarmingMessages } from '../../bench/scenarios/fanout.ts';
import { FANOUT_ENDPOINTS, settingsFor } from '../../bench/settings.ts';

it('fan-out warms by e2e’s warming in deliveries: 48,000 in a full run, 2,400 messages of 20; a remainder rounds up', () => {
  const full = settingsFor('full', 2);
  expect(full.e2e.warming).toBe(48_000);
  expect(FANOUT_ENDPOINTS).toBe(20);
  expect(fanoutWarmingMessages(full)).toBe(2_400);
  expect(fanoutWarmingMessages(settingsFor('smoke', 2))).toBe(1);
  expect(fanoutWarmingMessages({ e2e: { ...full.e2e, warming: 48_001 } })).toBe(2_401);
});
