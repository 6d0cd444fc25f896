/**
 * A revealed generation's document checked against one card's proof bundle, in the browser
 * (docs/evidence-0.2.md §14.3 / §14.5): the steps the Verify page can take without the suite's
 * code. The bundle itself is checked by ./verify-proof.js.
 */
import { canonicalize } from "./jcs.js";
import { hex, isObject, sha256Tagged, utf8 } from "./verify-proof.js";

const OPENED = { action: ["request.value", "response.observation", "private"] };

function markerAt(event, location) {
  if (location === "private") return event.private;
  const [part, member] = location.split(".");
  const holder = event[part];
  return isObject(holder) && Object.hasOwn(holder, member) ? holder[member] : undefined;
}

function fromHex(s) {
  return typeof s === "string" && /^[0-9a-f]{64}$/.test(s)
    ? Uint8Array.from(s.match(/../g), (b) => Number.parseInt(b, 16))
    : null;
}

/**
 * What a revealed generation's document says of one card (docs/evidence-0.2.md §14.5, the steps a
 * browser can take without the suite's code): SHA-256 of the secret is the manifest's commitment,
 * the manifest is the card's and the reveal's, and every committed action value, observation and
 * private fact opens to its marker. Null when they all do, else {code, message}.
 */
export async function checkOpenings(bundle, reveal) {
  const secret = fromHex(reveal?.secret);
  // 0.3 carries a value salt in each opening; a saved 0.2 reveal carries the attempt's replay salt.
  const legacy = reveal?.reveal_version === "scoreia-reveal/0.2";
  if (!isObject(reveal) || !(legacy || reveal.reveal_version === "scoreia-reveal/0.3") || !secret) {
    return { code: "reveal_malformed", message: "the reveal document is not scoreia-reveal/0.3 with a 64-hex secret" };
  }
  const commitment = `sha256:${hex(await crypto.subtle.digest("SHA-256", secret))}`;
  const manifestHash = await sha256Tagged(canonicalize(bundle.manifest));
  if (
    bundle.manifest?.room_secret?.commitment !== commitment ||
    manifestHash !== reveal.manifest_hash ||
    manifestHash !== bundle.card?.suite?.manifest_hash
  ) {
    return { code: "secret_mismatch", message: "the revealed secret is not the one the card's manifest committed to" };
  }
  const id = bundle.card.card_id;
  const replaySalt = legacy ? fromHex(reveal.replay_salts?.[id]) : null;
  const openings = reveal.openings?.[id];
  if ((legacy && !replaySalt) || !Array.isArray(openings)) {
    return { code: "card_not_in_reveal", message: `the reveal has no openings for ${id}` };
  }
  const key = replaySalt
    ? await crypto.subtle.importKey("raw", replaySalt, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    : null;
  const events = bundle.replay.events;
  const opened = new Set();
  for (const o of openings) {
    const e = isObject(o) && Number.isSafeInteger(o.seq) ? events[o.seq] : undefined;
    const m = e ? markerAt(e, o.location) : undefined;
    if (!e || !(OPENED[e.kind] ?? []).includes(o.location) || !isObject(m)) {
      return { code: "opening_unexpected", message: "an opening names a place that holds no commitment" };
    }
    const valueSalt = key
      ? new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8.encode(`${o.seq}:${o.location}`)))
      : fromHex(o.salt);
    if (!valueSalt) return { code: "reveal_malformed", message: `event ${o.seq} ${o.location}: no 64-hex salt` };
    const value = utf8.encode(canonicalize(o.value));
    const both = new Uint8Array(valueSalt.length + value.length);
    both.set(valueSalt);
    both.set(value, valueSalt.length);
    if (m.redacted !== `sha256:${hex(await crypto.subtle.digest("SHA-256", both))}`) {
      return { code: "opening_mismatch", message: `event ${o.seq} ${o.location} does not open to its commitment` };
    }
    opened.add(`${o.seq}:${o.location}`);
  }
  for (const e of events) {
    for (const location of OPENED[e.kind] ?? []) {
      if (isObject(markerAt(e, location)) && !opened.has(`${e.seq}:${location}`)) {
        return { code: "opening_missing", message: `event ${e.seq} ${location} is committed but not opened` };
      }
    }
  }
  return null;
}
