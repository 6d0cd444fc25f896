import type { FixtureStep } from "../../platform/module.ts";

/** The e2e fixture's session (platform/module.ts FixtureStep). Keys: sessionId, a saved session. */
export const sessionsFixtures: readonly FixtureStep[] = [
  {
    makes: ["sessionId"],
    needs: "session_save",
    run: async (f, call) => {
      const sc = await call("session_save", { summary: `fixture session for ${f.project}`, project: f.project });
      return { sessionId: sc.session_id as string };
    },
  },
];
