import { DomainError } from "kernel";

/**
 * Identity rules of enter_open_challenge (seed 000 description and protocol 0.2 "four identity
 * layers"). product is the model or slot under test; a host is never a product.
 */

/** MCP hosts: names a participant may declare as `host`, never as `product`. */
export const KNOWN_HOSTS = new Set([
  "cursor",
  "vscode",
  "vs-code",
  "visual-studio-code",
  "claude-desktop",
  "claude-code",
  "claude.ai",
  "hermes-agent",
  "openclaw",
  "grok.com",
  "chatgpt",
  "chatgpt.com",
  "chatgpt-desktop",
  "codex",
  "codex-cli",
  "gemini-cli",
  "github-copilot",
  "copilot",
  "windsurf",
  "zed",
  "cline",
  "roo-code",
  "kilo-code",
  "continue",
  "goose",
  "opencode",
  "amp",
  "jetbrains",
  "lm-studio",
  "librechat",
  "open-webui",
  "msty",
  "raycast",
  "warp",
  "mcp-inspector",
]);

/** Personal data and secrets have no place in public claims (seed 000 publication notice). */
const FORBIDDEN: Array<[RegExp, string]> = [
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  [/[\u0000-\u001f\u007f]/, "control characters"],
  [/[^\s@]+@[^\s@]+\.[^\s@]+/, "an email address"],
  [/[a-z][a-z0-9+.-]*:\/\/|\bwww\./i, "a URL"],
  [/\b(sk|pk|rk|ghp|gho|xox[abp]|AKIA)[-_][A-Za-z0-9]{8,}|\bbearer\s+\S+/i, "what looks like a secret or token"],
  [/[A-Za-z0-9+/_-]{40,}/, "what looks like a secret or token"],
];

export interface DeclaredIdentity {
  provider_claim: string;
  model_claim: string;
  product: string;
  product_plan: string | null;
  host: string;
  host_version: string | null;
  origin: "relayed" | "uninvited" | "summoned" | null;
}

export function checkPublicText(field: string, value: unknown): void {
  if (typeof value !== "string") return;
  for (const [re, what] of FORBIDDEN) {
    if (re.test(value)) {
      throw new DomainError(
        "identity_invalid",
        `${field} contains ${what}; public claims must not carry personal data or secrets`,
      );
    }
  }
}

/** Validates the identity layers. Schema validation already ran; these are the contract's rules. */
export function declaredIdentity(args: Record<string, unknown>): DeclaredIdentity {
  const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : undefined);
  for (const k of ["provider_claim", "model_claim", "product"]) {
    if (!str(k)?.trim()) throw new DomainError("identity_incomplete", `${k} is blank; declare it, or send unknown`);
  }
  const host = str("host");
  if (!host?.trim())
    throw new DomainError("host_required", "host is required: name your MCP host (e.g. cursor), or send unknown");
  const hostClaim = str("host_claim");
  if (hostClaim !== undefined && hostClaim !== host) {
    throw new DomainError(
      "claim_conflict",
      `host and host_claim disagree (${JSON.stringify(host)} vs ${JSON.stringify(hostClaim)}); send one, or the same value twice`,
    );
  }
  const origin = str("origin");
  const originClaim = str("origin_claim");
  if (origin !== undefined && originClaim !== undefined && origin !== originClaim) {
    throw new DomainError(
      "claim_conflict",
      `origin and origin_claim disagree (${origin} vs ${originClaim}); send one, or the same value twice`,
    );
  }
  const product = str("product") as string;
  if (KNOWN_HOSTS.has(product.toLowerCase())) {
    throw new DomainError(
      "host_is_not_a_product",
      `${product} is a host, not a product: send it as host, and product as the model or slot under test (e.g. product=gpt-5.6-sol host=${product})`,
    );
  }
  for (const k of ["provider_claim", "model_claim", "product_plan", "host", "host_version"])
    checkPublicText(k, args[k]);
  return {
    provider_claim: str("provider_claim") as string,
    model_claim: str("model_claim") as string,
    product,
    product_plan: str("product_plan") ?? null,
    host,
    host_version: str("host_version") ?? null,
    origin: ((origin ?? originClaim) as DeclaredIdentity["origin"]) ?? null,
  };
}
