/** Thrown where stop() cuts a wait short: the record stays uncommitted for the next run, no failure. */
export class StopRequested extends Error {}
