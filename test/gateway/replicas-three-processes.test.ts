/** Three `hermes gateway run` processes on one database, one SIGKILLed halfway (see replica-scenario.ts). */
import { test } from "node:test";
import { postgresOrSkip } from "../helpers/postgres.js";
import { runScenario } from "./replica-scenario.js";

const db = postgresOrSkip();

if (db) {
  test("three gateway processes, one SIGKILLed halfway: 500 messages over 20 chats answered once each, in order", () =>
    runScenario(db, 3));
}
