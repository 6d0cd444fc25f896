import { randomBytes } from "node:crypto";

/** Identifiers come from one place: `prefix` + lowercase hex of `bytes` random bytes. */
export function randomHexId(prefix: string, bytes: number): string {
  return prefix + randomBytes(bytes).toString("hex");
}
