import { type FixtureStep, need } from "../../platform/module.ts";
import { type Challenge, handshake, prepareCompletion } from "./client.ts";

/**
 * The e2e fixture's auth objects (platform/module.ts FixtureStep). Keys:
 * - authTicketId: an unredeemed ticket (handshake_challenge's example names it);
 * - authClientId, authSessionId: a principal enrolled by a full handshake, and its session
 *   (list_sessions, revoke_principal, revoke_session);
 * - authChallengeId, authClientEcdh, authKemCt, authEnvelopeIv/Ct/Tag, authProfile: a prepared
 *   completion of a second ticket's challenge (handshake_complete's example redeems it).
 */
export const authFixtures: readonly FixtureStep[] = [
  {
    makes: [
      "authTicketId",
      "authClientId",
      "authSessionId",
      "authChallengeId",
      "authClientEcdh",
      "authKemCt",
      "authEnvelopeIv",
      "authEnvelopeCt",
      "authEnvelopeTag",
      "authProfile",
    ],
    needs: "issue_ticket",
    run: async (f, call) => {
      const project = need(f, "project");
      const ticket = async () => call("issue_ticket", { user: "fixture-agent", projects: [project] });
      const enrolled = await ticket();
      const profile = String(enrolled.profile);
      const grant = await handshake(call, {
        refKind: "ticket",
        refId: String(enrolled.ticket_id),
        secret: String(enrolled.secret),
        profile,
      });
      const pending = await ticket();
      const cred = {
        refKind: "ticket" as const,
        refId: String(pending.ticket_id),
        secret: String(pending.secret),
        profile,
      };
      const ch = await call("handshake_challenge", { ref_kind: "ticket", ref_id: cred.refId });
      const { args } = prepareCompletion(ch as unknown as Challenge, cred);
      const spare = await ticket();
      return {
        authTicketId: String(spare.ticket_id),
        authClientId: grant.client_id,
        authSessionId: grant.session_id,
        authChallengeId: args.challenge_id,
        authClientEcdh: args.client_ecdh,
        authKemCt: args.kem_ct,
        authEnvelopeIv: args.envelope_iv,
        authEnvelopeCt: args.envelope_ct,
        authEnvelopeTag: args.envelope_tag,
        authProfile: profile,
      };
    },
  },
];
