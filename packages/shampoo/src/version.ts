/**
 * SHAMPOO's version, as code: what `status` reports without reading package.json next to a source
 * file (a bundle elsewhere, e.g. the crash test's writer, has none there). test/version.test.ts
 * fails when it differs from packages/shampoo/package.json.
 */
export const SHAMPOO_VERSION = "0.1.0";
