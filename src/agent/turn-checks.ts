/**
 * Checks made when the model gives a final answer, before the turn ends (settings below).
 */

/** `agent.intent_ack_continuation`, `agent.verify_on_stop`, `max_verify_nudges`, `verify_guidance`. */
export interface TurnCheckSettings {
  /** auto (the Responses API only), true, false, or model-name fragments. */
  intentAckContinuation: "auto" | boolean | readonly string[];
  /** auto (on outside chat platforms), true, false; HERMES_VERIFY_ON_STOP wins. */
  verifyOnStop: "auto" | boolean;
  maxVerifyNudges: number;
  verifyGuidance: boolean;
}
