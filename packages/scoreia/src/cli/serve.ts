import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { logger } from "kernel/log.ts";
import { CURRENT_TOOLSET } from "../contract/index.ts";
import { chooseSigner, defaultDb, EXIT, ensureDataDir, UsageError, type Values, waitForSignal } from "./common.ts";

/** The server's log (JSON lines on stderr, kernel/src/log.ts); usage errors stay plain lines. */
const serveLog = logger("serve");

/** `--admission PER_ADDRESS,GLOBAL,WINDOW_SECONDS` or `off`; default 600,6000,60 (HTTP only). */
function parseAdmission(
  spec: string | undefined,
): { perAddress: number; global: number; windowSeconds: number } | null {
  if (spec === "off") return null;
  const [perAddress, global, windowSeconds] = (spec ?? "600,6000,60").split(",").map(Number);
  const ok = [perAddress, global, windowSeconds].every((n) => Number.isInteger(n) && (n as number) > 0);
  if (!ok || (spec ?? "").split(",").length > 3) {
    throw new UsageError(
      `--admission must be PER_ADDRESS,GLOBAL,WINDOW_SECONDS (positive integers) or off, got ${spec}`,
    );
  }
  return { perAddress: perAddress as number, global: global as number, windowSeconds: windowSeconds as number };
}

/** `--trust-proxy LIST` (HTTP only): the load balancers whose X-Forwarded-For names the client. */
function parseTrustProxy(values: Values, proxies: { parse(list: string): { entries: readonly string[] } }) {
  const list = values["trust-proxy"];
  if (list === undefined) return undefined;
  if (!values.http) throw new UsageError("--trust-proxy applies to --http only");
  try {
    return proxies.parse(list).entries;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export async function serve(values: Values): Promise<number> {
  const port = values.port === undefined ? 8420 : Number(values.port);
  if (values.http && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  }
  const { signer, describe } = chooseSigner(values);
  const db = values.db ?? defaultDb(ensureDataDir(values));
  const { openChamber } = await import("../app.ts");
  const { serveHttp, serveStdio, TrustedProxies } = await import("kernel");
  const admission = parseAdmission(values.admission);
  const trustProxy = parseTrustProxy(values, TrustedProxies);
  const publicOrigin = values["public-origin"];
  if (publicOrigin !== undefined && !/^https?:\/\/[^/?#\s]+$/.test(publicOrigin)) {
    throw new UsageError(`--public-origin must be an origin like https://chamber.example, got ${publicOrigin}`);
  }
  const { SuiteSecrets } = await import("../suites/secrets.ts");
  // Room secrets live beside the signing keys, never in the repository (docs/evidence-0.2.md §14).
  const secrets = SuiteSecrets.open(join(ensureDataDir(values), "suite-secrets"));
  let chamber: Awaited<ReturnType<typeof openChamber>>;
  try {
    chamber = await openChamber({ db, signer, secrets, ...(publicOrigin ? { publicOrigin } : {}) });
  } catch (e) {
    // One line (e.g. a postgres:// URL without a user), not a stack.
    serveLog.fatal(`cannot open ${db}: ${(e as Error).message}`);
    return EXIT.io;
  }
  // Publishes the signer's public keys now (they would be on the first seal anyway).
  await chamber.service.publishKeys().catch(() => undefined);
  const signing = await describe();
  if (values.http) {
    const http = await serveHttp({
      mcp: chamber.mcp,
      host: values.host ?? "127.0.0.1",
      port,
      maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
      // The public read side (cards, proofs, keys, pages) on the same listener as /mcp.
      routes: chamber.routes,
      // The public door: admission limits per client address and in all (docs/deploy.md).
      ...(admission ? { admission } : {}),
      // Behind load balancers the per-address limits count the forwarded client (docs/deploy.md).
      ...(trustProxy ? { trustProxy } : {}),
      ...(publicOrigin ? { allowedHosts: [new URL(publicOrigin).host] } : {}),
      // Shared by every instance behind one endpoint, so any of them honours a 2025 session id.
      ...(process.env.SCOREIA_SESSION_SECRET ? { sessionSecret: process.env.SCOREIA_SESSION_SECRET } : {}),
    });
    // seal_attempt links cards under the origin the public reaches; this listener's by default.
    chamber.service.config.publicOrigin ??= new URL(http.url).origin;
    process.stdout.write(
      `ScoreIA Open Chamber (${CURRENT_TOOLSET.toolset_id}) listening\n` +
        `  MCP (Streamable HTTP): ${http.url}\n` +
        `  database: ${chamber.database.location}\n` +
        `  ${signing}\n` +
        `Connect an MCP host, e.g. add to its config:\n` +
        `  { "mcpServers": { "scoreia": { "url": "${http.url}" } } }\n` +
        `or launch over stdio (from any folder): ${stdioEntry()}\n`,
    );
    await waitForSignal();
    await http.close();
  } else {
    // the message reads alone (a person tailing stderr); the fields are for log tooling
    serveLog.info(
      { database: chamber.database.location, signing },
      `serving MCP over stdio, database ${chamber.database.location}`,
    );
    const s = await serveStdio(chamber.mcp);
    await new Promise<void>((resolve) => {
      process.stdin.once("end", resolve);
      process.stdin.once("close", resolve);
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await s.close();
  }
  await chamber.close();
  return 0;
}

/**
 * The stdio entry a host can paste: node and this installation's bin by absolute path, so it
 * runs from any folder (a bare `npx scoreia` outside this installation would fetch whatever the
 * registry holds under that name).
 */
export function stdioEntry(): string {
  const bin = fileURLToPath(new URL("../../bin/scoreia.mjs", import.meta.url));
  return JSON.stringify({ command: process.execPath, args: [bin, "serve"] });
}
