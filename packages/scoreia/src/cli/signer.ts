import { join } from "node:path";
import { logger } from "kernel/log.ts";
import { KeyringDir, serveSigner } from "../evidence/remote-signer.ts";
import { ensureDataDir, IoError, UsageError, type Values, waitForSignal } from "./common.ts";

/** Holds the signing keys in their own process, serving signatures on a unix socket. */
export async function signer(values: Values): Promise<number> {
  if (!values.socket) throw new UsageError("needs --socket PATH");
  const keyring = KeyringDir.open(join(ensureDataDir(values), "keys"));
  let server: Awaited<ReturnType<typeof serveSigner>>;
  try {
    server = await serveSigner(keyring, values.socket, {
      log: (line) => logger("signer").info(line),
    });
  } catch (e) {
    throw new IoError((e as Error).message);
  }
  process.stdout.write(
    `scoreia signer listening on ${server.path} (current key ${keyring.currentKeyId}, keyring ${keyring.dir})\n` +
      `  use: scoreia serve --signer unix:${server.path}\n`,
  );
  await waitForSignal();
  await server.close();
  return 0;
}
