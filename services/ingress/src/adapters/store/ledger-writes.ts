/*
 * The ledger's two writes on the hot path, each one statement for many requests (StatementBatches
 * gathers them): the claims of new request_ids, and the completions recorded after the answers.
 */
import { sql, type Kysely } from 'kysely';
import type { Completion } from '../../domain/request-id-ledger';
import type { LedgerTables } from './ledger-tables';

export interface ClaimItem {
  partnerId: string;
  requestId: string;
  claimId: string;
  fingerprint: string;
}

export interface CompletionItem {
  partnerId: string;
  requestId: string;
  claimId: string;
  completion: Completion;
}

const keyOf = (item: { partnerId: string; requestId: string }) => `${item.partnerId}\n${item.requestId}`;

/**
 * In key order: rows are locked in the order written, so two statements over overlapping keys (two
 * replicas' batches, a partner's retries spread by the load balancer) wait for one another rather
 * than deadlock, which PostgreSQL would end by failing one whole batch (40P01) after a second.
 */
function inKeyOrder<T extends { partnerId: string; requestId: string }>(items: T[]): T[] {
  return items.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/**
 * Inserts the claims (the first insert of a key wins); per item, whether it won. Of the same key
 * twice in one batch only the first is inserted: the other loses to it, as it would a moment later.
 */
export async function insertClaims(
  db: Kysely<LedgerTables>,
  items: readonly ClaimItem[],
  instance: string,
  retentionMs: number,
): Promise<boolean[]> {
  const first = new Map<string, ClaimItem>();
  for (const item of items) if (!first.has(keyOf(item))) first.set(keyOf(item), item);
  const unique = inKeyOrder([...first.values()]);
  const { rows } = await sql<{ claim_id: string }>`
    insert into ingress_request_ledger
      (partner_id, request_id, claim_id, fingerprint, claimant_instance, claimed_at, unchecked_since, expires_at)
    select p, r, c::uuid, f, ${instance}, now(), now(), now() + make_interval(secs => ${retentionMs / 1000})
    from unnest(${unique.map((i) => i.partnerId)}::text[], ${unique.map((i) => i.requestId)}::text[],
                ${unique.map((i) => i.claimId)}::text[], ${unique.map((i) => i.fingerprint)}::text[])
         with ordinality as t(p, r, c, f, ord)
    order by ord
    on conflict do nothing
    returning claim_id`.execute(db);
  const won = new Set(rows.map((row) => row.claim_id));
  return items.map((item) => won.has(item.claimId));
}

/** Records the completions on their claims' rows; per item, false if its claim was taken over meanwhile. */
export async function recordCompletions(db: Kysely<LedgerTables>, given: readonly CompletionItem[]): Promise<boolean[]> {
  const items = inKeyOrder([...given]);
  const { rows } = await sql<{ claim_id: string }>`
    update ingress_request_ledger l
    set completed_at = now(), fingerprint = t.f, transaction_number = t.tn, transaction_type = t.tt
    from unnest(${items.map((i) => i.partnerId)}::text[], ${items.map((i) => i.requestId)}::text[],
                ${items.map((i) => i.claimId)}::text[], ${items.map((i) => i.completion.fingerprint)}::text[],
                ${items.map((i) => i.completion.transactionNumber)}::text[],
                ${items.map((i) => i.completion.transactionType)}::text[]) as t(p, r, c, f, tn, tt)
    where l.partner_id = t.p and l.request_id = t.r and l.claim_id = t.c::uuid and l.completed_at is null
    returning l.claim_id`.execute(db);
  const recorded = new Set(rows.map((row) => row.claim_id));
  return given.map((item) => recorded.has(item.claimId));
}
