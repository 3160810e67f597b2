/** Two `hermes gateway run` processes on one database, one SIGKILLed halfway (see replica-scenario.ts). */
import { test } from "node:test";
import { postgresOrSkip } from "../helpers/postgres.js";
import { runScenario } from "./replica-scenario.js";

const db = postgresOrSkip();

if (db) {
  test("two gateway processes, one SIGKILLed halfway: the survivor answers the rest once each, in order", () =>
    runScenario(db, 2));
}
