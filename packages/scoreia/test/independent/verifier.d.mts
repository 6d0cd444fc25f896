// Type declarations for the independent verifier (verifier.mjs), so the vitest file type-checks.

export type Verdict = "valid" | "unknown_key" | "invalid";
export interface StepRecord {
  step: string;
  ok: boolean;
  checked?: false;
  detail?: string;
}
export interface VerifyResult {
  verdict: Verdict;
  code?: string;
  step?: string;
  detail?: string;
  steps: StepRecord[];
}

export class JcsError extends Error {}
export const GENESIS: string;
export const KNOWN_TOOLSETS: Readonly<Record<string, string>>;

export function isJsonObject(v: unknown): v is Record<string, unknown>;
export function jcs(v: unknown): string;
export function H(bytes: Uint8Array): string;
export function Hc(v: unknown): string;
export function b64urlStrict(s: unknown, expectedBytes?: number): Buffer | null;
export function instant(s: unknown): number | null;
export function deepEqual(a: unknown, b: unknown): boolean;
export function toolsetHash(contractJson: unknown): string;
export function manifestHash(manifest: unknown): string;
export function valueSalt(replaySalt: Uint8Array, seq: number, location: string): Buffer;
export function marker(replaySalt: Uint8Array, seq: number, location: string, value: unknown): { redacted: string };
export function verify(
  bundle: unknown,
  keysDocument: unknown,
  knownToolsets?: Readonly<Record<string, string>> | null,
  latest?: { tree_head: unknown; consistency: unknown },
): VerifyResult;
export function verifyHistorical(card: unknown): { verdict: string; code?: string };
export function duplicateMember(text: string): string | null;
export function verifyText(
  text: string,
  keysDocument: unknown,
  knownToolsets?: Readonly<Record<string, string>> | null,
): VerifyResult;
export function merkleLeaf(bytes: Uint8Array): Buffer;
export function merkleNode(left: Uint8Array, right: Uint8Array): Buffer;
export function logLeafHash(leaf: unknown): Buffer;
export function inclusionHolds(index: number, size: number, leafHash: Buffer, path: Buffer[], root: Buffer): boolean;
export function consistencyHolds(size1: number, size2: number, path: Buffer[], root1: Buffer, root2: Buffer): boolean;
export function checkOpenings(bundle: unknown, reveal: unknown): string | null;
