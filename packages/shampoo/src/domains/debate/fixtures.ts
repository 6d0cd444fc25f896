import { type FixtureStep, need } from "../../platform/module.ts";

/**
 * The e2e fixture's debate objects (platform/module.ts FixtureStep), all made by tool calls of
 * the one fixture caller (it owns every minted session). Keys:
 * - debateTopicId: a legacy topic in f.project with CONDUCTOR, PARTICIPANT and OBSERVER bound
 *   to minted sessions; debateSessionId (CONDUCTOR's), debateParticipantSessionId,
 *   debateObserverSessionId: those sessions.
 * - debateMessageId: a DECISION of CONDUCTOR addressed to PARTICIPANT; debateTriggerId: a later
 *   Q addressed to PARTICIPANT (the worker-claim trigger).
 * - debateCloseTopicId: a topic with no open questions (debate_close_topic resolves it).
 * - debateStateTopicId: a topic left in INIT (debate_state activates it).
 * - debateSentinelTopicId: an imported legacy topic whose project is unset (reconcile target).
 * - debateV1TopicId: a debate/v1 topic (PRO and CON blind, JUDGE, one round) in ADJUDICATE;
 *   debateLeftMsgId / debateRightMsgId: PRO's and CON's revealed CLAIMs; debateProjectionId:
 *   the AB projection debate_judge_prepare made from them.
 */
export const debateFixtures: readonly FixtureStep[] = [
  {
    makes: [
      "debateTopicId",
      "debateSessionId",
      "debateParticipantSessionId",
      "debateObserverSessionId",
      "debateMessageId",
      "debateTriggerId",
      "debateCloseTopicId",
      "debateStateTopicId",
      "debateSentinelTopicId",
      "debateV1TopicId",
      "debateLeftMsgId",
      "debateRightMsgId",
      "debateProjectionId",
    ],
    needs: "debate_init",
    run: async (f, call) => {
      const project = need(f, "project");
      const roster = (roles: string[]) => JSON.stringify(roles.map((role) => ({ role })));
      const init = (title: string, roles: string[], extra: Record<string, unknown> = {}) =>
        call("debate_init", { title, created_by_role: roles[0], project, roles_json: roster(roles), ...extra });
      const session = (t: Record<string, unknown>, role: string) =>
        ((t.seeded_bindings as Array<Record<string, unknown>>).find((b) => b.role === role)?.session_id as string) ??
        "";

      const main = await init("fixture debate", ["CONDUCTOR", "PARTICIPANT", "OBSERVER"]);
      const topicId = main.topic_id as string;
      const decision = await call("debate_post_with_recipients", {
        topic_id: topicId,
        role: "CONDUCTOR",
        priority: "H",
        kind: "DECISION",
        body: "fixture: adopt musl-first packaging",
        addressed_to_csv: "PARTICIPANT",
      });
      const trigger = await call("debate_post_with_recipients", {
        topic_id: topicId,
        role: "CONDUCTOR",
        priority: "M",
        kind: "Q",
        body: "fixture: which base image?",
        addressed_to_csv: "PARTICIPANT",
      });
      const close = await init("fixture debate to close", ["CONDUCTOR"]);
      const state = await init("fixture debate to activate", ["CONDUCTOR"]);
      const sentinel = await call("debate_init", {
        title: "fixture legacy import",
        created_by_role: "CONDUCTOR",
        metadata_json: '{"legacy_project_unset":true}',
      });

      const v1 = await init("fixture blind debate", ["CONDUCTOR", "PRO", "CON", "JUDGE"], {
        protocol_version: "debate/v1",
        blind_roles_csv: "PRO,CON",
        max_rounds: 1,
      });
      const v1Id = v1.topic_id as string;
      const position = (role: string, body: string) =>
        call("debate_post", { topic_id: v1Id, role, priority: "M", kind: "CLAIM", body });
      const left = await position("PRO", "fixture: musl images are smaller");
      const right = await position("CON", "fixture: glibc is more compatible");
      const prepared = await call("debate_judge_prepare", {
        topic_id: v1Id,
        left_msg_id: left.msg_id,
        right_msg_id: right.msg_id,
      });
      const ab = (prepared.projections as Array<Record<string, unknown>>).find((p) => p.order_key === "AB");
      return {
        debateTopicId: topicId,
        debateSessionId: session(main, "CONDUCTOR"),
        debateParticipantSessionId: session(main, "PARTICIPANT"),
        debateObserverSessionId: session(main, "OBSERVER"),
        debateMessageId: decision.msg_id as string,
        debateTriggerId: trigger.msg_id as string,
        debateCloseTopicId: close.topic_id as string,
        debateStateTopicId: state.topic_id as string,
        debateSentinelTopicId: sentinel.topic_id as string,
        debateV1TopicId: v1Id,
        debateLeftMsgId: left.msg_id as string,
        debateRightMsgId: right.msg_id as string,
        debateProjectionId: ab?.projection_id as string,
      };
    },
  },
];
