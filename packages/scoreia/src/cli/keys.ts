import { join } from "node:path";
import { KeyringDir } from "../evidence/remote-signer.ts";
import { dataDir, ensureDataDir, IoError, UsageError, type Values } from "./common.ts";

/** `keys rotate` closes the current key's window and opens a new key; `keys list` prints the public records. */
export async function keys(values: Values, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if ((sub !== "rotate" && sub !== "list") || rest.length > 0) throw new UsageError("keys rotate | keys list");
  const dir = join(dataDir(values["data-dir"]), "keys");
  if (sub === "list") {
    const records = KeyringDir.readPublic(dir);
    if (!records) throw new IoError(`no keyring in ${dir} (scoreia serve or scoreia signer creates one)`);
    process.stdout.write(`${JSON.stringify({ keys: records }, null, 2)}\n`);
    return 0;
  }
  ensureDataDir(values);
  const { closed, opened } = await KeyringDir.open(dir).rotate();
  process.stderr.write(
    `scoreia keys: ${closed.key_id} now covers ${closed.not_before} – ${closed.not_after}; ` +
      `${opened.key_id} signs from ${opened.not_before}\n`,
  );
  process.stdout.write(`${opened.key_id}\n`);
  return 0;
}
