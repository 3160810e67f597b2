/**
 * `bedrock.*`: settings of the AWS Bedrock provider. `region` is used when the base URL names
 * none (before AWS_REGION and AWS_DEFAULT_REGION); `guardrail` applies an Amazon Bedrock
 * Guardrail to every Converse request. Model discovery (`bedrock.discovery`) is not read.
 */
import { z } from "../util/schema/index.js";
import { accepts, oneOf, section, text } from "./config-fields.js";

const guardrailShape = {
  /** The guardrail's id or ARN; empty: no guardrail. */
  guardrail_identifier: text(""),
  /** Its version: a number, or DRAFT. */
  guardrail_version: text(""),
  /** How streamed replies are checked: "async" streams at once and checks alongside, "sync" holds each chunk until checked. */
  stream_processing_mode: oneOf(["async", "sync"]).default("async"),
  trace: oneOf(["disabled", "enabled", "enabled_full"]).default("disabled"),
};

const guardrailSection = z
  .object(guardrailShape, accepts("a mapping of settings"))
  .refine(
    (guardrail) => !guardrail.guardrail_identifier.trim() || Boolean(guardrail.guardrail_version.trim()),
    accepts("given a guardrail_version (a version number, or DRAFT) when guardrail_identifier is set"),
  )
  .prefault({});

export const bedrockSection = section({
  region: text(""),
  guardrail: guardrailSection,
});
