// AttemptPlaces: full exactly at its size, free again as places are given back.
import { expect, it } from 'vitest';
import { AttemptPlaces } from './attempt-places.ts';

it('counts places taken and given back; full at its size', () => {
  const places = new AttemptPlaces(2);
  expect([places.free, places.full]).toEqual([2, false]);
  places.take();
  expect([places.taken, places.free, places.full]).toEqual([1, 1, false]);
  places.take();
  expect([places.free, places.full]).toEqual([0, true]);
  places.give();
  expect([places.taken, places.free, places.full]).toEqual([1, 1, false]);
});
