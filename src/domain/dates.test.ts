import { describe, expect, it } from 'vitest';
import { aujourdhui, instantAParis } from './dates.js';
import { debutDuJourAParis } from './signalements.js';

describe('instantAParis', () => {
  it('reads winter (UTC+1) and summer (UTC+2) times', () => {
    expect(instantAParis(2026, 1, 15, 9).toISOString()).toBe('2026-01-15T08:00:00.000Z');
    expect(instantAParis(2026, 7, 14, 9).toISOString()).toBe('2026-07-14T07:00:00.000Z');
  });

  it('is right on the days the clocks change, where the hour read as UTC is past the change but not in Paris', () => {
    // 29 March 2026: 02:00 in Paris becomes 03:00 at 01:00 UTC. 01:00 in Paris is still winter time.
    expect(instantAParis(2026, 3, 29, 0).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(instantAParis(2026, 3, 29, 1).toISOString()).toBe('2026-03-29T00:00:00.000Z');
    expect(instantAParis(2026, 3, 29, 4).toISOString()).toBe('2026-03-29T02:00:00.000Z');
    // 25 October 2026: 03:00 in Paris becomes 02:00 at 01:00 UTC.
    expect(instantAParis(2026, 10, 25, 0).toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(instantAParis(2026, 10, 25, 4).toISOString()).toBe('2026-10-25T03:00:00.000Z');
  });

  it('rolls a day out of range over, as Date.UTC does (the day before the first of a month)', () => {
    expect(instantAParis(2026, 3, 0, 4).toISOString()).toBe('2026-02-28T03:00:00.000Z');
  });

  it('gives the start of a day for the list of reports', () => {
    expect(debutDuJourAParis('2026-03-29')).toBe('2026-03-28T23:00:00.000Z');
    expect(debutDuJourAParis('2026-06-01')).toBe('2026-05-31T22:00:00.000Z');
  });
});

describe('aujourdhui', () => {
  it('is the calendar day in Paris at an instant', () => {
    expect(aujourdhui(new Date('2026-01-15T23:30:00Z'))).toBe('2026-01-16');
    expect(aujourdhui(new Date('2026-07-14T21:59:00Z'))).toBe('2026-07-14');
    expect(aujourdhui(new Date('2026-07-14T22:00:00Z'))).toBe('2026-07-15');
  });
});
