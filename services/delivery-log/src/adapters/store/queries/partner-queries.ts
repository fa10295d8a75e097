/* Whether the log holds a partner (projected from partner-config). */
import type { DeliveryLogDb } from '../tables';

export async function partnerKnown(db: DeliveryLogDb, partnerId: string): Promise<boolean> {
  return (await db.selectFrom('partners').select('partner_id').where('partner_id', '=', partnerId).executeTakeFirst()) !== undefined;
}
