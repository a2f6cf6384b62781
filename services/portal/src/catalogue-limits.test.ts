// The page's words for the limits the API keeps: the numbers are the API's own.
import { TRIAL_SENDS_PER_CONSUMER_PER_DAY } from '@wirehook/core';
import { describe, expect, it } from 'vitest';
import { en } from '../web/src/catalogue-en.ts';
import { ja } from '../web/src/catalogue-ja.ts';

describe('the page’s catalogues', () => {
  it('name the trial sends a customer may make a day as the API limits them', () => {
    expect(TRIAL_SENDS_PER_CONSUMER_PER_DAY).toBe(100);
    expect(en.trialHelp).toContain(`limited to ${TRIAL_SENDS_PER_CONSUMER_PER_DAY} a day for each customer`);
    expect(ja.trialHelp).toContain(`1 日 ${TRIAL_SENDS_PER_CONSUMER_PER_DAY} 件まで`);
  });
});
