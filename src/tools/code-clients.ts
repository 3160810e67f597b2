/**
 * Source of the client modules an `execute_code` script imports (`hermes_tools.py`,
 * `hermes_tools.mjs`): one function per available tool, each a call over the RPC channel.
 * The URL and token reach the script through HERMES_RPC_URL and HERMES_RPC_TOKEN.
 */

export interface ToolSignature {
  name: string;
  description: string;
  /** Parameter names, required ones first. */
  params: string[];
  required: string[];
}

/** Signatures from published JSON schemas, leaving out parameters the sandbox strips. */
export function toolSignature(
  name: string,
  description: string,
  schema: Record<string, unknown>,
  hidden: readonly string[] = [],
): ToolSignature {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = (Array.isArray(schema.required) ? (schema.required as string[]) : []).filter(
    (p) => !hidden.includes(p),
  );
  const optional = Object.keys(properties).filter((p) => !required.includes(p) && !hidden.includes(p));
  return { name, description: firstSentence(description), params: [...required, ...optional], required };
}

function firstSentence(text: string): string {
  const cut = text.search(/\.(\s|$)/);
  return (cut === -1 ? text : text.slice(0, cut + 1)).replace(/\s+/g, " ").trim();
}

const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

function isIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

function pythonFunction(tool: ToolSignature): string {
  const params = tool.params.filter((p) => isIdentifier(p) && !PYTHON_KEYWORDS.has(p));
  const signature = params.map((p) => (tool.required.includes(p) ? p : `${p}=None`)).join(", ");
  const packed = params.map((p) => `${JSON.stringify(p)}: ${p}`).join(", ");
  return [
    `def ${tool.name}(${signature}):`,
    `    ${JSON.stringify(tool.description)}`,
    `    return call_tool(${JSON.stringify(tool.name)}, _drop_none({${packed}}))`,
  ].join("\n");
}

export function pythonClient(tools: readonly ToolSignature[]): string {
  const header = `"""Hermes tools for this script. Each function runs one agent tool and returns its result
(parsed from JSON when it is JSON). A refused call raises ToolError."""
import json as _json
import os as _os
import urllib.error as _urlerror
import urllib.request as _urlrequest

__all__ = ["ToolError", "call_tool", ${tools.map((t) => JSON.stringify(t.name)).join(", ")}]

_URL = _os.environ["HERMES_RPC_URL"]
_TOKEN = _os.environ["HERMES_RPC_TOKEN"]
_OPENER = _urlrequest.build_opener(_urlrequest.ProxyHandler({}))


class ToolError(Exception):
    pass


def _drop_none(args):
    return {k: v for k, v in args.items() if v is not None}


def call_tool(name, args=None):
    body = _json.dumps({"tool": name, "args": args or {}}).encode("utf-8")
    request = _urlrequest.Request(_URL, data=body, method="POST", headers={
        "Content-Type": "application/json",
        "Authorization": "Bearer " + _TOKEN,
    })
    try:
        with _OPENER.open(request) as response:
            payload = _json.loads(response.read().decode("utf-8"))
    except _urlerror.HTTPError as err:
        text = err.read().decode("utf-8")
        try:
            payload = _json.loads(text)
        except ValueError:
            payload = {"error": text or str(err)}
    if "error" in payload:
        raise ToolError(payload["error"])
    result = payload.get("result", "")
    try:
        return _json.loads(result)
    except (TypeError, ValueError):
        return result
`;
  return `${header}\n\n${tools.map(pythonFunction).join("\n\n\n")}\n`;
}

function nodeFunction(tool: ToolSignature): string {
  const first = tool.required[0] ?? tool.params[0];
  const positional = first
    ? `typeof input === "object" && input !== null ? input : { ${JSON.stringify(first)}: input, ...options }`
    : "input ?? {}";
  return [
    `/** ${tool.description.replace(/\*\//g, "* /")} Parameters: ${tool.params.join(", ") || "none"}. */`,
    `export async function ${tool.name}(input, options = {}) {`,
    `  return callTool(${JSON.stringify(tool.name)}, ${positional});`,
    "}",
  ].join("\n");
}

export function nodeClient(tools: readonly ToolSignature[]): string {
  const header = `// Hermes tools for this script. Each function runs one agent tool and resolves to its result
// (parsed from JSON when it is JSON). Pass an object of arguments, or the first argument
// followed by an object of the others. A refused call rejects with ToolError.
const URL_ = process.env.HERMES_RPC_URL;
const TOKEN = process.env.HERMES_RPC_TOKEN;

export class ToolError extends Error {}

export async function callTool(name, args = {}) {
  const response = await fetch(URL_, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: \`Bearer \${TOKEN}\` },
    body: JSON.stringify({ tool: name, args }),
  });
  const text = await response.text();
  let payload;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = { error: text || \`HTTP \${response.status}\` };
  }
  if (payload.error !== undefined) throw new ToolError(payload.error);
  try {
    return JSON.parse(payload.result);
  } catch {
    return payload.result;
  }
}

export const call_tool = callTool;
`;
  const functions = tools.filter((t) => isIdentifier(t.name)).map(nodeFunction);
  return `${header}\n${functions.join("\n\n")}\n`;
}
