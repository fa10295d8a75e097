// @hookstream/dead-letters: read, explain, select, replay and count dead letters (README.md). What other packages use, and nothing else.
export { readAudit } from './audit/audit-reader';
export { type AuditEntry } from './audit/audit-trail';
export { DeadLetterDepth, deadLetterGauges } from './depth/dead-letter-depth';
export { readDeadLetters } from './read/dead-letter-reader';
export { type DlqTopicChoice } from './read/dead-letter-topic';
export { coordinatesOf, type DeadLetter, type DlqRecord } from './read/dead-letter';
export { decisionJson, letterJson } from './read/dlq-json';
export { DLQ_TOPIC_CHOICES, DlqSession, type DlqSessionParts } from './dlq-session';
export { failureOf } from './read/letter-notes';
export { type CallbackOutcome, readOutcomes, readPartners } from './read/related-records';
export { DeadLetterReplay } from './replay/replay-dead-letters';
export { countOutcomes, type ReplayDecision } from './replay/replay-plan';
export { type PreparedReplay } from './replay/replay-preparation';
export { ReplayRefused } from './replay/replay-refused';
export { describeSelection, type OffsetRange, type Selection } from './read/selection';
