/**
 * The original's top-level `matrix:` section: which rooms the Matrix platform answers in. The
 * MATRIX_REQUIRE_MENTION, MATRIX_FREE_RESPONSE_ROOMS and MATRIX_ALLOWED_ROOMS variables, when
 * set, override these keys. Room lists are YAML lists or comma-separated strings of room ids.
 */
import { bool, idList, section } from "./config-fields.js";

export const matrixSection = section({
  /** In rooms (not DMs), answer only messages that mention the bot. */
  require_mention: bool(true),
  /** Room ids where every message is answered, mention or not. */
  free_response_rooms: idList(),
  /** When not empty, the only rooms answered at all (DMs are always answered). */
  allowed_rooms: idList(),
});
