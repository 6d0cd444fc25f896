import { authenticateBearer, ConfigError, type ShampooConfig } from "../../access/config.ts";

/**
 * The auth registry on HTTP (domains/auth/http.ts): registry session tokens first, then the
 * config file's tokens, then (with an "oauth" section) OAuth 2.1 access tokens (domains/auth/oauth.ts).
 */
export async function registryAccess(
  shampoo: Awaited<ReturnType<typeof import("../../app.ts").openShampoo>>,
  config: ShampooConfig,
) {
  const { authHttp } = await import("./http.ts");
  const { OAuthConfigError, OAuthVerifier, parseOAuth } = await import("./oauth.ts");
  const { systemClock } = await import("kernel");
  let oauth: InstanceType<typeof OAuthVerifier> | undefined;
  try {
    if (config.oauth !== undefined)
      oauth = new OAuthVerifier(parseOAuth(config.oauth, `${config.source}: oauth`), systemClock);
  } catch (e) {
    if (e instanceof OAuthConfigError) throw new ConfigError(e.message);
    throw e;
  }
  const auth = authHttp({
    database: shampoo.database,
    registry: shampoo.registry,
    clock: systemClock,
    fallback: async (req) => {
      const header = req.headers.get("authorization") ?? undefined;
      const p = authenticateBearer(config, header);
      if (p) return { token: "bearer", clientId: p.caller.principal, scopes: [], extra: { caller: p.caller } };
      const jwt = /^Bearer +([^ ]+) *$/i.exec(header ?? "")?.[1];
      const caller = oauth && jwt ? await oauth.authenticate(jwt) : null;
      return caller && { token: "oauth", clientId: caller.principal, scopes: [], extra: { caller } };
    },
  });
  if (!oauth) return { authenticate: auth.authenticate, routes: auth.routes };
  const metadata = new URL("/.well-known/oauth-protected-resource/mcp", oauth.config.audience).toString();
  return {
    authenticate: auth.authenticate,
    routes: [auth.routes, oauth.routes()],
    wwwAuthenticate: `Bearer resource_metadata="${metadata}"`,
  };
}
