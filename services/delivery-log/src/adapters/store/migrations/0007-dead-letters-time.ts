import { sql, type Kysely, type Migration } from 'kysely';

// Retention deletes dead letters by age: without this each pass read the whole table.
export const deadLettersTime: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index dead_letters_time on dead_letters (dead_lettered_at)`.execute(db);
  },
};
