import { CallbackBodyError } from './callback-body-error';
import { utcMillis, type WallClock } from './iso-date-time';

/**
 * Wall-clock time in an IANA time zone (a body rule's `time_zone`) through Intl, so no date
 * library and no time-zone data of our own: the zone rules are those of the Node runtime.
 */

export interface ZoneClock {
  /** The wall-clock time in the zone at an instant (epoch milliseconds). */
  wallClock(instant: number): WallClock;
  /** The instant at which the zone's clock shows `wall`. */
  instantOf(wall: WallClock): number;
}

// Building an Intl.DateTimeFormat is slow next to using one; a partner's few zones are reused for every event.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The clock of `timeZone`. Throws {@link CallbackBodyError} naming `field` when the zone is unknown. */
export function zoneClock(timeZone: string, field: string): ZoneClock {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CallbackBodyError(field, timeZone, 'is not an IANA time zone (the rule’s time_zone)');
    }
    formatters.set(timeZone, formatter);
  }
  const zone = formatter;
  const wallClock = (instant: number): WallClock => {
    const parts = Object.fromEntries(zone.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
    return {
      year: Number(parts.year),
      month: Number(parts.month),
      day: Number(parts.day),
      hour: Number(parts.hour),
      minute: Number(parts.minute),
      second: Number(parts.second),
      millisecond: ((instant % 1000) + 1000) % 1000,
    };
  };
  const offsetAt = (instant: number) => utcMillis(wallClock(instant)) - instant;
  return {
    wallClock,
    // The offset at the guess, corrected once if the guess fell on the other side of a transition.
    instantOf(wall) {
      const guess = utcMillis(wall);
      const offset = offsetAt(guess);
      const corrected = offsetAt(guess - offset);
      return offset === corrected ? guess - offset : guess - corrected;
    },
  };
}
