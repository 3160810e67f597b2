import assert from "node:assert/strict";
import { test } from "node:test";
import { hostAllowed } from "../../src/tools/sandbox-proxy.js";

test("an allowed host matches exactly, in any case, with or without a trailing dot", () => {
  assert.equal(hostAllowed("Example.COM", ["example.com"]), true);
  assert.equal(hostAllowed("example.com.", ["example.com"]), true);
  assert.equal(hostAllowed("api.example.com", ["example.com"]), false);
  assert.equal(hostAllowed("example.com.evil.net", ["example.com"]), false);
  assert.equal(hostAllowed("notexample.com", ["example.com"]), false);
});

test("*.domain allows its subdomains and the domain itself, not look-alikes", () => {
  assert.equal(hostAllowed("api.github.com", ["*.github.com"]), true);
  assert.equal(hostAllowed("github.com", ["*.github.com"]), true);
  assert.equal(hostAllowed("evilgithub.com", ["*.github.com"]), false);
  assert.equal(hostAllowed("github.com.evil.net", ["*.github.com"]), false);
});

test("IPv6 literals are compared without their brackets; an empty list allows nothing", () => {
  assert.equal(hostAllowed("[::1]", ["::1"]), true);
  assert.equal(hostAllowed("localhost", []), false);
});

test("allowed-host patterns are read without case or surrounding spaces, and any one of them may match", () => {
  assert.equal(hostAllowed("example.com", [" Example.COM "]), true);
  assert.equal(hostAllowed("api.github.com", ["  *.GitHub.com"]), true);
  assert.equal(hostAllowed("api.github.com", ["example.com", "*.github.com"]), true);
  assert.equal(hostAllowed("example.com", ["example.com", "*.github.com"]), true);
});

test("brackets count only around the whole name, so they cannot splice an allowed name together", () => {
  assert.equal(hostAllowed("[local]host", ["localhost"]), false);
  assert.equal(hostAllowed("local[host]", ["localhost"]), false);
  assert.equal(hostAllowed("[localhost]", ["localhost"]), true);
});
