import { describe, expect, it } from 'vitest';
import type { Fixtures } from './fixtures.ts';

/** Contract of AlertSettingsRepo: none chosen, then what was chosen last. */
export function describeAlertContract(f: Fixtures): void {
  describe('alert conditions', () => {
    it('null until chosen; then the last choice, per organization', async () => {
      const org = await f.org();
      const other = await f.org();
      expect(await f.store.alerts.conditions(org.id)).toBeNull();
      const chosen = { delivery_failure: '5m', automatic_stop: false, pending_retries: 100, usage: 50 } as const;
      await f.store.alerts.setConditions(org.id, chosen, 1);
      expect(await f.store.alerts.conditions(org.id)).toEqual(chosen);
      await f.store.alerts.setConditions(org.id, { ...chosen, usage: 100 }, 2);
      expect(await f.store.alerts.conditions(org.id)).toEqual({ ...chosen, usage: 100 });
      expect(await f.store.alerts.conditions(other.id)).toBeNull();
    });
  });
}
