// The one reading of a snapshot's clock, for every page that shows a running
// clock (the game page, the Watch page's TV).
//
// A snapshot's clock says what each side had left at the server's moment `at`.
// The time since then is counted once: the journey of the message (the wall
// clocks' difference when the two clocks roughly agree, measured when it arrives)
// plus the page's own monotonic time since it arrived. The wall clock is read
// only on arrival: counting `Date.now() - at` on every tick as well counted the
// time since the update twice (issue #37).

const MAX_JOURNEY_MS = 5000; // a larger difference is the machines' clocks disagreeing, not a journey

export function readClock(clock, receivedAt = performance.now()) {
  const skew = clock ? Date.now() - clock.at : 0;
  const journey = skew >= 0 && skew < MAX_JOURNEY_MS ? skew : 0;
  return { clock, since: receivedAt - journey };
}

// Milliseconds left on `side`'s clock now; only the running side's clock moves, and only while the game is on.
export function clockLeft(reading, side, active, now = performance.now()) {
  const { clock, since } = reading;
  if (!clock) return 0;
  if (!active || clock.running !== side) return clock.ms[side];
  return clock.ms[side] - (now - since);
}
