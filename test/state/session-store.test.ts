import { join } from "node:path";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { sessionStoreContract } from "./session-store-contract.js";
import { tempDir } from "./temp-dir.js";

sessionStoreContract("sqlite", () => SqliteSessionStore.open(join(tempDir(), "state.db")));
