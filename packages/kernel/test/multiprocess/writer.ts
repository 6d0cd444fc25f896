// A second process writing the same SQLite file: N read-modify-write transactions.
import { openDatabase, sql } from "../../src/store/db.ts";

const [file, countArg, who] = process.argv.slice(2);
const db = await openDatabase<{ counter: { id: number; n: number }; log: { who: string; n: number } }>(file as string);
for (let i = 0; i < Number(countArg); i++) {
  await db.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("counter").select("n").where("id", "=", 1).executeTakeFirstOrThrow();
    await trx
      .updateTable("counter")
      .set({ n: row.n + 1 })
      .where("id", "=", 1)
      .execute();
    await trx
      .insertInto("log")
      .values({ who: who as string, n: row.n + 1 })
      .execute();
    await sql`select 1`.execute(trx);
  });
}
await db.close();
