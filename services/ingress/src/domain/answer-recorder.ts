/**
 * Where the ingress records what it answered a known partner when the answer made no partner-event
 * (a refusal, a replay), so the partner can later see it. `record` returns at once and never
 * throws: the answer never waits for it. `describe` is called only for a record that is kept, so
 * one dropped costs no work.
 */
export interface AnswerRecorder<Described> {
  record(partnerId: string, describe: () => Described): void;
}
